"""Fidelity at a glance: ours against the published average, one point per method x metric.

A panel holds the rows of report.fidelity.rows_of (dicts with table, method, metric, published,
ours, ci_low, ci_high, diff, verdict): the published average on x, ours on y with its 95%
interval as a bar, the diagonal y = x and a band of +- TOLERANCE around it. Colour and marker
follow the verdict; AC points are filled, NMI points open.
"""

from pathlib import Path

import numpy as np

from docfact.report.plots import plt, save

STYLE = {"within CI": ("#1a9850", "o"), "within 0.02": ("#4575b4", "s"),
         "outside": ("#d73027", "^")}
LABEL_PT = 6.0  # font size of the point labels
AXES = "x: published average; y: ours, with its 95% interval"


def plot_paper(rows: list, stem: Path, title: str, tolerance: float) -> list:
    """stem.png/svg: one panel per table (rows grouped by their "table", in order), every point
    outside the band named beside the panel (above the diagonal on the left, below it on the
    right)."""
    panels = {}
    for r in rows:
        name = r["table"] + (" (sensitivity)" if r.get("kind") == "sensitivity" else "")
        panels.setdefault(name, []).append(r)
    return grid(panels, stem, f"{title}\n{AXES}", tolerance, ncols=2,
                named=lambda rows: [r for r in rows if r["verdict"] == "outside"],
                label=lambda r: f"{r['method']} {r['metric']}")


def plot_overview(papers: dict, stem: Path, tolerance: float, named: int = 3) -> list:
    """stem.png/svg: one panel per paper ({paper: rows}), titled with its verdict counts, its
    `named` largest gaps named."""
    panels = {}
    for paper, rows in papers.items():
        counts = [f"{sum(r['verdict'] == v for r in rows)} {v}" for v in STYLE]
        panels[f"{paper}: {len(rows)} rows\n{', '.join(counts)}"] = rows
    return grid(panels, stem, "All papers' tables: ours against the published averages "
                f"(the {named} largest gaps of each paper named)\n{AXES}", tolerance, ncols=3,
                named=lambda rows: sorted((r for r in rows if r["verdict"] == "outside"),
                                          key=lambda r: -abs(r["diff"]))[:named],
                label=lambda r: f"{r['method']} {r['metric']} ({r['table'].split('_', 1)[-1]})",
                side=3.0, margins=(1.3, 1.3))


