"""LCCF's graph weights (Eq. 8, cosine on the 5-nearest-neighbour graph) against GNMF's binary
ones (Eq. 6) on the runs of the LCCF lambda sweep (lccf_tdt2_reference and lccf_reuters_reference,
k = 2..10, runs 0-2: the same documents as `docfact sweep`). At equal lambda the graph term
lambda Tr(V^T L V) scales with the edge weights, so their mean is the factor between the two.

Per (table, k, run): documents, edges (nonzero off-diagonal entries of the symmetric W), the
mean cosine weight on those edges. Writes weights.csv beside this file in under a CPU-minute.
Run from the repository root:
    .venv/bin/python results/lccf_tdt2_reference/graph_weights/experiment.py
"""

from pathlib import Path

import pandas as pd
import scipy.sparse as sp

from docfact.config import load_config
from docfact.experiment.plan import Plan

HERE = Path(__file__).parent
TABLES = ("lccf_tdt2_reference", "lccf_reuters_reference")


def rows():
    for name in TABLES:
        config = load_config(f"configs/{name}.yaml")
        lccf = next(m for m in config.methods if m.name == "LCCF").params
        pairs = [(k, r) for k in config.k for r in range(3)]
        plan = Plan.of(config, pairs)
        corpus = plan.corpus()
        X0 = plan.base_matrix(corpus)
        for k, r in pairs:
            task = plan.task(X0, corpus.y, k, r)
            W = sp.csr_matrix(plan.artefacts(task, plan.prepare(task.X)).graph(lccf["p"], "cosine"))
            W.setdiag(0)
            W.eliminate_zeros()
            yield {"table": name, "k": k, "run": r, "documents": W.shape[0], "edges": W.nnz,
                   "mean_weight": round(float(W.data.mean()), 4)}


if __name__ == "__main__":
    frame = pd.DataFrame(rows())
    frame.to_csv(HERE / "weights.csv", index=False)
    print(frame.groupby("table")["mean_weight"].describe().round(3).to_string())
