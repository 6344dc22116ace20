"""CF on face images: the plateau that the running-mean stopping rule takes for convergence.

On the LCF tables' own draws (`lcf_orl_reference` k = 10, runs 0-4, and `lcf_yale_reference` k =
6, runs 0-7; the same images as `docfact run`), describes the data (mean cosine between two
images of the draw; the two largest eigenvalues of K = X X^T) and follows CF (the tables' CF
row, no in-loop normalisation) from the start of the run's first sub-run: the iterations at
which the running-mean rule (tol 1e-5) stops it, the median relative decrease of the objective
per iteration over the ten iterations before that stop, and AC (k-means on V, 20 replicates, the
tables' read-out) when stopped there and after a fixed 100, 1000 (and, on ORL, 3000) iterations
from the same start. Writes plateau.csv beside this file, in about six CPU-minutes.
Run from the repository root: .venv/bin/python results/lcf_plateau/experiment.py
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

from pathlib import Path

import numpy as np
import pandas as pd

from docfact import algorithms as alg
from docfact import metrics
from docfact.config import load_config
from docfact.experiment.methods import split_seed
from docfact.experiment.plan import Plan

HERE = Path(__file__).parent
CASES = [("lcf_orl_reference", 10, range(5), (100, 1000, 3000)),
         ("lcf_yale_reference", 6, range(8), (100, 1000))]


def ac(V, k, y, label_seed):
    """AC of the tables' read-out: k-means on the rows of V, 20 replicates."""
    labels = alg.KMeans(k, n_replicates=20, random_state=label_seed).fit(V).labels_
    return metrics.accuracy(y, labels)


def rows():
    for name, k, runs, iterations in CASES:
        plan = Plan.of(load_config(f"configs/{name}.yaml"), [(k, r) for r in runs])
        cf = next(m for m in plan.config.methods if m.name == "CF")
        corpus = plan.corpus()
        X0 = plan.base_matrix(corpus)
        for _, r in plan.pairs:
            task = plan.task(X0, corpus.y, k, r)
            shared = plan.artefacts(task, plan.prepare(task.X))
            X = np.asarray(shared.X)
            K = X @ X.T
            n = len(K)
            eig = np.linalg.eigvalsh(K)[::-1]
            sub_run = plan.seed(task, cf.name).spawn(plan.config.best_of)[0]
            fit_seed, label_seed = split_seed(sub_run)

            est, V = cf.fit(shared, k, fit_seed, max_iter=None)
            obj = np.asarray(est.objective_)
            decrease = -np.diff(obj) / obj[:-1]
            row = {"config": plan.config.name, "k": k, "run": r, "n": n,
                   "mean_cosine": (K.sum() - np.trace(K)) / (n * (n - 1)),
                   "eig_1": eig[0], "eig_2": eig[1],
                   "stop_iter": est.n_iter_, "rel_decrease_before_stop": np.median(decrease[-10:]),
                   "ac_at_stop": ac(V, k, task.y, label_seed)}
            for t in iterations:
                _, V = cf.fit(shared, k, fit_seed, max_iter=t)
                row[f"ac_{t}"] = ac(V, k, task.y, label_seed)
            print(row, flush=True)
            yield row


if __name__ == "__main__":
    pd.DataFrame(rows()).to_csv(HERE / "plateau.csv", index=False, float_format="%.6g")