def grid(panels: dict, stem: Path, title: str, tolerance: float, ncols: int, named, label,
         side: float = 3.6, margins: tuple = (1.35, 1.2)) -> list:
    """stem.png/svg: a square panel of `side` inches per {title: rows}, `ncols` a row, with
    common limits, and `margins` (inches) left and right of each to name the rows named(rows),
    each as label(row)."""
    ncols = min(ncols, len(panels))
    nrows = -(-len(panels) // ncols)
    cell_w, cell_h, top = sum(margins) + side, side + 0.95, 0.85
    fig = plt.figure(figsize=(ncols * cell_w, nrows * cell_h + top))
    W, H = fig.get_size_inches()
    lim = limits([r for rows in panels.values() for r in rows], tolerance)
    for i, (name, rows) in enumerate(panels.items()):
        row, col = divmod(i, ncols)
        left = col * cell_w + margins[0]
        bottom = H - top - (row + 1) * cell_h + 0.45
        ax = fig.add_axes((left / W, bottom / H, side / W, side / H))
        panel(ax, rows, lim, tolerance)
        ax.set_title(name, fontsize=9)
        margin_labels(ax, named(rows), lim, side, label)
    legend(fig, title, tolerance)
    paths = save(fig, stem)
    plt.close(fig)
    return paths


def limits(rows: list, tolerance: float) -> tuple:
    """Common axis limits (a square) covering every point and its interval."""
    values = [v for r in rows for v in (r["published"], r["ours"], r["ci_low"], r["ci_high"])
              if not np.isnan(v)]  # an interval unknown (one run at some k): NaN
    lo, hi = min(values), max(values)
    pad = 0.03 + tolerance
    return max(0.0, np.floor((lo - pad) * 20) / 20), min(1.05, np.ceil((hi + pad) * 20) / 20)


def panel(ax, rows: list, lim: tuple, tolerance: float) -> None:
    """The diagonal, its band, and each row as a point with its interval."""
    line = np.array(lim)
    ax.fill_between(line, line - tolerance, line + tolerance, color="0.85", lw=0)
    ax.plot(line, line, "-", color="0.3", lw=0.8)
    for verdict, (color, marker) in STYLE.items():
        chosen = [r for r in rows if r["verdict"] == verdict]
        if not chosen:
            continue
        ax.vlines([r["published"] for r in chosen], [r["ci_low"] for r in chosen],
                  [r["ci_high"] for r in chosen], color=color, lw=0.9)
        for metric in ("AC", "NMI"):
            points = [r for r in chosen if r["metric"] == metric]
            ax.plot([r["published"] for r in points], [r["ours"] for r in points], marker,
                    color=color, ms=4.5, mew=1, mfc=color if metric == "AC" else "white")
    ax.set_xlim(lim)
    ax.set_ylim(lim)
    ax.set_aspect("equal")
    ax.tick_params(labelsize=7)
    ax.grid(alpha=0.3)


def margin_labels(ax, rows: list, lim: tuple, side: float, label) -> None:
    """Name each row in a column beside the axes, joined to its point by a thin line: rows above
    the diagonal on the left, below it on the right; labels as near their point's height as
    the spacing allows."""
    gap = 1.25 * LABEL_PT / 72 / side  # one label line, in axes fractions
    clear = 0.4 / side  # the tick labels' width, left of the axes
    for where in (-1, 1):
        chosen = [r for r in rows if (r["ours"] < r["published"]) == (where > 0)]
        chosen.sort(key=lambda r: (r["ours"], r["method"], r["metric"]))
        y = spread([(r["ours"] - lim[0]) / (lim[1] - lim[0]) for r in chosen], gap)
        for r, at in zip(chosen, y, strict=True):
            ax.annotate(label(r), (r["published"], r["ours"]),
                        xytext=(-clear if where < 0 else 1.03, at), textcoords="axes fraction",
                        ha="right" if where < 0 else "left", va="center", fontsize=LABEL_PT,
                        color="0.15", annotation_clip=False,
                        arrowprops={"arrowstyle": "-", "lw": 0.35, "color": "0.6",
                                    "shrinkA": 0, "shrinkB": 2})


def spread(y: list, gap: float) -> list:
    """Heights (sorted ascending) moved apart to at least `gap`, kept within [0, 1] when they
    fit, each as near its own as that allows."""
    out = list(y)
    for i in range(1, len(out)):
        out[i] = max(out[i], out[i - 1] + gap)
    if out and out[-1] > 1:
        out[-1] = 1.0
        for i in range(len(out) - 2, -1, -1):
            out[i] = min(out[i], out[i + 1] - gap)
    if out and out[0] < 0:
        out[0] = 0.0
        for i in range(1, len(out)):
            out[i] = max(out[i], out[i - 1] + gap)
    return out


def legend(fig, title: str, tolerance: float) -> None:
    """The title, and under it the verdicts' markers and the metrics' fill."""
    handles = [plt.Line2D([], [], ls="", marker=m, color=c, mfc=c, label=v)
               for v, (c, m) in STYLE.items()]
    handles += [plt.Line2D([], [], ls="", marker="o", color="0.3", mfc="0.3", label="AC"),
                plt.Line2D([], [], ls="", marker="o", color="0.3", mfc="white", label="NMI"),
                plt.Rectangle((0, 0), 1, 1, color="0.85", label=f"diagonal +- {tolerance}")]
    H = fig.get_size_inches()[1]
    fig.suptitle(title, fontsize=10, y=1 - 0.12 / H, va="top")
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), fontsize=8,
               frameon=False, bbox_to_anchor=(0.5, 1 - 0.45 / H))
