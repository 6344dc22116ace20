"""Figures rebuilt from result files: AC and NMI against k, ours beside the published values;
sweeps, convergence curves and LCF's anchors."""

from pathlib import Path

import matplotlib

from docfact import atomic
from docfact.config import parse_yaml

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "docfact"
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from docfact.experiment.aggregate import METRICS, Z95, mean_se, summarize  # noqa: E402
from docfact.experiment.results import read_folder, read_manifest  # noqa: E402
from docfact.report.tables import TITLES, k_words  # noqa: E402

WORDS = {"labelled": "labelled fraction t"}  # axis names of parameters
CROWDED = 6  # more series than this on one axis: one panel per method instead


def plot_k(folder) -> list:
    """Write k.png and k.svg in `folder`: AC and NMI against k, ours (mean over runs, band of
    +- 1.96 standard errors, clipped to the metric's range) beside the published values
    (markers). Up to CROWDED methods: a panel per metric, a line per method; beyond: a panel
    per method (in the table's order), AC and NMI in each, shared axes."""
    folder = Path(folder)
    config, runs, _ = read_folder(folder)
    methods = [m for _, members in config.groups for m in members]
    ks = sorted(int(k) for k in runs["k"].unique())
    summary = summarize(runs, methods, ks)
    unit = " (%)" if config.unit == "percent" else ""
    if len(methods) <= CROWDED:
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), constrained_layout=True)
        colors = [plt.cm.tab10(i) for i in range(len(methods))]
        for ax, metric in zip(axes, METRICS, strict=True):
            for method, color in zip(methods, colors, strict=True):
                _curve(ax, config, summary, metric, method, ks, color, method)
            ax.set_ylabel(f"{TITLES[metric]}{unit}")
        axes[1].legend(fontsize=7, ncol=2, loc="lower left")
        keys = "lines: docfact (mean, 95% band); circles: published"
    else:
        ncols = 6 if len(methods) > 10 else 5
        nrows = -(-len(methods) // ncols)
        fig, grid = plt.subplots(nrows, ncols, figsize=(2.3 * ncols, 2.0 * nrows + 0.8),
                                 sharex=True, sharey=True, squeeze=False,
                                 constrained_layout=True)
        axes = grid.ravel()
        for ax, method in zip(axes, methods, strict=False):
            for metric, color in zip(METRICS, ("tab:blue", "tab:orange"), strict=True):
                _curve(ax, config, summary, metric, method, ks, color, metric.upper())
            ax.set_title(method, fontsize=9)
            ax.tick_params(labelsize=7)
        for i, ax in enumerate(axes[len(methods):], len(methods)):
            ax.set_axis_off()
            axes[i - ncols].xaxis.set_tick_params(labelbottom=True)  # the panel above: last
            axes[i - ncols].set_xlabel("Number of classes k", fontsize=8)  # in its column
        for ax in grid[:, 0]:
            ax.set_ylabel(f"AC, NMI{unit}", fontsize=8)
        axes[0].legend(fontsize=7, loc="lower left")
        keys = ("a panel per method; lines: docfact (mean, 95% band), AC blue, NMI orange; "
                "circles: published")
    for ax in axes[:len(methods)] if len(methods) > CROWDED else axes:
        ax.set_xticks(ks)
        ax.grid(alpha=0.3)
    for ax in (grid[-1] if len(methods) > CROWDED else axes):
        ax.set_xlabel("Number of classes k", fontsize=8)
    fig.suptitle(f"{config.title}\n{keys}", fontsize=9)
    paths = save(fig, folder / "k")
    plt.close(fig)
    return paths


def _curve(ax, config, summary, metric, method, ks, color, label) -> None:
    """One method's mean against k with its 95% band, and its published values as circles."""
    scale = config.scale
    s = summary[(summary.metric == metric) & (summary.method == method) & (summary.k != "avg")]
    x = s["k"].astype(int).to_numpy()
    mean = s["mean"].to_numpy(float) * scale
    se = mean_se(s["std"], s["n"]) * scale
    # a line of one point draws nothing: a table of one k shows its means as dots
    ax.plot(x, mean, "-" if len(x) > 1 else "s", color=color, label=label, lw=1.5, ms=4)
    low, high = np.clip([mean - Z95 * se, mean + Z95 * se], 0, scale)  # AC, NMI in [0, 1]
    ax.fill_between(x, low, high, color=color, alpha=0.15)
    paper = {k: config.published_value(metric, method, k) for k in ks}
    pk = [k for k in ks if paper[k] is not None]
    if pk:
        ax.plot(pk, [paper[k] for k in pk], "o", mfc="none", color=color, ms=4)


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
    baselines (rows without a value) as horizontal dashed lines; titled with the table, its
    data and the settings held fixed (read from the sweep's records beside the CSV). Up to
    CROWDED series: a panel per metric; beyond, a column of panels per swept line."""
    csv = Path(csv)
    table = pd.read_csv(csv)
    param = table["param"].iloc[0]
    sweep, baselines = table[table["value"].notna()], table[table["value"].isna()]
    lines = list(dict.fromkeys(sweep["method"]))
    panels = [lines] if len(lines) + len(baselines) <= CROWDED else [[line] for line in lines]
    multiples = len(panels) > 1
    fig, grid = plt.subplots(2 if multiples else 1, len(panels) if multiples else 2,
                             figsize=(2.6 * len(panels), 5.4) if multiples else (10, 4),
                             squeeze=False, sharex=multiples, sharey="row" if multiples else False,
                             constrained_layout=True)
    numeric = pd.api.types.is_numeric_dtype(sweep["value"])  # else settings (weight=...)
    for i, metric in enumerate(METRICS):
        for j, members in enumerate(panels):
            ax = grid[i, j] if multiples else grid[0, i]
            for method in members:
                c = sweep[sweep.method == method]
                ax.plot(c["value"], c[metric], "o-" if numeric else "o",
                        label="_" if multiples else method)  # a panel's title names it
            for b, (method, value) in enumerate(zip(baselines["method"], baselines[metric],
                                                    strict=True)):
                ax.axhline(value, ls="--", lw=1, color=plt.cm.Dark2(b % 8), label=method)
            if numeric and sweep["value"].min() > 0 and sweep["value"].max() / sweep[
                    "value"].min() >= 100:
                ax.set_xscale("log")
            if not multiples or i == 1:
                ax.set_xlabel(WORDS.get(param, param), fontsize=8)
            ax.set_ylabel(TITLES[metric] if not multiples or j == 0 else "", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
            if multiples and i == 0:
                ax.set_title(members[0], fontsize=9)
    if len(baselines) or not multiples:
        (grid[0, 0] if multiples else grid[0, 1]).legend(fontsize=7)
    fig.suptitle(sweep_title(csv, param, list(baselines["method"])), fontsize=8)
    paths = save(fig, csv.with_suffix(""))
    plt.close(fig)
    return paths


def sweep_title(csv: Path, param: str, baselines: list) -> str:
    """What a sweep varied and what it held: the table, the corpus and protocol (from the
    manifest of one swept value's records) and the swept methods' other settings (from its
    config.yaml); the CSV's name alone when no records lie beside it."""
    found = sorted(csv.parent.glob(f"{param}=*/manifest.json")) or sorted(
        csv.parent.glob(f"{param}=*/*/manifest.json"))
    word = WORDS.get(param, param)
    if not found:
        return f"{csv.stem}: AC and NMI against {word}"
    manifest = read_manifest(found[0].parent)
    path = found[0].parent / "config.yaml"
    raw = parse_yaml(atomic.read_text(path), str(path))
    by = found[0].parent.name.split("=")[0] if found[0].parent.parent != csv.parent else None
    table = manifest["config"].split(f"-{param}-")[0]
    head = (f"{table}: AC and NMI (averages over k) against {word}"
            + (f", a line per {by}" if by else ""))
    data = (f"data: view {manifest['view']} ({manifest['documents']} documents, "
            f"{manifest['classes']} classes), {manifest['weighting']} on the "
            f"{manifest['weight_on']}; k = {k_words(manifest['k'])}, {manifest['runs']} runs "
            f"per k, seed {manifest['seed']}")
    held = {param, by, "algorithm", "labels"}
    methods = raw.get("methods", {})
    if len(methods) == 1:
        (name, spec), = methods.items()
        fixed = f"{name}: " + ", ".join(f"{WORDS.get(key, key)} = {value}"
                                        for key, value in spec.items() if key not in held)
    else:
        fixed = f"{', '.join(methods)}: other settings as in {table}'s config"
    t = manifest.get("labelled")
    if t is not None and "labelled" not in (param, by):
        fixed += f"; labelled t = {100 * t:g}%"
    if baselines:
        fixed += f"; dashed: {', '.join(baselines)} as in the table"
    return f"{head}\n{data}\n{fixed}"


def redraw(results: Path) -> list:
    """Every figure below `results` drawn again from the files it was drawn from (sweep-*.csv
    with their records, convergence.csv, anchors.csv); nothing is recomputed."""
    results = Path(results)
    paths = []
    for csv in sorted(results.glob("*/*/sweep-*.csv")):
        paths += plot_sweep(csv)
    for csv in sorted(results.glob("*/convergence.csv")):
        paths += plot_convergence(csv.parent)
    for csv in sorted(results.glob("*/anchors.csv")):
        paths += plot_anchors(csv.parent)
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
