"""A results folder's tables for a paper: LaTeX (booktabs) and CSV, from its files alone.

LaTeX: one table per metric in the paper's layout (config report.layout: a row per k and a
column per method, or a row per method and a column per k), each cell "mean $\\pm$ std (paper)",
the best mean of each k in bold as the papers print it (ties at the printed digits all bold).
CSV: one row per (metric, method, k), k = avg for the average over k.
"""

import io

import numpy as np
import pandas as pd

from docfact.experiment.aggregate import METRICS, summarize
from docfact.experiment.results import read_folder
from docfact.report.tables import TITLES


def long_table(folder) -> pd.DataFrame:
    """(metric, method, k, mean, std, n, failed, published): ours in the paper's unit, the
    published value beside it (its average over the k run for k = avg), empty without one."""
    config, summary, ks = _summary(folder)
    rows = []
    for r in summary.itertuples():
        published = (config.published_average(r.metric, r.method, ks)[0] if r.k == "avg"
                     else config.published_value(r.metric, r.method, r.k))
        rows.append({"metric": r.metric, "method": r.method, "k": r.k,
                     "mean": r.mean * config.scale, "std": r.std * config.scale, "n": r.n,
                     "failed": r.failed, "published": published})
    return pd.DataFrame(rows)


def to_csv(folder) -> str:
    buf = io.StringIO()
    long_table(folder).to_csv(buf, index=False, float_format="%.6g")
    return buf.getvalue()


def to_latex(folder) -> str:
    """Both metrics' tables, each a LaTeX table environment (booktabs rules)."""
    config, _, ks = _summary(folder)
    frame = long_table(folder)
    digits = 1 if config.unit == "percent" else 3
    unit = " (\\%)" if config.unit == "percent" else ""
    methods = [m for _, members in config.groups for m in members]
    columns = [*ks, "avg"]
    headings = [h for h, _ in config.groups if h]
    parts = []
    for metric in METRICS:
        sub = frame[frame.metric == metric].set_index(["method", "k"])
        means = pd.DataFrame({k: [round(sub.loc[(m, k), "mean"], digits) for m in methods]
                              for k in columns}, index=methods)
        best = means.eq(means.max(axis=0), axis=1)  # the best of each k (NaN is never best)
        cells = pd.DataFrame({k: [_cell(sub.loc[(m, k)], k, digits, best.loc[m, k])
                                  for m in methods] for k in columns}, index=methods)
        header = [str(k) for k in ks] + ["Avg."]
        if config.layout == "k_by_method":
            cells = cells.T
            cells.index = header
        else:
            cells.columns = header
            cells = _with_headings(cells, config.groups)
        styler = cells.style.format_index(escape="latex", axis=0).format_index(
            escape="latex", axis=1).map_index(
            lambda v: "textit:--rwrap;" if v in headings else "", axis=0)
        caption = (f"{TITLES[metric]}{unit}: mean $\\pm$ std over the runs (published); "
                   f"best of each k in bold. {_escape(config.title)}")
        parts.append(styler.to_latex(
            hrules=True, caption=caption, label=f"tab:{config.name}-{metric}",
            column_format="l" + "c" * len(cells.columns), position_float="centering"))
    return "\n".join(parts)


def _summary(folder):
    config, runs, _ = read_folder(folder, recorded=True)
    ks = sorted(int(k) for k in runs["k"].unique())
    return config, summarize(runs, [m.name for m in config.methods], ks), ks


def _cell(row, k, digits: int, bold: bool) -> str:
    """"mean $\\pm$ std (published)" in the paper's unit, ours in bold when `bold`; the
    average without a std."""
    if row["n"] == 0:
        return "n/a"
    text = f"{row['mean']:.{digits}f}"
    if k != "avg" and not np.isnan(row["std"]):
        text += f" $\\pm$ {row['std']:.{digits}f}"
    if bold:
        text = f"\\textbf{{{text}}}"
    if row["published"] is not None and not pd.isna(row["published"]):
        text += f" ({row['published']:.{digits}f})"
    return text


def _with_headings(cells: pd.DataFrame, groups) -> pd.DataFrame:
    """The method rows with each titled group of the table preceded by its heading row."""
    parts = []
    for heading, members in groups:
        if heading:
            parts.append(pd.DataFrame([[""] * len(cells.columns)], index=[heading],
                                      columns=cells.columns))
        parts.append(cells.loc[list(members)])
    return pd.concat(parts)


def _escape(text: str) -> str:
    for char in "\\&%$#_{}":
        text = text.replace(char, "\\" + char)
    return text
