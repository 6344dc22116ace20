"""The reproduction report and plots, rebuilt from result files alone."""

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from docfact.cli import main
from docfact.report.fidelity import rows_of
from docfact.report.tables import wall_seconds
from tests.test_runner import small_config


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    cfg = small_config(tmp, runs=3, k=(2, 3), name="gnmf_small")
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(tmp / "results/gnmf_small"),
                                    "--quiet", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    return tmp / "results"


def test_interval_and_verdicts_follow_their_definitions(results):
    rows, _ = rows_of(results / "gnmf_small")
    runs = pd.read_csv(results / "gnmf_small/runs.csv")
    g = runs[runs.method == "GNMF"].groupby("k")["ac"]
    ours = g.mean().mean()
    se = np.sqrt((g.std() ** 2 / g.count()).sum()) / 2
    row = next(r for r in rows if r["method"] == "GNMF" and r["metric"] == "AC")
    assert row["ours"] == pytest.approx(ours)
    assert row["ci_high"] - row["ci_low"] == pytest.approx(2 * 1.96 * se)
    # the run covers every k the config publishes: compared with the published average
    assert row["published"] == pytest.approx(0.976)
    diff = ours - 0.976
    assert row["diff"] == pytest.approx(diff)
    expected = ("within CI" if abs(diff) <= 1.96 * se else
                "within 0.02" if abs(diff) <= 0.02 else "outside")
    assert row["verdict"] == expected
    others = {r["verdict"] for r in rows if r["method"] != "GNMF"}
    assert others == {"no published value"}


def test_a_method_failing_every_run_of_a_k_is_held_against_the_other_ks(results, tmp_path):
    """GNMF failed at k = 3: ours averages k = 2 alone, and so does the published value (its
    k = 2 cell, 0.999), not the paper's average over both k (0.976)."""
    import shutil

    folder = tmp_path / "gnmf_small"
    shutil.copytree(results / "gnmf_small", folder)
    runs = pd.read_csv(folder / "runs.csv", keep_default_na=False, dtype=str)
    failed = (runs.method == "GNMF") & (runs.k == "3")
    runs.loc[failed, ["status", "ac", "nmi", "n_iter", "objective"]] = ["failed", "", "", "", ""]
    runs.loc[failed, "error"] = "ValueError: diverged"
    runs.to_csv(folder / "runs.csv", index=False)
    row = next(r for r in rows_of(folder)[0] if r["method"] == "GNMF" and r["metric"] == "AC")
    assert row["published"] == pytest.approx(0.999) and row["failed"] == 3
    ok = runs[(runs.method == "GNMF") & (runs.k == "2")]["ac"].astype(float)
    assert row["ours"] == pytest.approx(ok.mean())


def test_one_run_at_a_k_gives_no_interval_and_the_tolerance_decides(results, tmp_path):
    """A k with one run has no spread to tell: the interval is unknown (NaN, 'n/a' in the
    report), not of zero width, and the verdict is the 0.02 rule's."""
    import shutil

    folder = tmp_path / "gnmf_small"
    shutil.copytree(results / "gnmf_small", folder)
    runs = pd.read_csv(folder / "runs.csv", keep_default_na=False, dtype=str)
    runs = runs[(runs.k == "2") | (runs.run == "0")]  # k = 3 keeps run 0 only
    runs.to_csv(folder / "runs.csv", index=False)
    row = next(r for r in rows_of(folder)[0] if r["method"] == "GNMF" and r["metric"] == "AC")
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    assert row["verdict"] == ("within 0.02" if abs(row["diff"]) <= 0.02 else "outside")


