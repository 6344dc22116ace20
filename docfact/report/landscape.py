"""Readings landscapes: how close each reading of a paper's unstated settings comes to its table.

A reading is a results folder (a sweep value, or a committed table cut to the same draws). Its
score on the k values `ks` is the mean, over methods, metrics (AC, NMI) and k, of
|ours - published| / SE, SE = s / sqrt(n) of our runs at that k, floored at SE_FLOOR so that a
k where every run scores 1.0 does not weigh infinitely (it needs two runs per k; the mean
|ours - published| alone is given too). Smaller is closer; a reading is chosen on the odd k and
validated on the held-out even k.

    python -m docfact.report.landscape CONFIG OUT.csv --k 3,5,7,9 --runs 10 --methods A,B \
        NAME=FOLDER ...
"""

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from docfact import atomic
from docfact.config import load_config
from docfact.experiment.aggregate import METRICS

SE_FLOOR = 0.01  # in fractions (AC, NMI)


def score(runs: pd.DataFrame, config, methods, ks) -> dict:
    """{"score": mean |ours - published| / SE, "cells": how many (method, metric, k),
    "mean_abs_diff": mean |ours - published|, and each method's mean AC and NMI over `ks`} of
    the runs of one reading."""
    gaps, diffs, out = [], [], {}
    for method in methods:
        for metric in METRICS:
            means = []
            for k in ks:
                ok = runs.loc[(runs.method == method) & (runs.k == k) & (runs.status == "ok"),
                              metric].to_numpy(float)
                published = config.published[metric][method][k][0] / config.scale
                se = max(ok.std(ddof=1) / np.sqrt(len(ok)), SE_FLOOR) if len(ok) > 1 else np.nan
                means.append(ok.mean() if len(ok) else np.nan)
                diffs.append(abs(ok.mean() - published) if len(ok) else np.nan)
                gaps.append(abs(ok.mean() - published) / se if len(ok) > 1 else np.nan)
            out[f"{method} {metric}"] = float(np.mean(means))
    return {"score": float(np.nanmean(gaps)) if np.isfinite(gaps).any() else np.nan,
            "cells": int(np.sum(np.isfinite(gaps))), "mean_abs_diff": float(np.nanmean(diffs)),
            **out}


def landscape(config_path, readings: dict, ks, runs: int, methods) -> pd.DataFrame:
    """One row per reading (name -> results folder): its score on `ks` over runs 0..runs-1
    of `methods`."""
    config = load_config(config_path)
    rows = []
    for name, folder in readings.items():
        data = pd.read_csv(Path(folder) / "runs.csv")
        data = data[data.k.isin(ks) & (data.run < runs)]
        data = data[data.method.isin(methods)]
        n = data.groupby("k").run.nunique().reindex(ks).fillna(0).astype(int)
        rows.append({"reading": name, "k": " ".join(map(str, ks)),
                     "runs_per_k": " ".join(map(str, n)), **score(data, config, methods, ks)})
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m docfact.report.landscape")
    parser.add_argument("config")
    parser.add_argument("out")
    parser.add_argument("--k", required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--methods", required=True)
    parser.add_argument("readings", nargs="+", metavar="NAME=FOLDER")
    a = parser.parse_args(argv)
    table = landscape(a.config, dict(r.split("=", 1) for r in a.readings),
                      [int(k) for k in a.k.split(",")], a.runs, a.methods.split(","))
    atomic.write_text(Path(a.out), table.to_csv(index=False, float_format="%.4f"))
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
