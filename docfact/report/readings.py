"""Scoring readings against the published rows, choosing one per paper, and the landscape files.

A reading's score on a set of runs is the mean, over every published method x metric row of the
paper's tables, of |ours - published| / SE: ours the average over the phase's k of the per-k
means, published the paper's average of its per-k values at those k, SE the standard error of
ours (fidelity.py), floored at SE_FLOOR so that a row with almost no spread cannot dominate.
The reading with the lowest score on the odd k (selection) is chosen for every method and
corpus of the paper, then scored on the even k it never saw (validation).

Files in results/<paper>_readings/: readings.csv (every reading's selection score and rows in
agreement; both scores for the chosen one), rows.csv (every scored row), readings.png.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from docfact import atomic
from docfact.experiment.aggregate import METRICS, average_se
from docfact.experiment.results import read_folder
from docfact.report.fidelity import verdict
from docfact.report.plots import plt, save

SE_FLOOR = 0.005  # fractions: half a point of AC or NMI


def score_rows(config, runs: pd.DataFrame, ks, max_runs: int | None = None) -> pd.DataFrame:
    """One row per published (method, metric) of `config`, from its runs at the k values `ks`
    (runs numbered below `max_runs` only): published, ours, se, z = |ours - published| / SE
    (SE floored), n (runs) and the report's verdict."""
    runs = runs[runs["k"].isin(ks) & (runs["status"] == "ok")]
    if max_runs is not None:
        runs = runs[runs["run"] < max_runs]
    out = []
    for metric in METRICS:
        for m in config.methods:
            pub, _ = config.published_average(metric, m.name, list(ks))
            mine = runs[runs["method"] == m.name].groupby("k")[metric]
            stats = mine.agg(["mean", "std", "count"])
            if pub is None or len(stats) != len(ks):
                continue
            pub /= config.scale
            ours = float(stats["mean"].mean())
            se = average_se(stats["std"], stats["count"])
            diff = ours - pub
            out.append({"table": config.name, "method": m.name, "metric": metric.upper(),
                        "published": pub, "ours": ours, "se": se,
                        "z": abs(diff) / max(se, SE_FLOOR), "n": int(stats["count"].sum()),
                        "verdict": verdict(diff, se)})
    return pd.DataFrame(out, columns=["table", "method", "metric", "published", "ours", "se",
                                      "z", "n", "verdict"])


def summary(rows: pd.DataFrame) -> dict:
    """score (mean z), agree (rows within CI or within 0.02) and rows of a set of scored rows."""
    agree = int(rows["verdict"].isin(["within CI", "within 0.02"]).sum())
    return {"score": float(rows["z"].mean()) if len(rows) else np.nan, "agree": agree,
            "rows": len(rows)}


def choose(scores: dict) -> str:
    """The reading of lowest score ({reading: score}, NaN for readings not scored); the first
    declared on ties."""
    scored = {r: s for r, s in scores.items() if not np.isnan(s)}
    if not scored:
        raise ValueError("no reading has a score")
    return min(scored, key=lambda r: (scored[r], list(scores).index(r)))


def folder_rows(folder: Path, ks, max_runs: int) -> tuple:
    """(scored rows, complete) of one reading's folder for one table at the k values `ks`:
    complete when every k has `max_runs` runs recorded."""
    config, runs, _ = read_folder(folder)
    have = runs[runs["run"] < max_runs].groupby("k")["run"].nunique()
    complete = all(have.get(k, 0) == max_runs for k in ks)
    return score_rows(config, runs, ks, max_runs), complete


def write_landscape(out: Path, landscape: pd.DataFrame, rows: pd.DataFrame, title: str) -> list:
    """readings.csv, rows.csv and readings.png in `out`; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, frame in (("readings.csv", landscape), ("rows.csv", rows)):
        atomic.write_text(out / name, frame.to_csv(index=False, float_format="%.4f"))
        paths.append(out / name)
    return paths + plot_landscape(out / "readings", landscape, title)


def plot_landscape(stem: Path, landscape: pd.DataFrame, title: str) -> list:
    """Every reading's selection score (bars; hatched when partial), the chosen reading's
    held-out score beside it (dot)."""
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(landscape) + 1.6), constrained_layout=True)
    y = np.arange(len(landscape))
    chosen = landscape["chosen"].to_numpy(bool)
    partial = landscape["status"].ne("complete").to_numpy()
    ax.barh(y, landscape["select_score"].fillna(0), color=np.where(chosen, "tab:green", "tab:gray"),
            hatch=None, alpha=0.8, label="selection: odd k")
    for i in np.flatnonzero(partial):
        ax.barh(y[i], landscape["select_score"].fillna(0).iloc[i], color="none",
                edgecolor="black", hatch="//")
    held = landscape["validate_score"].to_numpy(float)
    done = landscape["validate_status"].eq("complete").to_numpy()
    ax.plot(np.where(done, held, np.nan), y, "o", color="tab:red",
            label="validation: held-out even k")
    if (~done & ~np.isnan(held)).any():
        ax.plot(np.where(done, np.nan, held), y, "o", mfc="none", color="tab:red",
                label="validation, partial")
    ax.set_yticks(y, [f"{r} ({a}/{n})" if not np.isnan(s) else f"{r} (not run)"
                      for r, a, n, s in zip(landscape["reading"], landscape["select_agree"],
                                            landscape["select_rows"],
                                            landscape["select_score"], strict=True)])
    ax.invert_yaxis()
    ax.set_xlabel("mean |ours - published| / SE over the paper's rows (lower is closer)")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"{title}: readings of the unstated settings\n(rows in agreement in "
                 "brackets; hatched: partial)", fontsize=9)
    paths = save(fig, stem)
    plt.close(fig)
    return paths
