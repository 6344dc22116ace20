"""`docfact show --format latex|csv|markdown`: a results folder's tables for a paper."""

import io
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from docfact.cli import main
from docfact.config import load_config

ROOT = Path(__file__).resolve().parents[1]
LCCF = ROOT / "results" / "lccf_tdt2"


def show(folder, fmt):
    res = CliRunner().invoke(main, ["show", str(folder), "--format", fmt])
    assert res.exit_code == 0, res.output
    return res.output


def test_latex_is_balanced_in_the_papers_layout_with_the_best_of_each_k_in_bold():
    """A LaTeX-free structural check: environments nest and close, each table has its booktabs
    rules and one row per method (the config's layout, method_by_k, with its group heading),
    every row as many cells as columns, and bold exactly on the best mean of each k,
    recomputed here from runs.csv."""
    text = show(LCCF, "latex")
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{(\w+)\}", text):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, f"\\end{{{env}}} closes nothing open"
    assert not stack
    config = load_config(LCCF / "config.yaml")
    methods = [m.name for m in config.methods]
    headings = [h for h, _ in config.groups if h]
    runs = pd.read_csv(LCCF / "runs.csv")
    ks = sorted(runs["k"].unique())
    tabulars = re.findall(r"\\begin\{tabular\}\{(\w+)\}\n(.*?)\\end\{tabular\}", text, re.S)
    assert len(tabulars) == 2  # AC, then NMI
    for metric, (columns, body) in zip(("ac", "nmi"), tabulars, strict=True):
        assert [line for line in body.splitlines() if line.startswith("\\") and
                "rule" in line] == ["\\toprule", "\\midrule", "\\bottomrule"]
        lines = [line for line in body.splitlines() if line.endswith("\\\\")]
        cells = [[c.strip() for c in line[:-2].split("&")] for line in lines]
        assert all(len(row) == len(columns) for row in cells)
        assert cells[0][1:] == [*map(str, ks), "Avg."]
        rows = {row[0]: row[1:] for row in cells[1:]}
        assert len(rows) == len(cells) - 1 == len(methods) + len(headings)
        assert set(rows) - set(methods) == {rf"\textit{{{h}}}".replace("_", r"\_")
                                            .replace("^", r"\textasciicircum ")
                                            for h in headings}
        means = runs[runs.status == "ok"].groupby(["method", "k"])[metric].mean().unstack()
        for j, k in enumerate(ks):
            best = means[k].round(3)
            bold = {m for m in methods if rows[m][j].startswith(r"\textbf{")}
            assert bold == set(best[best == best.max()].index), (metric, k)
            published = config.published[metric]["KM"][k][0]
            assert rows["KM"][j].endswith(f"({published:.3f})")
        assert sum(row[-1].startswith(r"\textbf{") for row in rows.values()) >= 1


def test_latex_with_a_row_per_k(tmp_path):
    """GNMF's layout (k_by_method): a row per k and the Avg., a column per method."""
    text = show(ROOT / "results" / "gnmf_tdt2", "latex")
    body = re.search(r"\\midrule\n(.*?)\\bottomrule", text, re.S)[1]
    firsts = [line.split("&")[0].strip() for line in body.splitlines()]
    assert firsts == ["2", "3", "4", "5", "6", "7", "8", "9", "10", "Avg."]
    assert all(line.count(r"\textbf{") >= 1 for line in body.splitlines())
    assert r"Accuracy (\%)" in text  # a percent table, escaped


def test_csv_holds_every_metric_method_and_k_with_the_published_value():
    config = load_config(LCCF / "config.yaml")
    table = pd.read_csv(io.StringIO(show(LCCF, "csv")))
    assert list(table.columns) == ["metric", "method", "k", "mean", "std", "n", "failed",
                                   "published"]
    assert len(table) == 2 * len(config.methods) * (len(config.k) + 1)
    runs = pd.read_csv(LCCF / "runs.csv")
    ours = runs[(runs.method == "LCCF") & (runs.k == 5)]["nmi"]
    row = table[(table.metric == "nmi") & (table.method == "LCCF") & (table.k == "5")].iloc[0]
    assert row["mean"] == pytest.approx(ours.mean(), rel=1e-5)
    assert row["n"] == len(ours)
    assert row["published"] == config.published["nmi"]["LCCF"][5][0]
    avg = table[(table.metric == "ac") & (table.method == "LCCF") & (table.k == "avg")].iloc[0]
    assert avg["published"] == config.published["ac"]["LCCF"]["avg"][0]


def test_markdown_is_the_tables_file(tmp_path):
    folder = tmp_path / "lccf_tdt2"
    shutil.copytree(LCCF, folder, ignore=shutil.ignore_patterns("sweep", "*.png", "*.svg"))
    assert show(folder, "markdown") == (LCCF / "tables.md").read_text() + "\n"
    res = CliRunner().invoke(main, ["show", str(folder)])  # the default
    assert res.exit_code == 0 and res.output == show(folder, "markdown")


def test_unknown_format_is_one_line(tmp_path):
    res = CliRunner().invoke(main, ["show", str(LCCF), "--format", "html"])
    assert res.exit_code == 2 and "'html' is not one of" in res.output
