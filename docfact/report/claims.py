"""The papers' headline claims ("our method leads"), held against our tables.

A claim (config `published.claims`) names a method and the methods it leads; it holds on a
table when the method's AC, averaged over k (the mean over runs at each k, then over the k, as
every average of the report), exceeds that of every method it names. NMI is reported beside it.

Every method of a table runs on the same draws, so a margin's uncertainty is that of the paired
differences: at each k the runs where both methods succeeded give d = ours - rival, and the
margin's standard error is that of the average over k of the per-k means of d (the margin
itself compares each method's own averages, as the claim is stated; the two differ only where
one method failed on a draw the other clustered). Unknown (NaN) when some k has fewer than two
such runs.
"""

import numpy as np
import pandas as pd

from docfact.experiment.aggregate import METRICS, Z95, average_se


def judge(config, summary: pd.DataFrame, runs: pd.DataFrame) -> list:
    """One row per claim of `config`, on its table's `summary` (aggregate.summarize of `runs`:
    the averages over k are its k = "avg" rows): the method's averages, the strongest of the
    methods it leads in each metric, the margins with the half-width of their 95% interval
    (`<metric>_margin_hw`, paired over the draws), and whether the claim holds (AC)."""
    avg = summary[summary["k"] == "avg"].pivot(index="method", columns="metric", values="mean")
    out = []
    for claim in config.published.get("claims", []) if config.published else []:
        method, over = claim["method"], list(claim["over"])
        row = {"table": config.name, "method": method, "over": over, "source": claim["source"]}
        for metric in METRICS:
            rival = avg.loc[over, metric].idxmax()
            row[metric] = float(avg.loc[method, metric])
            row[f"{metric}_rival"] = rival
            row[f"{metric}_margin"], row[f"{metric}_margin_hw"] = margin(avg, runs, method,
                                                                         rival, metric)
        row["holds"] = row["ac_margin"] > 0
        out.append(row)
    return out


def margin(avg: pd.DataFrame, runs: pd.DataFrame, method: str, rival: str,
           metric: str) -> tuple:
    """(method's average over k minus rival's, the half-width of its 95% interval paired over
    the draws), `avg` the averages (method x metric) of the table's `runs`."""
    return (float(avg.loc[method, metric] - avg.loc[rival, metric]),
            Z95 * paired_se(runs, method, rival, metric))


def paired_se(runs: pd.DataFrame, method: str, rival: str, metric: str) -> float:
    """Standard error of the average over k of mean(ours - rival) on the runs (k, run) where
    both methods succeeded: sqrt(sum_k s_k^2 / n_k) / |k| (aggregate.average_se)."""
    ok = runs[runs["status"] == "ok"].pivot_table(index=["k", "run"], columns="method",
                                                  values=metric, aggfunc="first")
    ok = ok.reindex(columns=[method, rival])  # a method without a successful run: all NaN
    d = (ok[method] - ok[rival]).dropna()
    per_k = d.groupby(level="k").agg(["std", "count"]).reindex(sorted(runs["k"].unique()))
    if per_k.empty or not (per_k["count"] >= 2).all():
        return np.nan
    return average_se(per_k["std"], per_k["count"])


def claim_words(row: dict, methods: list) -> str:
    """'LCCF-NCW leads all' or 'AA-PSPt leads AA, NMF, AA-HHt'."""
    others = [m for m in methods if m != row["method"]]
    return f"{row['method']} leads " + ("all" if row["over"] == others
                                         else ", ".join(row["over"]))
