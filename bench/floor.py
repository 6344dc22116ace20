"""How far the TDT2 RCF tables can still fall: the share of their fits spent in scipy's sparse
loops, the cost of those loops per nonzero and column, and what that leaves for `make reproduce`.

For sampled (table, k, run): each method of the table computed as `docfact run` computes its
row (the run's documents, graphs, labels and seeds), profiled with CPU time; the seconds inside
scipy's sparse x dense loops (csr_matvecs, csc_matvecs: the products X^T Y and X Z of K Y =
X (X^T Y), and k-means' X C^T) over the row's seconds. A table's loop time is the committed
CPU-hours of each method times that method's median share (at the configs' widths and
precisions); the rest of its time is everything else. Then each
loop timed alone on the sample's largest draw at 10 to 300 columns (the 10 restarts of k = 30
take 300): nanoseconds per nonzero and column, in float32 about a quarter lower at the widest
batch than at 30 columns, which bounds what batching more products together could gain.

    python bench/floor.py [--sample SPEC] [--out bench/FLOOR.md]

SPEC: TABLE:K1/K2:R1/R2, comma-separated (default: SAMPLE below).
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
import cProfile
import pstats
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from docfact.experiment.plan import Plan
from docfact.experiment.results import read_setup

from bench import emit  # bench/bench.py, beside this script
from float32 import pairs  # bench/float32.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = "rcf_tdt2_t2:15/30:0,rcf_tdt2_t20:15/30:0"
TABLES = ("rcf_tdt2_t2", "rcf_tdt2_t2_largest", "rcf_tdt2_t2_reference", "rcf_tdt2_t20",
          "rcf_tdt2_t20_reference", "rcf_tdt2_t20_largest")
LOOPS = ("csr_matvecs", "csc_matvecs")
TARGET_HOURS = 16.0


def profile_rows(table: str, k: int, r: int) -> tuple:
    """([{table, k, run, method, n_docs, nnz, seconds, sparse}], the run's X): each method's
    row, its CPU seconds and those inside scipy's sparse x dense loops."""
    config, _ = read_setup(ROOT / "results" / table)
    plan = Plan.of(config, [(k, r)])
    corpus = plan.corpus()
    task = plan.task(plan.base_matrix(corpus), corpus.y, k, r)
    X = plan.prepare(task.X)
    shared = plan.artefacts(task, X)
    rows = []
    with threadpool_limits(1):
        for m in plan.config.methods:
            prof = cProfile.Profile(timer=time.process_time)
            t0 = time.process_time()
            prof.runcall(m.cluster, shared, k, plan.seed(task, m.name))
            seconds = time.process_time() - t0
            stats = pstats.Stats(prof).stats  # {(file, line, name): (cc, nc, tt, ct, callers)}
            loops = sum(v[2] for key, v in stats.items() if any(f".{n}>" in key[2] for n in LOOPS))
            rows.append({"table": table, "k": k, "run": r, "method": m.name,
                         "n_docs": X.shape[0], "nnz": X.nnz, "seconds": seconds,
                         "in_loops": loops})
    return rows, X


def loop_costs(X, columns=(10, 30, 100, 300)) -> pd.DataFrame:
    """Nanoseconds per nonzero and column of X^T Y and X Z, each by both of scipy's loops (by
    the rows of the product, csr_matvecs; by the rows of its transpose, csc_matvecs), in
    float32 and float64: median of 7."""
    rng = np.random.default_rng(0)
    out = []
    with threadpool_limits(1):
        for dtype in (np.float32, np.float64):
            A = sp.csr_matrix(X, dtype=dtype)
            At = sp.csr_matrix(A.T)
            for c in columns:
                Y = rng.random((A.shape[0], c)).astype(dtype)
                Z = rng.random((A.shape[1], c)).astype(dtype)
                for name, a, b in (("X^T Y, csr_matvecs", At, Y), ("X^T Y, csc_matvecs", A.T, Y),
                                   ("X Z, csr_matvecs", A, Z), ("X Z, csc_matvecs", At.T, Z)):
                    def f(a=a, b=b):
                        return a @ b

                    f()
                    times = []
                    for _ in range(7):
                        t = time.perf_counter()
                        f()
                        times.append(time.perf_counter() - t)
                    out.append({"product": name, "dtype": np.dtype(dtype).name, "columns": c,
                                "ns": 1e9 * np.median(times) / (A.nnz * c)})
    return pd.DataFrame(out)


def hours(table: str) -> pd.Series:
    """Committed CPU-hours of a table by method."""
    t = pd.read_csv(ROOT / "results" / table / "timings.csv")
    return t.groupby("method").seconds.sum() / 3600


def report(rows: pd.DataFrame, costs: pd.DataFrame, X) -> str:
    rows = rows.assign(share=rows.in_loops / rows.seconds)
    share = rows.groupby("method").share.median()
    drawn = sorted({f"{t} k={k} run {r}" for t, k, r in zip(rows.table, rows.k, rows.run,
                                                              strict=True)})
    lines = [f"Sampled rows (one fit per method, CPU seconds): {', '.join(drawn)}.", "",
             "| table | k | N | nnz | method | s | in sparse loops | share |",
             "|---|---|---|---|---|---|---|---|"]
    for _, x in rows.iterrows():
        lines.append(f"| {x.table} | {x.k} | {x.n_docs} | {x.nnz} | {x.method} | "
                     f"{x.seconds:.2f} | {x.in_loops:.2f} | {x.share:.2f} |")
    lines += ["", "Each table's committed CPU-hours by method times the method's median share "
              "above: the time in the loops, the rest everything else.", "",
              "| table | committed CPU-h | in the loops | the rest |", "|---|---|---|---|"]
    total = loops = 0.0
    for table in TABLES:
        h = hours(table)
        f = sum(h[m] * share.get(m, 1.0) for m in h.index)
        total, loops = total + h.sum(), loops + f
        lines.append(f"| {table} | {h.sum():.2f} | {f:.2f} | {h.sum() - f:.2f} |")
    lines.append(f"| **the six** | **{total:.2f}** | **{loops:.2f}** | **{total - loops:.2f}** |")
    pivot = costs.pivot_table(index=["product", "dtype"], columns="columns", values="ns")
    lines += ["", f"scipy's loops on the largest sampled draw (N = {X.shape[0]}, "
              f"{X.shape[1]} terms, nnz = {X.nnz}): nanoseconds per nonzero and column, "
              "median of 7, one thread.", "",
              "| product, loop | dtype | " + " | ".join(f"{c} columns" for c in pivot.columns)
              + " |", "|---|---|" + "---|" * len(pivot.columns)]
    for (p, d), v in pivot.iterrows():
        lines.append(f"| {p} | {d} | " + " | ".join(f"{x:.3f}" for x in v) + " |")
    f32 = costs[costs.dtype == "float32"].groupby(["product", "columns"]).ns.min()
    f32.index = pd.MultiIndex.from_tuples([(p.split(",")[0], c) for p, c in f32.index])
    best = f32.groupby(level=[0, 1]).min().groupby(level=0)
    ratio = float(np.mean([g.min() / g.xs(30, level=1).iloc[0] for _, g in best]))
    bound = loops * ratio + (total - loops)
    lines += ["", f"The better loop at its best width (100 or 300 columns) costs {ratio:.2f} "
              "of its 30-column cost in float32 (the mean of the two products). Were every "
              "product of the six tables batched that wide (the starts and methods of a run in "
              "one product, which docfact does not do) and everything else as now, they would "
              f"cost about {loops:.2f} x {ratio:.2f} + {total - loops:.2f} = {bound:.1f} "
              f"CPU-hours; `make reproduce` ({TARGET_HOURS:.0f} CPU-hours asked) would then "
              f"need the rest of what it computes to cost at most {TARGET_HOURS - bound:.1f}."]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", default=SAMPLE)
    ap.add_argument("--out")
    args = ap.parse_args()
    rows, largest = [], None
    for table, k, r in pairs(args.sample):
        got, X = profile_rows(table, k, r)
        rows += got
        largest = X if largest is None or X.nnz > largest.nnz else largest
    emit(report(pd.DataFrame(rows), loop_costs(largest), largest), args.out, None, "")


if __name__ == "__main__":
    main()
