"""Figures rebuilt from result files: AC and NMI against k, ours beside the published values."""

from pathlib import Path

import matplotlib

from docfact import atomic

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "docfact"
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from docfact.experiment.aggregate import METRICS, summarize  # noqa: E402
from docfact.report.tables import TITLES, read_folder  # noqa: E402


def plot_k(folder) -> list:
    """Write k.png and k.svg in `folder`: one panel per metric, a line per method (mean over
    runs, band of +- 1.96 standard errors) and the published values as markers."""
    folder = Path(folder)
    config, runs, _ = read_folder(folder)
    methods = [m.name for m in config.methods]
    ks = sorted(int(k) for k in runs["k"].unique())
    summary = summarize(runs, methods, ks)
    scale = config.scale
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), constrained_layout=True)
    palette = plt.cm.tab10 if len(methods) <= 10 else plt.cm.tab20
    colors = [palette(i % palette.N) for i in range(len(methods))]
    for ax, metric in zip(axes, METRICS, strict=True):
        for method, color in zip(methods, colors, strict=False):
            s = summary[(summary.metric == metric) & (summary.method == method)
                        & (summary.k != "avg")]
            x = s["k"].astype(int).to_numpy()
            mean = s["mean"].to_numpy(float) * scale
            se = np.nan_to_num(s["std"].to_numpy(float)) / np.sqrt(np.maximum(s["n"], 1)) * scale
            ax.plot(x, mean, "-", color=color, label=method, lw=1.5)
            ax.fill_between(x, mean - 1.96 * se, mean + 1.96 * se, color=color, alpha=0.15)
            paper = config.published.get(metric, {}).get(method, {}) if config.published else {}
            pk = [k for k in ks if k in paper]
            if pk:
                ax.plot(pk, [paper[k][0] for k in pk], "o", mfc="none", color=color, ms=5)
        unit = " (%)" if config.unit == "percent" else ""
        ax.set_xlabel("Number of classes k")
        ax.set_ylabel(f"{TITLES[metric]}{unit}")
        ax.set_xticks(ks)
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7, ncol=2, loc="lower left")
    fig.suptitle(f"{config.title}\nlines: docfact (mean, 95% band); circles: published",
                 fontsize=9)
    paths = save(fig, folder / "k")
    plt.close(fig)
    return paths


def save(fig, stem: Path) -> list:
    """stem.png and stem.svg, written atomically and without dates, so reruns give equal bytes."""
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for p in paths:
        meta = {"Date": None} if p.suffix == ".svg" else {"Software": None}
        atomic.write_with(p, lambda tmp, p=p, meta=meta: fig.savefig(
            tmp, format=p.suffix[1:], dpi=110, metadata=meta))
    return paths


def plot_convergence(folder) -> list:
    """convergence.png/svg from convergence.csv: objective against iteration, a panel a method.

    The random start (iteration 0) is left out: its objective is orders of magnitude larger and
    would flatten the curve."""
    folder = Path(folder)
    curves = pd.read_csv(folder / "convergence.csv")
    methods = list(dict.fromkeys(curves["method"]))
    fig, axes = plt.subplots(1, len(methods), figsize=(4 * len(methods), 3.6), squeeze=False,
                             constrained_layout=True)
    for ax, method in zip(axes[0], methods, strict=True):
        c = curves[(curves.method == method) & (curves.iteration >= 1)]
        ax.plot(c["iteration"], c["objective"], "-", lw=1.5)
        ax.set_title(method)
        ax.set_xlabel("Iteration #")
        ax.set_ylabel("Objective function value")
        ax.grid(alpha=0.3)
    paths = save(fig, folder / "convergence")
    plt.close(fig)
    return paths


def plot_sweep(csv: Path) -> list:
    """<stem>.png/svg from a sweep CSV: AC and NMI (averages over k) against the parameter, the
    baselines (rows without a value) as horizontal dashed lines."""
    csv = Path(csv)
    table = pd.read_csv(csv)
    param = table["param"].iloc[0]
    sweep, baselines = table[table["value"].notna()], table[table["value"].isna()]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    numeric = pd.api.types.is_numeric_dtype(sweep["value"])  # else settings (weight=...)
    for ax, metric in zip(axes, METRICS, strict=True):
        for method, c in sweep.groupby("method", sort=False):
            ax.plot(c["value"], c[metric], "o-" if numeric else "o", label=method)
        for i, (method, value) in enumerate(zip(baselines["method"], baselines[metric],
                                                strict=True)):
            ax.axhline(value, ls="--", lw=1, color=plt.cm.Dark2(i % 8), label=method)
        if numeric and sweep["value"].min() > 0 and sweep["value"].max() / sweep[
                "value"].min() >= 100:
            ax.set_xscale("log")
        ax.set_xlabel({"lam": "lambda"}.get(param, param))
        ax.set_ylabel(TITLES[metric])
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=8)
    paths = save(fig, csv.with_suffix(""))
    plt.close(fig)
    return paths


def plot_anchors(folder) -> list:
    """anchors.png/svg from anchors.csv (LCF Fig. 5): the points, coloured by Gaussian, and
    each method's bases as black diamonds, a panel a method."""
    folder = Path(folder)
    table = pd.read_csv(folder / "anchors.csv")
    points = table[table.kind == "point"]
    kinds = [k for k in dict.fromkeys(table["kind"]) if k != "point"]
    fig, axes = plt.subplots(1, len(kinds), figsize=(4.5 * len(kinds), 4.2), squeeze=False,
                             constrained_layout=True)
    for ax, kind in zip(axes[0], kinds, strict=True):
        ax.scatter(points["x"], points["y"], c=points["label"], cmap="tab10", vmin=0, vmax=9,
                   s=12)
        b = table[table.kind == kind]
        ax.scatter(b["x"], b["y"], marker="D", color="black", s=50)
        ax.set_title(f"{kind}: mean distance of a basis to its centre "
                     f"{b['distance'].mean():.2f}", fontsize=9)
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.set_aspect("equal")
        ax.grid(alpha=0.3)
    paths = save(fig, folder / "anchors")
    plt.close(fig)
    return paths
