"""The committed report is the ledger: recomputed from the committed runs, it must not move.

results/REPRODUCTION.csv holds every table's rows (published, ours, 95% interval, verdict). A
commit that changes a table's runs.csv without regenerating the report, or the report without
the runs, fails here; a commit whose code changes a table's runs fails test_check's bitwise
recomputation of the table's check pairs, which every table has.
"""

import difflib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from docfact.cli import main
from docfact.config import dump_yaml, load_config
from docfact.errors import ConfigError
from docfact.experiment import plan
from docfact.experiment.results import read_manifest
from docfact.experiment.runner import result_folders
from docfact.experiment.store import RunStore
from docfact.report.fidelity import ledger
from tests.test_check import COMMITTED
from tests.test_runner import small_config

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


def _changes(old: str, new: str) -> str:
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), "committed", "recomputed",
                                 n=0, lineterm="")
    return "\n".join(list(lines)[:20])


def test_committed_report_equals_the_ledger_recomputed_from_the_runs():
    committed = (ROOT / "results" / "REPRODUCTION.csv").read_text()
    fresh = ledger(ROOT / "results")
    assert fresh == committed, ("results/REPRODUCTION.csv differs from the committed runs "
                                "(regenerate it with `docfact report`):\n"
                                + _changes(committed, fresh))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_table_is_committed_and_its_check_pairs_recomputed(path):
    """Every config's results are committed, so test_committed_results_reproduce recomputes
    its check pairs bitwise (pairs among the committed runs)."""
    config = load_config(path)
    assert path in COMMITTED, f"{config.name}: no committed results, so nothing checks them"
    pairs = config.check["pairs"]
    assert pairs and all(r < config.runs for _, r in pairs), pairs


def test_every_committed_folder_reads_back_as_the_protocol_of_its_runs():
    """Each results folder's config.yaml (tables, sweeps' values and baselines) passes the
    checks of `docfact run` and hashes to its manifest's protocol: rerunning it resumes."""
    wrong = []
    for folder in result_folders(ROOT / "results"):
        try:
            config = plan.load(folder / "config.yaml")
        except ConfigError as e:
            wrong.append(str(e))
            continue
        if config.protocol_hash() != read_manifest(folder)["protocol_hash"]:
            wrong.append(f"{folder}: protocol hash differs from its manifest's")
    assert not wrong, "\n".join(wrong)


def test_every_committed_folder_is_as_the_store_writes_it(tmp_path):
    """Resuming a complete committed folder (as `docfact run` on a committed table does) keeps
    its runs.csv and timings.csv byte for byte: the store's rewrite of each is the file itself."""
    moved = []
    for folder in result_folders(ROOT / "results"):
        copy = tmp_path / "copy"
        shutil.rmtree(copy, ignore_errors=True)
        copy.mkdir()
        for name in ("runs.csv", "timings.csv"):
            shutil.copy(folder / name, copy / name)
        RunStore(copy).load([m.name for m in plan.load(folder / "config.yaml").methods])
        moved += [f"{folder / name}" for name in ("runs.csv", "timings.csv")
                  if (copy / name).read_bytes() != (folder / name).read_bytes()]
    assert not moved, "rewritten on resume:\n" + "\n".join(moved[:20])


def test_the_ledger_moves_with_a_changed_run(tmp_path):
    results = tmp_path / "results"
    cfg = small_config(tmp_path, runs=2, k=(2, 3), name="gnmf_small")
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(results / "gnmf_small"),
                                    "--quiet", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    before = ledger(results)
    assert "gnmf_small,table,GNMF,AC,0.9760" in before
    runs = results / "gnmf_small" / "runs.csv"
    lines = runs.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if ",GNMF,ok," in line)
    fields = lines[i].split(",")
    fields[4] = "0.5" if fields[4] != "0.5" else "0.25"  # one run's AC
    lines[i] = ",".join(fields)
    runs.write_text("\n".join(lines) + "\n")
    after = ledger(results)
    assert after != before
    assert "gnmf_small,table,GNMF,AC" in _changes(before, after)


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_every_tables_folder_holds_its_config_as_run_writes_it(path):
    """results/<table>/config.yaml is the config as `docfact run` writes it today, notes
    included: an edit of a config's words reaches its folder's copy, its tables.md and the
    report (rerun the table, which resumes with nothing to compute, then `docfact report`)."""
    config = load_config(path)
    copy = ROOT / "results" / config.name / "config.yaml"
    assert copy.read_text() == dump_yaml(config.raw), (
        f"{copy} differs from {path.relative_to(ROOT)}: "
        + _changes(copy.read_text(), dump_yaml(config.raw)))


def test_a_computation_that_changed_under_the_same_words_changes_its_hash(monkeypatch):
    """HHt, PSPt and LCF looped in float64 before they honoured numerics float32, and best_by
    objective compared a fixed-length fit's objective at the choice of its start: the keys of
    such records carry a mark, so that records made before are not resumed by the new code.
    The committed tables have neither (their folders still hash to their manifests: above)."""
    import docfact.config as config_module
    from docfact.config import parse_config

    monkeypatch.setattr(config_module, "digest", lambda key: key)  # the key, not its hash
    monkeypatch.setattr(plan, "digest", lambda key: key)
    committed = plan.load(ROOT / "configs" / "lcf_yale.yaml")
    assert "objective" not in committed.protocol_hash()  # its fits stop on the running mean
    raw = load_config(ROOT / "configs" / "lcf_yale.yaml").raw
    raw["methods"]["LCF"]["max_iter"] = 100
    raw["methods"]["LCF"]["numerics"] = {"precision": "float32"}
    changed = plan.resolve(parse_config(raw, "changed"))
    lcf = next(m for m in changed.methods if m.name == "LCF")
    cf = next(m for m in changed.methods if m.name == "CF")
    assert changed.protocol_hash()["objective"] == "final"
    assert plan.row_key(changed, lcf)["objective"] == "final"
    assert "objective" not in plan.row_key(changed, cf)  # CF stops on the running mean
    assert {"loop": "float32"} in lcf.key() and {"loop": "float32"} not in cf.key()
    # track_objective leaves the factors, not the recorded objective of a fixed-length fit
    raw["methods"]["CF"]["track_objective"] = True
    tracked = plan.resolve(parse_config(raw, "tracked"))
    assert plan.row_key(tracked, next(m for m in tracked.methods if m.name == "CF")) != \
        plan.row_key(changed, cf)
