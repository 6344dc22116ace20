"""The two terms of PSPt's Eq. 4 at the paper's eta = 0.8, under each scale of the readings
(literal: alpha = eta / N^2, beta = (1 - eta) / K^2; sums: alpha = eta, beta = 1 - eta;
relative: alpha = eta / ||W||^2, beta = (1 - eta) / K), W's diagonal kept, on the reference
reading's draws of pspt_tdt2 (tf-idf on the k sampled classes; k = 5, runs 0-4: the same
documents as `docfact run`). One random start (seed 0) per run, Eq. 6 and Eq. 8 for 100
iterations, as one trial of the tables.

Per (scale, run): N; the fit term alpha ||W - P S P^T||^2 and the orthogonality term
beta ||P^T P - I||^2 at the start and after 100 iterations; max |P^T P - I| at the end; the
largest group of P's row argmax as a share of N; AC of that argmax. Writes terms.csv beside
this file in about a CPU-minute.
Run from the repository root: .venv/bin/python results/pspt_readings/terms/experiment.py
"""

from pathlib import Path

import numpy as np
import pandas as pd

from docfact.algorithms.kernels import affinity
from docfact.algorithms.symmetric import PSPtRule
from docfact.config import load_config
from docfact.experiment.plan import Plan
from docfact.metrics import accuracy

HERE = Path(__file__).parent
K, RUNS, ETA, ITERATIONS = 5, range(5), 0.8, 100


def rows():
    config = load_config("configs/pspt_tdt2_reference.yaml")
    pairs = [(K, r) for r in RUNS]
    plan = Plan.of(config, pairs)
    corpus = plan.corpus()
    X0 = plan.base_matrix(corpus)
    for k, r in pairs:
        task = plan.task(X0, corpus.y, k, r)
        W, _ = affinity(plan.prepare(task.X))
        for scale in ("literal", "sums", "relative"):
            rule = PSPtRule(W, k, ETA, scale)
            P, s = rule.init(np.random.default_rng(0))
            fit0, orth0 = rule.terms((P, s))
            for _ in range(ITERATIONS):
                rule.update((P, s))
            fit, orth = rule.terms((P, s))
            labels = P.argmax(axis=1)
            yield {"scale": scale, "k": k, "run": r, "N": W.n,
                   "fit_start": fit0, "orthogonality_start": orth0,
                   "fit_end": fit, "orthogonality_end": orth,
                   "max_abs_PtP_minus_I": float(np.abs(P.T @ P - np.eye(k)).max()),
                   "largest_group": np.bincount(labels, minlength=k).max() / len(labels),
                   "ac": accuracy(task.y, labels)}


if __name__ == "__main__":
    frame = pd.DataFrame(rows())
    frame.to_csv(HERE / "terms.csv", index=False, float_format="%.4g")
    print(frame.groupby("scale").median(numeric_only=True).round(4).to_string())
