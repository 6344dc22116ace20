"""The collapse of the reference tables' KM-NCW rows, measured (README, first paragraph).

On lccf_tdt2_reference's draws (runs 0-4 of the odd k 3, 5, 7, 9), recomputes the committed
KM-NCW and KM-NCW-poly rows with their seeds (`ac` equals the committed AC) and records the
share of the documents in the largest cluster; and, for the degree-2 kernel A = (X X^T)^2 of
the draw, the median and 90th percentile of its off-diagonal entries (its diagonal is 1).
Writes collapse.csv beside this file, in about a CPU-minute.
Run from the repository root: .venv/bin/python results/kmncw_readings/collapse.py
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

from pathlib import Path

import numpy as np
import pandas as pd

from docfact import metrics
from docfact.config import load_config
from docfact.experiment.plan import Plan

HERE = Path(__file__).parent
PAIRS = [(k, r) for k in (3, 5, 7, 9) for r in range(5)]


def rows():
    plan = Plan.of(load_config("configs/lccf_tdt2_reference.yaml"), PAIRS)
    committed = pd.read_csv("results/lccf_tdt2_reference/runs.csv").set_index(
        ["k", "run", "method"]).ac
    corpus = plan.corpus()
    X0 = plan.base_matrix(corpus)
    methods = [m for m in plan.config.methods if m.name in ("KM-NCW", "KM-NCW-poly")]
    for k, r in plan.pairs:
        task = plan.task(X0, corpus.y, k, r)
        shared = plan.artefacts(task, plan.prepare(task.X))
        A = shared.kernel("polynomial", 2)
        off = A[~np.eye(len(A), dtype=bool)]
        for m in methods:
            labels = m.cluster(shared, k, plan.seed(task, m.name))["labels"]
            yield {"k": k, "run": r, "method": m.name, "n": len(labels),
                   "ac": metrics.accuracy(task.y, labels),
                   "ac_committed": committed[(k, r, m.name)],
                   "largest_cluster_share": np.bincount(labels).max() / len(labels),
                   "poly_offdiag_median": np.median(off),
                   "poly_offdiag_p90": np.quantile(off, 0.9)}


if __name__ == "__main__":
    pd.DataFrame(rows()).to_csv(HERE / "collapse.csv", index=False, float_format="%.6g")
