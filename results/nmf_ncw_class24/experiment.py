"""NMF-NCW (gnmf_tdt2_reference's "NMF" row) on the k = 2 draws that contain TDT2 class 24.

For each committed k = 2 run with class 24 (and, as controls, the first 10 runs without it):
recompute the committed fit (same seeds), then read its V three ways: k-means on the raw rows
(the committed read-out), k-means on unit rows, argmax; describe the documents: per class, the
size, the NC degree d = X X^T 1 and the norm of V's rows; the least connected document (smallest
d): its words, its largest cosine to another document, the normalized cut of it alone against
the rest and of the true classes; and refit the same method without that document. The
corpus-weighted table's AC of the same draw is copied beside. Writes class24.csv beside this
file. Run from the repository root: .venv/bin/python results/nmf_ncw_class24/experiment.py
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

from pathlib import Path

import numpy as np
import pandas as pd

from docfact import metrics
from docfact.algorithms import KMeans
from docfact.config import load_config
from docfact.experiment.methods import Artefacts, split_seed
from docfact.experiment.plan import Plan

HERE = Path(__file__).parent
plan = Plan.of(load_config("configs/gnmf_tdt2_reference.yaml"))
method = next(m for m in plan.config.methods if m.name == "NMF")
committed = pd.read_csv("results/gnmf_tdt2_reference/runs.csv")
committed = committed[(committed.k == 2) & (committed.method == "NMF")].set_index("run")
corpus_w = pd.read_csv("results/gnmf_tdt2_corpus/runs.csv")
corpus_w = corpus_w[(corpus_w.k == 2) & (corpus_w.method == "NMF")].set_index("run")
corpus = plan.corpus()
X0 = plan.base_matrix(corpus)
with_24 = [r for r in committed.index if "24" in committed.loc[r, "classes"].split()]
controls = [r for r in committed.index if r not in with_24][:10]


def ncut(A, labels):
    """sum_c cut(c, rest) / vol(c) of the affinity A (self-loops kept, as NCW weights them)."""
    d = A.sum(axis=1)
    return sum(A[np.ix_(labels == c, labels != c)].sum() / d[labels == c].sum()
               for c in np.unique(labels))


rows = []
for r in with_24 + controls:
    task = plan.task(X0, corpus.y, 2, r)
    X, y, picked = plan.prepare(task.X), task.y, task.classes
    shared = plan.artefacts(task, X)
    seed = plan.seed(task, method.name)
    out = method.cluster(shared, 2, seed)  # the committed read-out: k-means on raw rows of V
    fit_seed, label_seed = split_seed(seed)
    _, V = method.fit(shared, 2, fit_seed)
    unit = V / np.linalg.norm(V, axis=1, keepdims=True)
    d = np.asarray(X @ (X.T @ np.ones(X.shape[0]))).ravel()
    row = {"run": r, "classes": " ".join(map(str, picked)), "has_24": r in with_24,
           "ac_committed": committed.loc[r, "ac"],
           "ac_raw_rows": metrics.accuracy(y, out["labels"]),
           "ac_unit_rows": metrics.accuracy(y, KMeans(2, n_replicates=20, random_state=label_seed)
                                            .fit(unit).labels_),
           "ac_argmax": metrics.accuracy(y, V.argmax(axis=1))}
    for i, c in enumerate(picked):
        sel = y == c
        row.update({f"class_{i}": c, f"n_{i}": int(sel.sum()),
                    f"d_median_{i}": float(np.median(d[sel])),
                    f"d_max_over_min_{i}": float(d[sel].max() / d[sel].min()),
                    f"v_norm_median_{i}": float(np.median(np.linalg.norm(V[sel], axis=1)))})
    A = (X @ X.T).toarray()
    o = int(np.argmin(d))
    alone = (np.arange(len(y)) == o).astype(int)
    keep = np.arange(len(y)) != o
    X_out, y_out = X[keep], y[keep]
    _, V_out = method.fit(Artefacts(X_out), 2, fit_seed)
    labels_out = KMeans(2, n_replicates=20, random_state=label_seed).fit(V_out).labels_
    row.update({"ac_corpus_weighted": corpus_w.loc[r, "ac"], "least_class": int(y[o]),
                "least_d": float(d[o]), "least_words": int(X0[np.flatnonzero(
                    np.isin(corpus.y, picked))[o]].sum()), "least_terms": int(X[o].nnz),
                "least_max_cos": float(np.max(np.delete(A[o], o))),
                "ncut_classes": ncut(A, y), "ncut_least_alone": ncut(A, alone),
                "ac_without_least": metrics.accuracy(y_out, labels_out)})
    rows.append(row)
    print(row)
pd.DataFrame(rows).to_csv(HERE / "class24.csv", index=False, float_format="%.4f")
