"""The newcomer's command line: data options on every command that fetches, the quick table,
runs already recorded, notes under the full protocol only, readable help and names."""

import os
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from docfact.cli.run import quick_k
from tests.conftest import SOURCE
from tests.test_runner import run_cli, small_config

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A small table (2 runs at k = 2, 3) with notes, run in full without a terminal."""
    tmp = tmp_path_factory.mktemp("table")
    cfg = small_config(tmp, runs=2, k=(2, 3), notes="Measured in full: the notes.")
    res = run_cli("run", cfg, "--out", tmp / "out", "--jobs", 1)
    assert res.exit_code == 0, res.output
    return cfg, tmp / "out", res.output


def test_a_run_prints_its_table_with_its_notes_a_figure_and_no_progress_frames(table):
    cfg, out, output = table
    assert "computing 4 runs into" in output
    assert "## Notes\n\nMeasured in full: the notes." in output
    assert f"figure: {out / 'k.png'}" in output
    assert "\r" not in output  # the output is not a terminal: no progress bar frames
    assert not (out / ".lock").exists()  # released and removed after the run
    counts = pd.read_csv(out / "ac.csv").filter(like=" n")
    assert (out / "ac.csv").read_text().count(".000000") == 0 and counts.iloc[0, 0] == 2


def test_recorded_runs_are_said_in_one_line_and_only_the_asked_ones_printed(table):
    cfg, out, _ = table
    before = (out / "tables.md").read_bytes()
    res = run_cli("run", cfg, "--out", out, "--k", "2", "--runs", 1)
    assert res.exit_code == 0, res.output
    assert f"1 of 1 runs already recorded in {out}; --fresh or --out to recompute\n" in res.output
    assert "runs per k: 1;" in res.output and re.search(r"^\| 3 ", res.output, re.M) is None
    assert "Measured in full" not in res.output  # the notes describe the full table only
    assert ("The config's `notes` describe the full table (2 runs at k = 2, 3) and are not "
            "repeated under this one (1 run at k = 2)") in res.output
    assert "This table: 1 run at k = 2. The full protocol, 2 runs at k = 2, 3" in res.output
    assert (out / "tables.md").read_bytes() == before  # the folder's tables cover every run


def test_quick_k_is_the_smallest_middle_and_largest():
    assert quick_k(range(2, 11)) == [2, 6, 10]
    assert quick_k([3, 30]) == [3, 30] and quick_k([5]) == [5]


def test_quick_asks_no_more_runs_than_the_config(tmp_path):
    """A config of 2 runs per k: --quick computes 2, not QUICK_RUNS = 3."""
    cfg = small_config(tmp_path, runs=2, k=(2,))
    res = run_cli("run", cfg, "--quick", "--out", tmp_path / "q", "--quiet", "--jobs", 1)
    assert res.exit_code == 0, res.output
    assert sorted(set(pd.read_csv(tmp_path / "q" / "runs.csv")["run"])) == [0, 1]


def test_run_takes_the_data_options_after_the_command(tmp_path, monkeypatch):
    monkeypatch.delenv("DOCFACT_MIRROR")
    monkeypatch.delenv("DOCFACT_DATA_DIR")
    cfg = small_config(tmp_path, runs=1, k=(2,))
    cache = tmp_path / "cache"
    res = run_cli("run", cfg, "--out", tmp_path / "out", "--quiet", "--jobs", 1,
                  "--mirror", SOURCE, "--data-dir", cache)
    assert res.exit_code == 0, res.output
    assert (cache / "TDT2.mat").exists()
    assert "DOCFACT_MIRROR" not in os.environ and "DOCFACT_DATA_DIR" not in os.environ


@pytest.mark.parametrize("where", ["before", "after"])
def test_offline_error_names_the_file_the_folder_and_the_option(tmp_path, no_network, where):
    cfg = small_config(tmp_path, runs=1, k=(2,))
    empty, cache = tmp_path / "mirror", tmp_path / "cache"
    empty.mkdir()
    options = ["--mirror", empty, "--data-dir", cache]
    args = [*options, "run", cfg] if where == "before" else ["run", cfg, *options]
    res = run_cli(*args)
    assert res.exit_code == 1 and res.output.count("\n") == 1
    assert res.output.startswith("docfact: error: cannot obtain TDT2.mat (dataset tdt2): ")
    assert f"mirror {empty / 'TDT2.mat'}: not found" in res.output
    assert f"Put TDT2.mat in the cache folder {cache} (--data-dir DIR), or in a folder named " \
           "by --mirror DIR\n" in res.output


@pytest.mark.parametrize("command", [["check"], ["sweep", "--param", "gnmf.p=3"],
                                     ["plot", "convergence"], ["datasets", "info"],
                                     ["datasets", "fetch"], ["datasets", "list"], ["run"]])
def test_every_command_that_may_fetch_takes_the_data_options(command):
    res = run_cli(*command, "--help")
    assert res.exit_code == 0 and "--mirror" in res.output and "--data-dir" in res.output


def test_top_level_help_lines_are_whole():
    res = run_cli("--help")
    commands = res.output.split("Commands:")[1]
    assert res.exit_code == 0 and len(commands.splitlines()) > 5 and "..." not in commands
    assert "--mirror" in res.output and "--data-dir" in res.output


def test_names_are_case_insensitive():
    from docfact.datasets import resolve_view
    from docfact.datasets.registry import entry

    assert entry("TDT2").name == "tdt2"
    assert resolve_view("GNMF_TDT2")["name"] == "gnmf_tdt2"
    assert resolve_view({"dataset": "Yale"})["dataset"] == "yale"
    res = run_cli("datasets", "info", "NoSuch")
    assert res.exit_code == 2 and "unknown dataset or view 'NoSuch'" in res.output


def test_datasets_say_why_20_newsgroups_counts_18846_and_its_view_18845():
    for command in ("list", "views"):
        res = run_cli("datasets", command)
        assert ("20newsgroups: 18846 documents, 1 of them with no term left after tokenising, "
                "which the views rcf_20newsgroups, 20newsgroups_all drop (drop_empty): 18845 "
                "in 20newsgroups_all") in res.output


def test_an_inline_view_reads_as_keys_and_values():
    from docfact.report.tables import view_words

    assert view_words({"dataset": "news.csv", "min_docs": 20}) == "dataset: news.csv, min_docs: 20"
    assert view_words("gnmf_tdt2") == "gnmf_tdt2"


def test_a_method_that_fails_says_why_in_one_line(tmp_path):
    """A method whose every run fails (p beyond the draw's documents) is recorded as failed;
    the run says how many failed and the first reason, beside the n/a in its table, and exits
    non-zero: a table without that method's rows is no result. A sweep to such a value too."""
    cfg = small_config(tmp_path, runs=1, k=(2,))
    raw = yaml.safe_load(open(cfg))
    raw["methods"]["GNMF"]["p"] = 100000
    with open(cfg, "w") as f:
        yaml.safe_dump(raw, f)
    res = run_cli("run", cfg, "--out", tmp_path / "out", "--jobs", 1, "--quiet")
    assert res.exit_code == 1, res.output
    notes = [line for line in res.output.splitlines() if "failed on" in line]
    assert len(notes) == 2 and notes[0].startswith("docfact: note: GNMF failed on 1 of 1 runs: "
                                                   "ValueError: p must be in [1, ")
    assert res.output.splitlines()[-1] == ("docfact: error: GNMF failed on every run (the note "
                                           "above says why)")
    runs = pd.read_csv(tmp_path / "out" / "runs.csv")
    assert list(runs[runs.method == "GNMF"].status) == ["failed"]
    raw["methods"]["GNMF"]["p"] = 3
    with open(cfg, "w") as f:
        yaml.safe_dump(raw, f)
    res = run_cli("sweep", cfg, "--param", "GNMF.p=3,100000", "--out", tmp_path / "sweep",
                  "--jobs", 1)
    assert res.exit_code == 1, res.output
    assert "docfact: note: GNMF failed on 1 of 1 runs" in res.output
    assert res.output.splitlines()[-1].startswith("docfact: error: GNMF failed on every run")
    res = run_cli("sweep", cfg, "--param", "GNMF.p=3,4", "--out", tmp_path / "sweep",
                  "--jobs", 1)
    assert res.exit_code == 0 and "failed on" not in res.output, res.output


def test_the_full_tables_time_is_found_beside_its_config_from_any_folder(tmp_path, monkeypatch):
    """The committed table's time is read from results/ beside the config's configs/ folder,
    also when the command runs elsewhere; the rows it takes from another table are not
    counted (rcf_20newsgroups_t20 takes KMeans, CF and LCCF from the t = 2% table)."""
    from docfact.cli.run import _time_here

    monkeypatch.chdir(tmp_path)
    name = "rcf_20newsgroups_t20"
    config = ROOT / "configs" / f"{name}.yaml"
    line = _time_here(name, config, tmp_path / "out")
    fits = pd.read_csv(ROOT / f"results/{name}/timings.csv")["seconds"]
    assert (fits == 0).sum() > 0
    assert line.startswith(f" ({fits.sum() / 60:.0f} CPU-minutes as recorded in ")
    assert (f"{name}, not counting the {(fits == 0).sum()} of its {len(fits)} fits taken "
            "from other tables: about ") in line and "on this machine's " in line
    assert "without" not in line
    # a method of one's own added to the paper's table: its time is not there, and said so
    line = _time_here(name, config, tmp_path / "out", ["KMeans", "RCF", "MyMF"])
    assert line.endswith(" cores; without MyMF, which it does not hold)"), line
    assert _time_here("no_such_table", config, tmp_path) == ""
    # not from the folder the command just wrote, which holds only the runs it asked
    assert _time_here(name, config, ROOT / "results" / name) == ""
    # a table that takes nothing says nothing of it
    line = _time_here("gnmf_tdt2", ROOT / "configs" / "gnmf_tdt2.yaml", tmp_path / "out")
    assert "on this machine's " in line and "not counting" not in line


def test_a_table_says_before_computing_what_its_committed_fits_took(tmp_path, monkeypatch):
    """The runs asked, at the committed seeds, are the committed fits: their recorded CPU
    seconds over the workers, said before computing; nothing when the committed table lacks
    some run asked, when it took fits from another table, or when resuming."""
    from docfact.cli.run import _time_ahead
    from docfact.experiment.plan import load

    monkeypatch.chdir(tmp_path)
    config = load(ROOT / "configs" / "gnmf_tdt2.yaml").with_overrides(k=[2, 10], runs=3)
    fits = pd.read_csv(ROOT / "results/gnmf_tdt2/timings.csv")
    asked = fits[fits.k.isin([2, 10]) & (fits.run < 3)]["seconds"].sum()
    line = _time_ahead(config, ROOT / "configs" / "gnmf_tdt2.yaml", tmp_path / "out", 2)
    assert line == (f"the fits of these 6 runs took {asked:.0f} CPU-seconds as recorded in "
                    f"{ROOT / 'results' / 'gnmf_tdt2'}: about {asked / 2:.0f} s with 2 "
                    "workers, besides loading the data"), line
    more = config.with_overrides(runs=51)  # the committed table holds 50
    assert _time_ahead(more, ROOT / "configs" / "gnmf_tdt2.yaml", tmp_path / "out", 2) is None
    name = "rcf_20newsgroups_t20"  # takes KMeans, CF and LCCF from the t = 2% table (0 s)
    shared = load(ROOT / "configs" / f"{name}.yaml").with_overrides(k=[2], runs=1)
    assert _time_ahead(shared, ROOT / "configs" / f"{name}.yaml", tmp_path / "out", 2) is None
    res = run_cli("run", ROOT / "configs" / "gnmf_tdt2.yaml", "--k", "2", "--runs", 1,
                  "--out", tmp_path / "q", "--jobs", 1, "--quiet")
    assert res.exit_code == 0 and "the fits of this run took" in res.output, res.output
    res = run_cli("run", ROOT / "configs" / "gnmf_tdt2.yaml", "--k", "2", "--runs", 1,
                  "--out", tmp_path / "q", "--jobs", 1, "--quiet")
    assert res.exit_code == 0 and "the fits of" not in res.output, res.output


def test_a_reader_that_leaves_ends_the_output_quietly(tmp_path):
    """docfact ... | true (a reader gone before the first line): no error line, and the exit
    status of a closed pipe, 141."""
    import subprocess
    import sys

    out = subprocess.run(f"'{sys.executable}' -m docfact datasets list | true; "
                         "exit ${PIPESTATUS[0]}", shell=True, executable="/bin/bash",
                         capture_output=True, text=True, cwd=tmp_path)
    assert (out.returncode, out.stderr) == (141, "")
