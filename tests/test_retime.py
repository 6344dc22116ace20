"""bench/retime.py, which rewrites the seconds of committed tables: only when every record
recomputes to the committed one, and never the 0 s of a row taken from another folder."""

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from tests.test_runner import run_cli, semi_config

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "retime.py"


@pytest.fixture(scope="module")
def retime():
    spec = importlib.util.spec_from_file_location("retime", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _table(tmp_path) -> Path:
    """A table that takes CF from the folder beside it (0 s) and computes CCF and RCF, its
    computed rows' seconds set to 1000."""
    results = tmp_path / "results"
    donor = semi_config(tmp_path, labelled=0.1)
    assert run_cli("run", donor, "--out", results / "semi", "--quiet", "--jobs", 1).exit_code == 0
    cfg = semi_config(tmp_path, labelled=0.3, name="semi_t30", shares="semi")
    folder = results / "semi_t30"
    assert run_cli("run", cfg, "--out", folder, "--quiet", "--jobs", 1).exit_code == 0
    timings = pd.read_csv(folder / "timings.csv")
    timings.loc[timings.seconds > 0, "seconds"] = 1000.0
    timings.to_csv(folder / "timings.csv", index=False)
    return folder


def test_retime_gives_computed_rows_new_seconds_and_taken_rows_keep_zero(tmp_path, retime):
    folder = _table(tmp_path)
    assert retime.computed_here(folder) == ["CCF", "RCF"]
    runs = (folder / "runs.csv").read_bytes()
    replaced = retime.retime(folder, ["CF", "CCF", "RCF"], 1)
    assert sorted(m for _, _, m in replaced) == ["CCF", "RCF"]
    seconds = pd.read_csv(folder / "timings.csv").set_index("method")["seconds"]
    assert seconds["CF"] == 0
    assert ((seconds[["CCF", "RCF"]] > 0) & (seconds[["CCF", "RCF"]] < 1000)).all()
    assert (folder / "runs.csv").read_bytes() == runs
    assert {old for old, _ in replaced.values()} == {1000.0}
    assert sorted(new for _, new in replaced.values()) == sorted(seconds[["CCF", "RCF"]])


def test_each_folder_retimed_adds_a_line_to_the_ledger(tmp_path, retime, monkeypatch):
    folder, ledger = _table(tmp_path), tmp_path / "RETIMES.csv"
    for _ in range(2):
        monkeypatch.setattr("sys.argv", ["retime.py", str(folder), "--ledger", str(ledger)])
        retime.main()
    lines = pd.read_csv(ledger, dtype={"k": str})
    assert list(lines.columns) == retime.LEDGER_FIELDS and len(lines) == 2
    seconds = pd.read_csv(folder / "timings.csv")["seconds"].sum()
    first, second = lines.iloc[0], lines.iloc[1]
    assert (first.k, first.methods, first.rows) == ("all", "CCF RCF", 2)
    assert first.cpu_hours_before == pytest.approx(2000 / 3600, abs=1e-3)
    assert second.cpu_hours_after == pytest.approx(seconds / 3600, abs=1e-3)
    assert first.median_ratio > 1 and first.load_before >= 0


def test_retime_writes_nothing_when_a_record_differs(tmp_path, retime):
    folder = _table(tmp_path)
    runs = pd.read_csv(folder / "runs.csv", dtype=str, keep_default_na=False)
    rcf = runs.index[runs.method == "RCF"][0]
    runs.loc[rcf, "ac"] = "0.5" if runs.loc[rcf, "ac"] != "0.5" else "0.25"
    runs.to_csv(folder / "runs.csv", index=False)
    before = (folder / "timings.csv").read_bytes()
    with pytest.raises(SystemExit, match="recomputes to"):
        retime.retime(folder, retime.computed_here(folder), 1)
    assert (folder / "timings.csv").read_bytes() == before
