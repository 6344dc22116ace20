"""The papers' headline claims ("our method leads"), held against our tables.

A claim (config `published.claims`) names a method and the methods it leads; it holds on a
table when the method's AC, averaged over k (the mean over runs at each k, then over the k),
exceeds that of every method it names. NMI is reported beside it.
"""

import pandas as pd

METRICS = ("ac", "nmi")


def averages(runs: pd.DataFrame) -> pd.DataFrame:
    """(method x metric) averages over k of the per-k means of the successful runs."""
    ok = runs[runs["status"] == "ok"]
    return ok.groupby(["method", "k"])[list(METRICS)].mean().groupby("method").mean()


def judge(config, runs: pd.DataFrame) -> list:
    """One row per claim of `config` on its `runs`: the method's averages, the strongest of the
    methods it leads in each metric, the margins, and whether the claim holds (AC)."""
    avg = averages(runs)
    out = []
    for claim in config.published.get("claims", []) if config.published else []:
        method, over = claim["method"], list(claim["over"])
        row = {"table": config.name, "method": method, "over": over, "source": claim["source"]}
        for metric in METRICS:
            rival = avg.loc[over, metric].idxmax()
            row[metric] = float(avg.loc[method, metric])
            row[f"{metric}_rival"] = rival
            row[f"{metric}_margin"] = row[metric] - float(avg.loc[rival, metric])
        row["holds"] = row["ac_margin"] > 0
        out.append(row)
    return out


def claim_words(row: dict, methods: list) -> str:
    """'LCCF-NCW leads all' or 'AA-PSPt leads AA, NMF, AA-HHt'."""
    others = [m for m in methods if m != row["method"]]
    return f"{row['method']} leads " + ("all" if row["over"] == others
                                         else ", ".join(row["over"]))
