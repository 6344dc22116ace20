"""Audit landscapes: the readings of one method's settings, scored like the paper's readings.

A reading is a results folder (a sweep value, or a committed table cut to the same draws). Its
score on the k values `ks` is `docfact readings`' score (report/readings.py) restricted to
`methods`: the mean over their published method x metric rows of |ours - published| / SE, ours
the average over `ks` of the per-k means of runs 0..runs-1. One scale for every landscape.

    python -m docfact.report.landscape CONFIG OUT.csv --k 3,5,7,9 --runs 10 --methods A,B \
        NAME=FOLDER ...
"""

import argparse
from pathlib import Path

import pandas as pd

from docfact import atomic
from docfact.config import load_config
from docfact.errors import DocfactError
from docfact.experiment.results import read_runs
from docfact.report.readings import score_rows, summary


def landscape(config_path, readings: dict, ks, runs: int, methods) -> pd.DataFrame:
    """One row per reading (name -> results folder): its score, rows in agreement and mean
    |ours - published| on `ks` over runs 0..runs-1 of `methods`, and each row's average."""
    config = load_config(config_path)
    out = []
    for name, folder in readings.items():
        data = read_runs(Path(folder) / "runs.csv")
        data = data[data["k"].isin(ks) & (data["run"] < runs) & data["method"].isin(methods)]
        rows = score_rows(config, data, ks)
        n = data.groupby("k")["run"].nunique().reindex(ks).fillna(0).astype(int)
        out.append({"reading": name, "k": " ".join(map(str, ks)),
                    "runs_per_k": " ".join(map(str, n)), **summary(rows),
                    "mean_abs_diff": float((rows["ours"] - rows["published"]).abs().mean()),
                    **{f"{r.method} {r.metric.lower()}": r.ours for r in rows.itertuples()}})
    return pd.DataFrame(out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m docfact.report.landscape")
    parser.add_argument("config")
    parser.add_argument("out")
    parser.add_argument("--k", required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--methods", required=True)
    parser.add_argument("readings", nargs="+", metavar="NAME=FOLDER")
    a = parser.parse_args(argv)
    if not all("=" in r[1:] for r in a.readings):
        parser.error("each reading is NAME=FOLDER")
    try:
        ks = [int(k) for k in a.k.split(",")]
    except ValueError:
        parser.error(f"--k: comma-separated integers, not {a.k!r}")
    try:
        table = landscape(a.config, dict(r.split("=", 1) for r in a.readings), ks, a.runs,
                          a.methods.split(","))
        atomic.write_text(Path(a.out), table.to_csv(index=False, float_format="%.4f"))
    except OSError as e:  # a folder without runs.csv
        parser.exit(1, f"{parser.prog}: error: {e.filename}: {e.strerror}\n")
    except DocfactError as e:
        parser.exit(1, f"{parser.prog}: error: {e}\n")
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
