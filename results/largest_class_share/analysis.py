"""AC by the share of a draw's largest class, on the committed primary tables.

For each run of a primary table that draws its classes from a corpus, the share of the drawn
documents that its largest class holds (the AC of putting every document in one cluster), from
the view's labels and the classes recorded in runs.csv (nothing is refitted). The runs are
binned by that share (at most 1/2, 1/2 to 4/5, above 4/5) and each method's AC averaged per
bin; `with_two_largest` counts the bin's runs that draw one of the view's two largest classes
(Reuters' earn and acq). Writes by_share.csv beside this file, and by_k.csv: per table and
k, the mean share over the runs (the AC of one cluster), in about a minute.
Run from the repository root: .venv/bin/python results/largest_class_share/analysis.py
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

from pathlib import Path

import numpy as np
import pandas as pd

from docfact.experiment.plan import Plan, load

HERE = Path(__file__).parent
TABLES = ("gnmf_tdt2", "gnmf_reuters", "lccf_tdt2", "lccf_reuters", "pspt_tdt2", "pspt_reuters",
          "rcf_tdt2_t2", "rcf_tdt2_t20", "rcf_reuters_t2", "rcf_reuters_t20")
BINS, NAMES = [0, 0.5, 0.8, 1.0], ["<= 1/2", "1/2 to 4/5", "> 4/5"]


def shares(name: str) -> pd.DataFrame:
    """Each run's (k, run, top, two_largest): the share of its documents in its largest class,
    and whether it draws one of the view's two largest classes."""
    config = load(f"configs/{name}.yaml")
    labels, counts = np.unique(Plan.of(config).corpus().y, return_counts=True)
    size = dict(zip(labels.tolist(), counts.tolist(), strict=True))
    two_largest = set(labels[np.argsort(counts)[-2:]].tolist())
    drawn = pd.read_csv(f"results/{name}/runs.csv").groupby(["k", "run"]).classes.first().map(
        lambda classes: [int(c) for c in str(classes).split()])
    sizes = drawn.map(lambda classes: [size[c] for c in classes])
    return pd.DataFrame({"top": sizes.map(lambda n: max(n) / sum(n)),
                         "two_largest": drawn.map(lambda c: bool(two_largest & set(c)))}
                        ).reset_index()


def rows(drawn: dict):
    """By table, method and share bin; `drawn` maps each table to its shares()."""
    for name in TABLES:
        config = load(f"configs/{name}.yaml")
        runs = pd.read_csv(f"results/{name}/runs.csv").merge(drawn[name], on=["k", "run"])
        runs["share"] = pd.cut(runs.top, BINS, labels=NAMES)
        for (method, share), g in runs.groupby(["method", "share"], observed=True, sort=False):
            published, _ = config.published_average("ac", method, config.k)
            published = None if published is None else published / config.scale
            yield {"table": name, "method": method, "share": share, "runs": len(g),
                   "with_two_largest": int(g.two_largest.sum()), "top": g.top.mean(),
                   "ac": g.ac.mean(), "ac_all": runs[runs.method == method].ac.mean(),
                   "published_ac": published}


def by_k(drawn: dict) -> pd.DataFrame:
    """Per table and k: the runs and their mean share of the largest class (one cluster's AC)."""
    return pd.concat([drawn[name].groupby("k").top.agg(["size", "mean"]).rename(
        columns={"size": "runs", "mean": "one_cluster_ac"}).reset_index().assign(table=name)
        for name in TABLES])[["table", "k", "runs", "one_cluster_ac"]]


if __name__ == "__main__":
    drawn = {name: shares(name) for name in TABLES}  # each view's corpus read once
    pd.DataFrame(rows(drawn)).to_csv(HERE / "by_share.csv", index=False, float_format="%.4f")
    by_k(drawn).to_csv(HERE / "by_k.csv", index=False, float_format="%.4f")
