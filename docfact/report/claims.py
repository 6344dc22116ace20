"""The papers' headline claims ("our method leads"), held against our tables.

A claim (config `published.claims`) names a method and the methods it leads; it holds on a
table when the method's AC, averaged over k (the mean over runs at each k, then over the k, as
every average of the report), exceeds that of every method it names. NMI is reported beside it.
"""

import pandas as pd

from docfact.experiment.aggregate import METRICS


def judge(config, summary: pd.DataFrame) -> list:
    """One row per claim of `config`, on its table's `summary` (aggregate.summarize: the
    averages over k are its k = "avg" rows): the method's averages, the strongest of the
    methods it leads in each metric, the margins, and whether the claim holds (AC)."""
    avg = summary[summary["k"] == "avg"].pivot(index="method", columns="metric", values="mean")
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
