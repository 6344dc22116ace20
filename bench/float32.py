"""The fast numerics against the committed ones, on a sample of real draws of the tables.

For each sampled (table, k, run): the run's documents, graphs and labels exactly as `docfact run`
prepares them; every factorization of the table clustered once per variant, in turn, with the run's
seeds: "reference" (float64, reference products: the committed digits, checked against the
committed runs.csv) and "fast" (numerics {precision: float32, products: auto}), optionally "auto64"
(products auto in float64) and "mixed" ({precision: mixed, products: auto}). Per fit: AC, NMI, the
objective, iterations, seconds (fit and labels, what timings.csv holds), the objective at the
restart selection (what runs.csv records), and the agreement of the variant's labels with the
reference's (AC of one labelling against the other: 1 = the same clusters). Rows are appended to
the CSV as they come (a rerun resumes); the Markdown summarises the differences with 95% intervals
and the speedups (medians of per-fit ratios, the variants timed in turn in one process, so a slow
spell of the shared machine falls on both).

    python bench/float32.py [--sample SPEC] [--variants reference,fast] [--csv bench/FLOAT32.csv]
                            [--md bench/FLOAT32.md]

SPEC: TABLE:K1/K2/...:R1/R2/..., comma-separated (default: SAMPLE below); --methods M1,M2
restricts every pair to those methods; --sample "" only summarises the CSV.
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from docfact import metrics
from docfact.digits import deviation
from docfact.experiment.plan import Plan
from docfact.experiment.plan import load as load_config

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ("rcf_tdt2_t2_reference:3:0/1/2/3,rcf_tdt2_t2_reference:6/12:0,"
          "rcf_reuters_t2_reference:2/3/4:0,lccf_tdt2:2/3/4/5/6/7/8/9/10:0,gnmf_tdt2:2/4/6/8/10:0")
VARIANTS = {"reference": {}, "fast": {"precision": "float32", "products": "auto"},
            "auto64": {"products": "auto"}, "mixed": {"precision": "mixed", "products": "auto"}}


def pairs(spec: str):
    """[(table, k, run)] of a SPEC."""
    out = []
    for part in filter(None, spec.split(",")):
        table, ks, rs = part.split(":")
        out += [(table, int(k), int(r)) for k in ks.split("/") for r in rs.split("/")]
    return out


def run_pair(config, k: int, r: int, variants: list, only=None) -> list:
    """The records of every factorization of `config` (or of those named in `only`) on run r
    of k, per variant."""
    plan = Plan.of(config, [(k, r)])
    corpus = plan.corpus()
    task = plan.task(plan.base_matrix(corpus), corpus.y, k, r)
    y = task.y
    shared = plan.artefacts(task, plan.prepare(task.X))
    committed = pd.read_csv(ROOT / "results" / config.name / "runs.csv")
    rows = []
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        for m in config.methods:
            if not m.factorizes or (only and m.name not in only):
                continue
            labels = {}
            for v in variants:
                method = m.with_numerics(VARIANTS[v])
                t = time.perf_counter()
                out = method.cluster(shared, k, plan.seed(task, m.name))
                seconds = time.perf_counter() - t
                labels[v] = out["labels"]
                rows.append({"table": config.name, "k": k, "run": r, "method": m.name,
                             "n_docs": task.X.shape[0], "variant": v,
                             "ac": metrics.accuracy(y, out["labels"]),
                             "nmi": metrics.nmi(y, out["labels"]),
                             "objective": out["objective"], "n_iter": out["n_iter"],
                             "seconds": round(seconds, 4),
                             "agreement": metrics.accuracy(labels["reference"], out["labels"])})
            ref = committed[(committed.k == k) & (committed.run == r)
                            & (committed.method == m.name)]
            mine = rows[-len(variants)]
            if len(ref) and abs(ref.ac.iloc[0] - mine["ac"]) > 1e-12:
                warnings.warn(f"{config.name} k={k} run={r} {m.name}: reference AC "
                              f"{mine['ac']:.6f} != committed {ref.ac.iloc[0]:.6f}", stacklevel=1)
    return rows


def summary(df: pd.DataFrame, variants: list) -> str:
    """Markdown: per table and variant, the differences from the reference with 95% intervals."""
    ref = df[df.variant == "reference"].set_index(["table", "k", "run", "method"])
    drawn = ref.reset_index().groupby("table").apply(
        lambda g: ", ".join(f"k={k} run {r} (N={n})" for (k, r), n in
                            g.groupby(["k", "run"]).n_docs.first().items()), include_groups=False)
    lines = ["Sampled draws (every factorization of the table unless --methods restricted "
             "them; FLOAT32.csv has one row per fit and variant):", ""]
    lines += [f"- {t}: {text}" for t, text in drawn.items()] + [""]
    for v in variants:
        if v == "reference":
            continue
        d = df[df.variant == v].set_index(["table", "k", "run", "method"])
        j = d.merge(ref, left_index=True, right_index=True, suffixes=("", "_ref"))
        j["dac"], j["dnmi"] = j.ac - j.ac_ref, j.nmi - j.nmi_ref
        j["dobj"] = (j.objective - j.objective_ref) / j.objective_ref.abs()
        j["speedup"] = j.seconds_ref / j.seconds
        lines += [f"### {v} ({VARIANTS[v]}) against reference (float64, reference products)", "",
                  "| table | fits | AC ref | AC | AC diff [95% CI] | NMI diff [95% CI] | "
                  "same labels | agreement min | objective rel. diff (median abs) | "
                  "speedup (median) |", "|---|---|---|---|---|---|---|---|---|---|"]
        groups = [(t, g) for t, g in j.groupby(level="table")] + [("all", j)]
        for t, g in groups:
            lines.append(
                f"| {t} | {len(g)} | {g.ac_ref.mean():.4f} | {g.ac.mean():.4f} | "
                f"{_ci(g.dac)} | {_ci(g.dnmi)} | {np.mean(g.agreement == 1):.2f} | "
                f"{g.agreement.min():.3f} | {g.dobj.abs().median():.1e} | "
                f"{g.speedup.median():.2f} |")
        lines += ["", "Speedup by method (median of per-fit ratios; seconds are fit + labels):",
                  "", "| table | method | fits | ref s (median) | s (median) | speedup |",
                  "|---|---|---|---|---|---|"]
        for (t, m), g in j.groupby(level=["table", "method"]):
            lines.append(f"| {t} | {m} | {len(g)} | {g.seconds_ref.median():.2f} | "
                         f"{g.seconds.median():.2f} | {g.speedup.median():.2f} |")
        lines.append("")
    return "\n".join(lines)


def _ci(x: pd.Series) -> str:
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
    return f"{x.mean():+.4f} [{x.mean() - half:+.4f}, {x.mean() + half:+.4f}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", default=SAMPLE)
    ap.add_argument("--variants", default="reference,fast")
    ap.add_argument("--csv", default=str(ROOT / "bench" / "FLOAT32.csv"))
    ap.add_argument("--md")
    ap.add_argument("--methods", help="comma-separated: only these methods of each table")
    args = ap.parse_args()
    only = set(args.methods.split(",")) if args.methods else None
    reason = deviation()
    if reason:
        warnings.warn(f"{reason}: the reference may not reproduce the committed digits",
                      stacklevel=1)
    variants = args.variants.split(",")
    if variants[0] != "reference":
        raise SystemExit("--variants: the first variant must be reference")
    csv = Path(args.csv)
    df = pd.read_csv(csv) if csv.exists() else pd.DataFrame()
    for table, k, r in pairs(args.sample):
        if len(df) and ((df.table == table) & (df.k == k) & (df.run == r)).any():
            continue
        config = load_config(ROOT / "configs" / f"{table}.yaml")
        new = pd.DataFrame(run_pair(config, k, r, variants, only))
        df = pd.concat([df, new], ignore_index=True)
        df.to_csv(csv, index=False, float_format="%.10g")
        print(f"{table} k={k} run={r}: {len(new)} fits", flush=True)
    text = summary(df, variants)
    print(text)
    if args.md:
        Path(args.md).write_text(text + "\n")


if __name__ == "__main__":
    main()