def test_report_files_and_readme_table(results, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- reproduction:start -->\nold\n<!-- reproduction:end -->\nend\n")
    configs = tmp_path / "configs"
    configs.mkdir()
    small_config(configs, name="gnmf_small")
    small_config(configs, name="gnmf_later")  # a table with no results yet
    res = CliRunner().invoke(main, ["report", "--results", str(results), "--readme", str(readme),
                                    "--configs", str(configs)])
    assert res.exit_code == 0, res.output
    md = (results / "REPRODUCTION.md").read_text()
    assert "| GNMF    |" in md and "95% CI" in md
    assert "Not run yet (no results): `gnmf_later` (GNMF, Table 2)." in md
    table = {cells[2]: cells for cells in ([c.strip() for c in line.split("|")[1:-1]] for line
                                           in md.split("## Tables")[1].splitlines()
                                           if line[:2] == "| ")}
    assert table[f"`docfact run {configs / 'gnmf_later.yaml'}`"][3:5] == ["not run", "0 / 4"]
    # gnmf_small's config in --configs: the folder's protocol (runs may differ: a table grows)
    assert f"`docfact run {configs / 'gnmf_small.yaml'}`" in table
    csv = pd.read_csv(results / "REPRODUCTION.csv")
    assert set(csv["verdict"]) <= {"within CI", "within 0.02", "outside", "no published value"}
    text = readme.read_text()
    hours = wall_seconds(results / "gnmf_small", json.loads(
        (results / "gnmf_small/manifest.json").read_text()))[0] / 3600
    link = os.path.relpath(results / "REPRODUCTION.md", tmp_path)
    assert "old" not in text and (f"1 table of 1 paper, 6 of 10 runs recorded ({hours:.1f} h "
                                  f"of wall time with the figures' sweeps): [the table of "
                                  f"tables]({link}#tables)") in text
    assert table["`make reproduce`"] == ["all", "", "`make reproduce`",
                                         f"{hours:.1f} h (the runs so far)", "6 / 10", ""]
    assert (f"Wall time of the runs so far: {hours:.1f} h over the tables and 0.0 h over the "
            "figures' sweeps") in md
    assert text.startswith("intro\n") and text.endswith("end\n")
    png = results / "gnmf_small/k.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "[`k.png`](gnmf_small/k.png)" in md and "convergence.png" not in md
    for sub in ("sweep", "constraints"):  # a sweep's default folder, and one given by --out
        (results / "gnmf_small" / sub).mkdir()
        (results / "gnmf_small" / sub / "sweep-GNMF-lambda.png").write_bytes(png.read_bytes())
    CliRunner().invoke(main, ["report", "--results", str(results), "--readme", str(readme),
                                    "--configs", str(configs)])
    md = (results / "REPRODUCTION.md").read_text()
    # a --by sweep's records, two levels below the table: their wall time joins make reproduce's
    swept = results / "gnmf_small/sweep/labelled=0.02/links=must"
    swept.mkdir(parents=True)
    manifest = json.loads((results / "gnmf_small/manifest.json").read_text())
    manifest["wall_seconds"] = [7200.0]
    (swept / "manifest.json").write_text(json.dumps(manifest))
    (swept / "timings.csv").write_text((results / "gnmf_small/timings.csv").read_text())
    CliRunner().invoke(main, ["report", "--results", str(results), "--readme", str(readme),
                              "--configs", str(configs)])
    md = (results / "REPRODUCTION.md").read_text()
    assert "2.0 h over the figures' sweeps" in md
    table = {cells[2]: cells for cells in ([c.strip() for c in line.split("|")[1:-1]] for line
                                           in md.split("## Tables")[1].splitlines()
                                           if line[:2] == "| ")}
    assert table["`make reproduce`"][3] == f"{hours + 2:.1f} h (the runs so far)"
    assert "[`sweep/sweep-GNMF-lambda.png`](gnmf_small/sweep/sweep-GNMF-lambda.png)" in md
    assert ("[`constraints/sweep-GNMF-lambda.png`](gnmf_small/constraints/sweep-GNMF-lambda.png)"
            in md)
    before = (results / "gnmf_small/k.svg").read_bytes()
    (results / "gnmf_small/k.svg").unlink()
    assert CliRunner().invoke(main, ["plot", "k", str(results / "gnmf_small")]).exit_code == 0
    assert (results / "gnmf_small/k.svg").read_bytes() == before  # no dates: same bytes


def test_report_opens_with_the_fidelity_pictures(results, tmp_path):
    """The all-papers picture before the summary, each paper's section opening with its own;
    drawn again, the same bytes."""
    args = ["report", "--results", str(results), "--configs", str(tmp_path)]
    assert CliRunner().invoke(main, args).exit_code == 0
    md = (results / "REPRODUCTION.md").read_text()
    head, rest = md.split("\n## Summary\n", 1)
    assert "\n![Ours against the published averages, all papers](fidelity.png)\n" in head
    section = rest.split("\n## GNMF\n", 1)[1]
    assert section.startswith("\n![GNMF: ours against the published averages]"
                              "(fidelity-gnmf.png)\n\n### small GNMF table\n")
    names = ["fidelity.png", "fidelity.svg", "fidelity-gnmf.png", "fidelity-gnmf.svg"]
    before = {name: (results / name).read_bytes() for name in names}
    assert CliRunner().invoke(main, args).exit_code == 0
    assert {name: (results / name).read_bytes() for name in names} == before


def test_show_and_report_need_result_files(tmp_path):
    res = CliRunner().invoke(main, ["report", "--results", str(tmp_path)])
    assert res.exit_code == 1 and "no result folders" in res.output
    res = CliRunner().invoke(main, ["show", str(tmp_path)])
    assert res.exit_code == 1 and res.output.endswith(
        "not a complete docfact results folder (no config.yaml)\n")
    res = CliRunner().invoke(main, ["show", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and res.output.endswith(f"{tmp_path / 'nowhere'}: no such folder\n")


def test_runtime_is_the_recorded_wall_time_or_its_lower_bound(tmp_path):
    """A wall time below the methods' seconds over the workers was not fully recorded: the
    report shows that lower bound instead, marked as such."""
    from docfact.report.tables import runtime

    pd.DataFrame({"k": [2] * 4, "run": [0, 0, 1, 1], "method": ["A", "B"] * 2,
                  "seconds": [60.0, 60.0, 60.0, 60.0]}
                 ).to_csv(tmp_path / "timings.csv", index=False)
    manifest = {"wall_seconds": [100.0, 30.0], "jobs": 2, "cores": 2}
    assert runtime(tmp_path, manifest) == "2 min"
    manifest["wall_seconds"] = [90.0]
    assert runtime(tmp_path, manifest) == ">= 2 min (wall time partly unrecorded)"
    assert runtime(tmp_path, {**manifest, "jobs": -1, "cores": 4}) == "2 min"


@pytest.mark.parametrize("doc", ["README.md", "results/REPRODUCTION.md", "results/FINDINGS.md",
                                 "bench/README.md", "docs/reference.md"])
def test_committed_documents_link_to_existing_files(doc):
    """Every relative link of the committed README and report names a file in the repository,
    in one piece (a link wrapped inside its address does not render)."""
    root = Path(__file__).resolve().parents[1]
    path = root / doc
    targets = re.findall(r"\]\(([^)]*)\)", path.read_text())
    assert targets
    for target in targets:
        if target.startswith(("http://", "https://", "#")):
            continue
        assert not re.search(r"\s", target), f"{doc}: link address wrapped: {target!r}"
        assert (path.parent / target.split("#")[0]).exists(), f"{doc}: no file {target}"


def test_readings_landscapes_are_not_counted_as_the_figures_sweeps(tmp_path):
    from docfact.report.fidelity import sweep_folders

    for folder in ("table", "table/sweep/lam=1", "pspt_readings/tdt2/scale=sums/diagonal=keep"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "manifest.json").write_text("{}")
    assert sweep_folders(tmp_path) == [tmp_path / "table/sweep/lam=1"]


def test_readme_is_a_first_page_whose_commands_ci_runs():
    """At most 10,000 characters; its two commands are make targets, and CI runs its test one."""
    root = Path(__file__).resolve().parents[1]
    text = (root / "README.md").read_text()
    assert len(text) <= 10_000
    commands = re.search(r"```sh\n(.*?)```", text, re.S)[1]
    assert [line.split("#")[0].split() for line in commands.splitlines()] == [
        ["make", "install", "run"], ["make", "test"]]
    assert "\nmake test\n" in (root / ".ci/run").read_text()
    targets = re.findall(r"^(\w+):", (root / "Makefile").read_text(), re.M)
    assert {"install", "run", "test"} <= set(targets)


def test_the_report_reads_files_and_draws_only_when_asked(results, tmp_path):
    """write_report writes REPRODUCTION.md and .csv and draws nothing; draw_report (the
    command's other step) draws each table's k.png and the fidelity pictures."""
    import shutil

    from docfact.report.fidelity import write_report
    from docfact.report.figures import draw_report

    copy = tmp_path / "results"
    shutil.copytree(results, copy, ignore=shutil.ignore_patterns("*.png", "*.svg"))
    write_report(copy)
    assert (copy / "REPRODUCTION.md").exists() and (copy / "REPRODUCTION.csv").exists()
    assert not list(copy.rglob("*.png")) and not list(copy.rglob("*.svg"))
    drawn = draw_report(copy)
    assert copy / "gnmf_small/k.png" in drawn and copy / "fidelity.png" in drawn
    assert all(p.exists() for p in drawn)
