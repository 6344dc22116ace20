"""RCF readings landscape on the draws of an RCF table (same classes, same RCF seeds as
`docfact run`): one fit of RCF per reading of its unstated steps, read out two ways.

Readings:
  sampling  labelled: t of each class's documents labelled, all pairs among them (the tables' now)
            pairs:    t of all n(n-1)/2 document pairs drawn at random, labelled from the truth
  propagate S:        E2CP's limit on S = D^-1/2 W D^-1/2, F = (1-a)^2 P Z P, P = (I - a S)^-1
            S-max:    the same, F scaled so that max |F| = 1
            L:        the paper's text, L = I - S in place of S, F clipped to [-1, 1]
            none:     no propagation, F = (1-a)^2 Z
  enter     dense:    Eq. (11) on every pair (W~ dense, the tables' now)
            knn:      Eq. (11) on the p-NN graph's edges only
  read-out  cosine k-means on V (the tables') and argmax of V, from the same fit.
LCCF (the same graph, no constraints) is recorded on each draw for the paired difference.

usage: python landscape.py CONFIG K[,K...] RUNS OUT.csv [PROPAGATE:ENTER,...]
(appends; skips recorded rows; the optional list restricts the readings run, both samplings)
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import csv
import sys
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from docfact import algorithms as alg
from docfact import metrics
from docfact.algorithms.graphs import degrees, pair_constraints
from docfact.config import load_config
from docfact.experiment.methods import split_seed
from docfact.experiment.plan import Plan
from docfact.experiment.sampling import method_seed

FIELDS = ["config", "k", "run", "method", "sampling", "propagate", "enter", "n_pairs",
          "mean_abs_f", "within_share", "ac_cosine", "nmi_cosine", "ac_argmax", "nmi_argmax"]
READINGS = [(s, p, e) for s in ("labelled", "pairs")
            for p, e in (("S", "dense"), ("S-max", "dense"), ("L", "dense"), ("none", "dense"),
                         ("S", "knn"), ("none", "knn"))]


def pairs_z(y, t, seed, k, r):
    """Z (n, n): t of all document pairs, +1 same class, -1 different classes."""
    n = len(y)
    rng = np.random.default_rng([seed, k, r, zlib.crc32(b"pairs")])
    iu, ju = np.triu_indices(n, 1)
    pick = rng.choice(len(iu), max(1, round(t * len(iu))), replace=False)
    i, j = iu[pick], ju[pick]
    z = np.where(y[i] == y[j], 1.0, -1.0)
    Z = sp.coo_matrix((np.r_[z, z], (np.r_[i, j], np.r_[j, i])), shape=(n, n)).toarray()
    return Z, len(pick)


def labelled_z(y_partial):
    M, C = pair_constraints(y_partial)
    return (M - C).toarray(), int(M.nnz + C.nnz) // 2


def propagate(W, Z, alpha, how):
    if how == "none":
        return (1 - alpha) ** 2 * Z
    d = degrees(W)
    g = 1.0 / np.sqrt(np.maximum(d, np.finfo(float).tiny))
    S = (sp.diags(g) @ W @ sp.diags(g)).toarray()
    n = len(d)
    A = np.eye(n) - alpha * (S if how in ("S", "S-max") else np.eye(n) - S)
    P = np.linalg.inv(A)
    F = (1 - alpha) ** 2 * P @ Z @ P
    F = (F + F.T) / 2
    if how == "S-max":
        F /= max(np.abs(F).max(), 1e-300)
    if how == "L":
        F = np.clip(F, -1, 1)
    return F


def w_tilde(W, F, enter):
    Wd = W.toarray()
    Wt = np.where(F >= 0, 1 - (1 - F) * (1 - Wd), (1 + F) * Wd)
    if enter == "knn":
        Wt = np.where(Wd > 0, Wt, 0.0)
    np.fill_diagonal(Wt, 0.0)
    return Wt


class GivenGraphRCF(alg.RCF):
    """RCF's update on a given W~ (set as .Wt before fitting)."""

    def _affinity(self, X, S, y):
        return self.Wt, self.lam


def read_out(V, k, y, label_seed):
    km = alg.KMeans(k, n_replicates=10, metric="cosine", random_state=label_seed).fit(V).labels_
    am = V.argmax(axis=1)
    return {"ac_cosine": metrics.accuracy(y, km), "nmi_cosine": metrics.nmi(y, km),
            "ac_argmax": metrics.accuracy(y, am), "nmi_argmax": metrics.nmi(y, am)}


def main(config_path, ks, runs, out_path, only=None):
    plan = Plan.of(load_config(config_path), [(k, r) for k in ks for r in range(runs)])
    config = plan.config
    methods = {m.name: m for m in config.methods}
    rcf, lccf = methods["RCF"], methods["LCCF"]
    corpus = plan.corpus()
    X0 = plan.base_matrix(corpus)
    out = Path(out_path)
    done = set()
    if out.exists():
        with out.open() as f:
            done = {(r["config"], r["k"], r["run"], r["method"], r["sampling"], r["propagate"],
                     r["enter"]) for r in csv.DictReader(f)}
    new = not out.exists()
    with out.open("a", newline="") as f, threadpool_limits(1):
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        for k in ks:
            for r in range(runs):
                task = plan.task(X0, corpus.y, k, r)
                X, y = plan.prepare(task.X), task.y
                shared = plan.artefacts(task, X)
                W = shared.graph(rcf.params["p"], rcf.params["weight"])
                same = y[:, None] == y[None, :]
                base = {"config": config.name, "k": k, "run": r}
                if (config.name, str(k), str(r), "LCCF", "-", "-", "-") not in done:
                    seed = method_seed(config.seed, k, r, "LCCF")
                    fit_seed, label_seed = split_seed(seed)
                    _, V = lccf.fit(shared, k, fit_seed)
                    w.writerow({**base, "method": "LCCF", "sampling": "-", "propagate": "-",
                                "enter": "-", **read_out(V, k, y, label_seed)})
                fit_seed, label_seed = split_seed(method_seed(config.seed, k, r, "RCF"))
                for sampling, how, enter in READINGS:
                    if only is not None and f"{how}:{enter}" not in only:
                        continue
                    key = (config.name, str(k), str(r), "RCF", sampling, how, enter)
                    if key in done:
                        continue
                    if sampling == "labelled":
                        Z, n_pairs = labelled_z(shared.y_partial)
                    else:
                        Z, n_pairs = pairs_z(y, config.labelled, config.seed, k, r)
                    F = propagate(W, Z, rcf.params["alpha"], how)
                    Wt = w_tilde(W, F, enter)
                    est = GivenGraphRCF(k, random_state=fit_seed, **rcf.params)
                    est.Wt = Wt
                    V = est.fit_transform(shared.X, shared.y_partial)
                    w.writerow({**base, "method": "RCF", "sampling": sampling, "propagate": how,
                                "enter": enter, "n_pairs": n_pairs,
                                "mean_abs_f": float(np.abs(F).mean()),
                                "within_share": float(Wt[same].sum() / Wt.sum()),
                                **read_out(V, k, y, label_seed)})
                    f.flush()
                    print(config.name, k, r, sampling, how, enter, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], [int(k) for k in sys.argv[2].split(",")], int(sys.argv[3]), sys.argv[4],
         sys.argv[5].split(",") if len(sys.argv) > 5 else None)
