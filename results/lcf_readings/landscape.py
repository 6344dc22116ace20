"""LCF readings landscape: every sub-run of the lcf_yale / lcf_orl draws, recorded once, read
under each reading of the protocol's unstated steps.

For each draw (k, run) of the table's config (same classes, same method seeds as `docfact run`),
each method runs its 10 sub-runs (the seeds `best_of` spawns); CF and LCF under each stopping
rule (NMF and SparseNMF under the running-mean rule only), LCF under each start and each
in-loop normalisation; a sub-run records its final objective and its
AC/NMI by k-means on V (the runner's read-out, same seed) and by argmax of V. The selection among
sub-runs (highest AC, or lowest objective) and the read-out are applied afterwards (score.py).

usage: python landscape.py CONFIG K[,K...] RUNS OUT.csv [STOP,INIT,NORM]
(appends; skips recorded rows; the optional reading restricts CF and LCF to it, for the held-out k)
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import csv
import sys
from pathlib import Path

from threadpoolctl import threadpool_limits

from docfact import algorithms as alg
from docfact import metrics
from docfact.config import load_config
from docfact.experiment.methods import split_seed
from docfact.experiment.plan import Plan
from docfact.experiment.sampling import method_seed

STOPS = {"tol": None, "fixed1000": 1000}  # running-mean rule (tol 1e-5) or 1000 iterations
LCF_VARIANTS = [(init, norm) for init in ("random", "cf") for norm in (False, True)]
FIELDS = ["view", "k", "run", "method", "stop", "init", "loop_normalize", "sub", "objective",
          "n_iter", "ac_kmeans", "nmi_kmeans", "ac_argmax", "nmi_argmax"]


def variants(m, only=None):
    """(stop, init, loop_normalize, overrides) of a method under every reading it has (or, with
    `only` = (stop, init, loop_normalize), under that one)."""
    if only is not None:
        stop = only[0] if m.algorithm in ("cf", "lcf") else "tol"
        return [v for v in variants(m) if v[0] in (stop, "-") and v[1] in (only[1], "-")
                and str(v[2]) in (only[2], "-")]
    if not m.factorizes:
        return [("-", "-", "-", {})]
    out = []
    for stop, max_iter in STOPS.items():
        if m.algorithm == "lcf":
            out += [(stop, i, n, {"max_iter": max_iter, "init": i, "loop_normalize": n})
                    for i, n in LCF_VARIANTS]
        elif m.algorithm == "cf" or stop == "tol":  # NMF and SparseNMF: their own rule only
            out.append((stop, "-", "-", {"max_iter": max_iter}))
    return out


def sub_run(m, shared, k, seed, y, overrides):
    fit_seed, label_seed = split_seed(seed)
    if overrides.get("max_iter") is not None:  # the objective at the end, not at the start
        overrides = {**overrides, "track_objective": True}
    est, out = m.fit(shared, k, fit_seed, **overrides)
    if not m.factorizes:
        ac, nmi = metrics.accuracy(y, out), metrics.nmi(y, out)
        return {"objective": est.inertia_, "n_iter": "", "ac_kmeans": ac, "nmi_kmeans": nmi,
                "ac_argmax": ac, "nmi_argmax": nmi}
    km = alg.KMeans(k, n_replicates=m.labels.get("replicates", 20),
                    random_state=label_seed).fit(out).labels_
    am = out.argmax(axis=1)
    return {"objective": est.objective_[-1], "n_iter": est.n_iter_,
            "ac_kmeans": metrics.accuracy(y, km), "nmi_kmeans": metrics.nmi(y, km),
            "ac_argmax": metrics.accuracy(y, am), "nmi_argmax": metrics.nmi(y, am)}


def main(config_path, ks, runs, out_path, only=None):
    plan = Plan.of(load_config(config_path), [(k, r) for k in ks for r in range(runs)])
    config = plan.config
    corpus = plan.corpus()
    X0 = plan.base_matrix(corpus)
    out = Path(out_path)
    done = set()
    if out.exists():
        with out.open() as f:
            done = {(r["view"], r["k"], r["run"], r["method"], r["stop"], r["init"],
                     r["loop_normalize"]) for r in csv.DictReader(f)}
    new = not out.exists()
    with out.open("a", newline="") as f, threadpool_limits(1):
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        for r in range(runs):
            for k in ks:
                task = plan.task(X0, corpus.y, k, r)
                X, y = plan.prepare(task.X), task.y
                shared = plan.artefacts(task, X)
                for m in config.methods:
                    for stop, init, norm, overrides in variants(m, only):
                        key = (config.view, str(k), str(r), m.name, stop, str(init), str(norm))
                        if key in done:
                            continue
                        seeds = method_seed(config.seed, k, r, m.name).spawn(config.best_of)
                        for s, seed in enumerate(seeds):
                            rec = sub_run(m, shared, k, seed, y, overrides)
                            w.writerow({"view": config.view, "k": k, "run": r, "method": m.name,
                                        "stop": stop, "init": init, "loop_normalize": norm,
                                        "sub": s, **rec})
                        f.flush()
                        print(k, r, m.name, stop, init, norm, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], [int(k) for k in sys.argv[2].split(",")], int(sys.argv[3]), sys.argv[4],
         sys.argv[5].split(",") if len(sys.argv) > 5 else None)
