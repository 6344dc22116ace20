"""RCF's constrained graph W~ (Eq. 11) against the p-NN graph W it starts from, on the tables'
own draws (runs 0-4 of k = 5; the same classes, documents and labelled documents as
`docfact run`): how large the propagated constraints F* are and how W~ redistributes the
weight between pairs of one class and pairs of different classes. No factorization is fitted.

Per (config, links, run): n documents, n labelled; mean |F*| over all n^2 pairs; W's and W~'s
share of their off-diagonal weight on same-class pairs; W~'s off-diagonal weight over W's
(total, and on different-class pairs). links: both (the method), must or cannot only (RCF
Fig. 3). Also SemiLCCF's graph (the labelled block set to 1 within a class, 0 across) on
Reuters' 13 classes at t = 5% and 25% (the Fig. 2 sweep's run 0): the labelled block's share
of the weight, the median degree of a labelled and of an unlabelled document, the must-links
of a labelled document of the largest class; at 25% the committed fit recomputed, its AC on
the labelled and on the unlabelled documents, and the cluster that holds most of the labelled
and of the unlabelled documents of the two largest classes.
And the largest |F| of the propagation iterated on S (E2CP) and on L = I - S (the paper's
text), at alpha = 0.3 and 0.5, on the 20 Newsgroups t = 20% draws.
Writes rcf_graph.csv, semilccf_graph.csv and propagation.csv beside this file, in about a
CPU-minute.
Run from the repository root: .venv/bin/python results/rcf_constraints/experiment.py
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from docfact import metrics
from docfact.algorithms.graphs import (
    constrained_weights,
    degrees,
    labelled_graph,
    pair_constraints,
    propagate_constraints,
)
from docfact.config import load_config
from docfact.experiment.plan import Plan

HERE = Path(__file__).parent
CASES = [("rcf_20newsgroups_t2_reference", "both"), ("rcf_20newsgroups_t20_reference", "both"),
         ("rcf_20newsgroups_t20_reference", "must"), ("rcf_20newsgroups_t20_reference", "cannot"),
         ("rcf_reuters_t2_reference", "both"), ("rcf_reuters_t20_reference", "both")]
K, RUNS = 5, range(5)


def tasks(config, pairs):
    plan = Plan.of(config, pairs)
    corpus = plan.corpus()
    X0 = plan.base_matrix(corpus)
    for k, r in pairs:
        task = plan.task(X0, corpus.y, k, r)
        yield plan, task, plan.artefacts(task, plan.prepare(task.X))


def rcf_rows():
    for name, links in CASES:
        for plan, task, shared in tasks(load_config(f"configs/{name}.yaml"),
                                        [(K, r) for r in RUNS]):
            rcf = next(m for m in plan.config.methods if m.name == "RCF").params
            W = sp.csr_matrix(shared.graph(rcf["p"], rcf["weight"]))
            W.setdiag(0)
            W.eliminate_zeros()
            F = propagate_constraints(W, shared.y_partial, rcf["alpha"], links)
            mean_abs_f = float(np.abs(F).mean())
            Wt = constrained_weights(W, F)
            np.fill_diagonal(Wt, 0.0)
            same = task.y[:, None] == task.y[None, :]
            Wd = W.toarray()
            yield {"config": plan.config.name, "links": links, "k": task.k, "run": task.run,
                   "n": len(task.y), "n_labelled": int((shared.y_partial >= 0).sum()),
                   "mean_abs_f": mean_abs_f,
                   "within_share_W": Wd[same].sum() / Wd.sum(),
                   "within_share_Wt": Wt[same].sum() / Wt.sum(),
                   "weight_Wt_over_W": Wt.sum() / Wd.sum(),
                   "cross_weight_Wt_over_W": Wt[~same].sum() / Wd[~same].sum()}
            print(plan.config.name, links, task.run, flush=True)


def semilccf_rows():
    """SemiLCCF's graph on the Fig. 2 sweep's run 0 (Reuters, all 13 classes); at t = 25% the
    committed fit recomputed (same seeds) and its AC split by labelled and unlabelled documents."""
    for t in ("0.05", "0.25"):
        config = load_config(
            f"results/rcf_reuters_t2_reference/constraints/labelled={t}/config.yaml")
        for plan, task, shared in tasks(config, [(13, 0)]):
            semi = next(m for m in plan.config.methods if m.name == "SemiLCCF")
            G = labelled_graph(shared.graph(semi.params["p"], semi.params["weight"]),
                               shared.y_partial)
            lab = shared.y_partial >= 0
            deg = np.asarray(G.sum(axis=1)).ravel()
            largest = np.bincount(task.y).argmax()
            row = {"labelled": float(t), "k": 13, "run": 0, "n": len(task.y),
                   "n_labelled": int(lab.sum()),
                   "labelled_block_share": G[lab][:, lab].sum() / G.sum(),
                   "median_degree_labelled": np.median(deg[lab]),
                   "median_degree_unlabelled": np.median(deg[~lab]),
                   "largest_class": int(largest),
                   "must_links_per_labelled_of_largest": int((lab & (task.y == largest)).sum()) - 1}
            if t == "0.25":
                labels = semi.cluster(shared, 13, plan.seed(task, semi.name))["labels"]
                row.update({"ac": metrics.accuracy(task.y, labels),
                            "ac_labelled": metrics.accuracy(task.y[lab], labels[lab]),
                            "ac_unlabelled": metrics.accuracy(task.y[~lab], labels[~lab])})
                for c in np.argsort(np.bincount(task.y))[::-1][:2]:
                    for part, sel in (("labelled", lab), ("unlabelled", ~lab)):
                        row[f"cluster_of_{part}_class_{c}"] = int(
                            np.bincount(labels[sel & (task.y == c)]).argmax())
            print(row, flush=True)
            yield row


def propagation_rows():
    """max |F| of E2CP's limit iterated on S (E2CP) and on L = I - S (the RCF paper's text)."""
    for plan, task, shared in tasks(load_config("configs/rcf_20newsgroups_t20_reference.yaml"),
                                    [(K, r) for r in RUNS]):
        rcf = next(m for m in plan.config.methods if m.name == "RCF").params
        W = shared.graph(rcf["p"], rcf["weight"])
        g = 1 / np.sqrt(degrees(W))
        S = (sp.diags(g) @ W @ sp.diags(g)).toarray()
        n = len(S)
        M, C = pair_constraints(shared.y_partial)
        Z = (M - C).toarray()
        for alpha in (0.3, 0.5):
            for name, A in (("S", S), ("L", np.eye(n) - S)):
                P = np.linalg.inv(np.eye(n) - alpha * A)
                F = (1 - alpha) ** 2 * P @ Z @ P
                yield {"config": plan.config.name, "k": task.k, "run": task.run,
                       "alpha": alpha, "on": name, "max_abs_f": np.abs(F).max()}


if __name__ == "__main__":
    pd.DataFrame(semilccf_rows()).to_csv(HERE / "semilccf_graph.csv", index=False,
                                         float_format="%.6g")
    pd.DataFrame(rcf_rows()).to_csv(HERE / "rcf_graph.csv", index=False, float_format="%.6g")
    pd.DataFrame(propagation_rows()).to_csv(HERE / "propagation.csv", index=False,
                                            float_format="%.6g")
