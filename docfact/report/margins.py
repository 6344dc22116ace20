"""One method of a results folder against each of the others: is it ahead on these draws?

Every method of a table clusters the same documents in each run, so the question is answered
by the differences paired over the draws, as the report judges the papers' claims
(claims.margin): the margin is the method's average over k minus the other's (AC and NMI),
its 95% interval the paired one, and the verdict "ahead" or "behind" where that interval
excludes zero, "tie" where it does not, "n/a" where some k has fewer than two runs both
clustered. The margin compares each method's own averages, as a paper's claim does; the
interval comes from the runs both clustered, so a method that fails on draws the other
clusters is judged on its successes (the tables count its failed runs).
"""

from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

from docfact.errors import ConfigError
from docfact.experiment.aggregate import METRICS, summarize
from docfact.experiment.results import read_folder, read_setup
from docfact.report.claims import margin


def margins(folder: Path, method: str) -> pd.DataFrame:
    """One row per other method of `folder`: for each metric, `method`'s average over k minus
    the other's (`<metric>`), the half-width of its paired 95% interval (`<metric>_hw`, NaN
    when some k has fewer than two runs both clustered) and the verdict (`<metric>_verdict`)."""
    config, runs, _ = read_folder(folder, recorded=True)
    methods = [m.name for m in config.methods]
    if method not in methods:
        raise ConfigError(f"--margins: {folder} has no method {method!r}; its methods: "
                          f"{', '.join(methods)}")
    if len(methods) < 2:
        raise ConfigError(f"--margins: {method} is the only method of {folder}, nothing to set "
                          "it against")
    ks = sorted(int(k) for k in runs["k"].unique())
    summary = summarize(runs, methods, ks)
    avg = summary[summary["k"] == "avg"].pivot(index="method", columns="metric", values="mean")
    rows = []
    for other in (m for m in methods if m != method):
        row = {"method": other}
        for metric in METRICS:
            ours, hw = margin(avg, runs, method, other, metric)
            row |= {metric: ours, f"{metric}_hw": hw, f"{metric}_verdict": _verdict(ours, hw)}
        rows.append(row)
    return pd.DataFrame(rows)


def _verdict(margin: float, hw: float) -> str:
    if np.isnan(hw) or np.isnan(margin):
        return "n/a"
    return "ahead" if margin - hw > 0 else "behind" if margin + hw < 0 else "tie"


def _cell(margin: float, hw: float, digits: int, verdict: str) -> str:
    """'+1.20 ± 0.80 (ahead)', or '+0.00 ± n/a' where the interval is unknown."""
    if np.isnan(margin):
        return "n/a"
    if np.isnan(hw):
        return f"{margin:+.{digits}f} ± n/a"
    return f"{margin:+.{digits}f} ± {hw:.{digits}f} ({verdict})"


def render(folder: Path, method: str) -> str:
    """Markdown: margins(folder, method), one line per other method, in the unit of the
    folder's tables (points of percent, or fractions)."""
    df = margins(folder, method)
    scale = read_setup(folder)[0].scale  # the config only: margins() read the runs
    digits = 2 if scale == 100 else 4
    cells = [[row["method"], *(_cell(scale * row[m], scale * row[f"{m}_hw"], digits,
                                     row[f"{m}_verdict"]) for m in METRICS)]
             for _, row in df.iterrows()]
    unit = " (points of percent, as the tables)" if scale == 100 else ""
    head = (f"{method} against each other method of {folder}: average over k of ours minus "
            f"theirs{unit}, ± the half-width of the 95% interval paired over the draws (n/a: "
            "some k has fewer than two runs both clustered)")
    return head + "\n\n" + tabulate(cells, ["against", *(m.upper() for m in METRICS)],
                                    tablefmt="github") + "\n"
