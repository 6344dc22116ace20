"""Score every reading of the LCF protocol on the recorded sub-runs (landscape.py): per reading,
mean |ours - published| / SE over all rows of the paper's Tables 2-3 (view x method x k x
AC/NMI, SE = published std / sqrt(our runs)), on the draws where it was recorded for every
method; and LCF's lead (average AC over those k) over the best other method.

usage: python score.py [--reading=SELECT,READOUT,STOP,INIT,NORM] OUT.md SUBRUNS.csv [...]
(writes OUT.md and OUT.csv; only the readings recorded on every complete draw are scored)
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

CONFIGS = {"lcf_yale": "configs/lcf_yale.yaml", "lcf_orl": "configs/lcf_orl.yaml"}
READINGS = list(itertools.product(("AC", "objective"), ("kmeans", "argmax"), ("tol", "fixed1000"),
                                  ("random", "cf"), ("False", "True")))


def published(view):
    pub = yaml.safe_load(Path(CONFIGS[view]).read_text())["published"]
    rows = []
    for metric in ("ac", "nmi"):
        for method, cells in pub[metric].items():
            for k, cell in cells.items():
                if k != "avg":
                    mean, sd = (float(x) / 100 for x in cell.split("±"))
                    rows.append((view, method, int(k), metric, mean, sd))
    return pd.DataFrame(rows, columns=["view", "method", "k", "metric", "pub", "sd"])


def pick(d, select, readout, stop, init, norm):
    """Each (view, k, run, method): the chosen sub-run's AC and NMI under the reading."""
    keep = ((d.method.isin(["Kmeans", "NMF", "SparseNMF"]) & d.stop.isin(["tol", "-"]))
            | ((d.method == "CF") & (d.stop == stop))
            | ((d.method == "LCF") & (d.stop == stop) & (d.init == init)
               & (d.loop_normalize == norm)))
    d = d[keep]
    ac, nmi = f"ac_{readout}", f"nmi_{readout}"
    key = "objective" if select == "objective" else ac
    d = d.sort_values(["view", "k", "run", "method", "sub"])
    g = d.groupby(["view", "k", "run", "method"], sort=False)
    idx = g[key].idxmin() if select == "objective" else g[key].idxmax()
    out = d.loc[idx, ["view", "k", "run", "method", ac, nmi]]
    return out.rename(columns={ac: "ac", nmi: "nmi"})


def score(p, pub):
    """Mean |ours - published| / SE over the rows of p (view, k, run, method, ac, nmi)."""
    means = p.groupby(["view", "method", "k"])[["ac", "nmi"]].mean()
    runs = p.groupby(["view", "method", "k"]).size()
    m = means.stack().rename("ours").reset_index().rename(columns={"level_3": "metric"})
    m["runs"] = runs.reindex(pd.MultiIndex.from_frame(m[["view", "method", "k"]])).values
    m = m.merge(pub, on=["view", "method", "k", "metric"])
    z = (m.ours - m.pub).abs() / (m.sd / np.sqrt(m.runs))
    row = {"score": z.mean()}
    for view in sorted(p.view.unique()):
        ac = means.loc[view, "ac"].groupby("method").mean()
        row[f"{view}_LCF_ac"] = ac["LCF"]
        row[f"{view}_lead"] = ac["LCF"] - ac.drop("LCF").max()
    return row


def committed(draws):
    """The reference tables' rows (the tables' reading when this audit was made, full
    protocol; results/<view>_reference) on the same draws."""
    rows = []
    for view in draws.view.unique():
        runs = pd.read_csv(f"results/{view}_reference/runs.csv").assign(view=view)
        keep = draws[draws.view == view][["k", "run"]]
        rows.append(runs.merge(keep, on=["k", "run"])[["view", "k", "run", "method", "ac", "nmi"]])
    return pd.concat(rows)


def main(out_md, paths, readings=READINGS):
    d = pd.concat([pd.read_csv(p, dtype={"loop_normalize": str, "init": str}) for p in paths],
                  ignore_index=True)
    # NMF and SparseNMF run under their own stopping rule only (first draws also tried 1000)
    d = d[~(d.method.isin(["NMF", "SparseNMF"]) & (d.stop == "fixed1000"))]
    pub = pd.concat([published(v) for v in d.view.unique()])
    names = ["select", "readout", "stop", "lcf_init", "lcf_loop_normalize"]
    picks = {}
    for reading in readings:
        p = pick(d, *reading)
        n = p.groupby(["view", "k", "run"]).method.nunique()
        full = set(n[n == 5].index)  # the draws on which the reading was recorded for all methods
        if full:
            picks[reading] = p, full
    used = set.intersection(*(full for _, full in picks.values()))  # compared on the same draws
    rows = []
    for reading, (p, _) in picks.items():
        p = p.set_index(["view", "k", "run"]).loc[sorted(used)].reset_index()
        rows.append({**dict(zip(names, reading, strict=True)), "draws": len(used),
                     **score(p, pub)})
    draws = pd.DataFrame(sorted(used), columns=["view", "k", "run"])
    rows.append({"select": "reference table", "draws": len(draws),
                 **score(committed(draws), pub)})
    table = pd.DataFrame(rows).sort_values("score").round(4)
    table.to_csv(Path(out_md).with_suffix(".csv"), index=False)
    listed = ", ".join(f"{v} k={k} run {r}" for v, k, r in sorted(used))
    Path(out_md).write_text(
        "# LCF readings scored (generated by score.py)\n\nDraws: "
        f"{listed}.\n\nscore: mean |ours - published| / SE over every row of Tables 2-3 at "
        "these draws' k (AC and NMI, all five methods); lead: LCF's AC minus the best other "
        "method's, averaged over these k; every reading scored on the same draws (those on "
        "which all the readings recorded there are complete). `reference table`: the rows of "
        "results/lcf_yale_reference and lcf_orl_reference (the tables' reading when this audit "
        "was made, full protocol) on the same draws.\n\n"
        + table.to_markdown(index=False) + "\n")


if __name__ == "__main__":
    if sys.argv[1].startswith("--reading="):  # score one reading (the held-out k)
        only = tuple(sys.argv[1].split("=", 1)[1].split(","))
        main(sys.argv[2], sys.argv[3:], [only])
    else:
        main(sys.argv[1], sys.argv[2:])
