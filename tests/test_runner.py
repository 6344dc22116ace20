"""The runner end to end on the mirror data: tables, determinism, resume, bad input."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import yaml
from click.testing import CliRunner
from sklearn.base import BaseEstimator

from docfact.algorithms.registry import ALGORITHMS
from docfact.cli import main
from docfact.config import load_config
from docfact.experiment.methods import Artefacts
from docfact.experiment.store import FIELDS, TIMING_FIELDS, RunStore

FAST = {"n_restarts": 2, "min_iter": 5, "max_iter": 20}


def small_config(tmp_path: Path, runs=2, k=(2, 3), name="small", **extra) -> Path:
    """A GNMF-table config on the real TDT2 data, with few runs and iterations."""
    cfg = {
        "name": name,
        "title": "small GNMF table",
        "data": {"view": "gnmf_tdt2"},
        "protocol": {"k": list(k), "runs": runs, "seed": 7},
        "labels": {"rule": "kmeans", "replicates": 3},
        "methods": {
            "K-means": {"algorithm": "kmeans"},
            "LSI+K-means": {"algorithm": "lsi_kmeans"},
            "NMF": {"algorithm": "nmf", "ncw": True, **FAST},
            "GNMF": {"algorithm": "gnmf", "lambda": 10, **FAST},
        },
        "published": {"source": "GNMF report, Table 2",
                      "ac": {"GNMF": {2: "99.9±0.3", 3: "99.7±0.4", "avg": 97.6}}},
        **extra,
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
    return path


def semi_config(tmp_path, labelled=0.1, name="semi", **extra):
    """An RCF-table config on the real 20 Newsgroups data, k = 2, one run, few iterations."""
    return small_config(
        tmp_path, runs=1, k=(2,), name=name, data={"view": "rcf_20newsgroups"},
        protocol={"k": [2], "runs": 1, "seed": 7, "labelled": labelled},
        labels={"rule": "kmeans", "metric": "cosine", "replicates": 3},
        methods={"CF": {"algorithm": "cf", **FAST},
                 "CCF": {"algorithm": "ccf", **FAST},
                 "RCF": {"algorithm": "rcf", "alpha": 0.5, **FAST}},
        published={"source": "RCF, Table 10", "ac": {"RCF": {2: "99.00±0.67"}}}, **extra)


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_end_to_end_tables(tmp_path):
    out = tmp_path / "out"
    res = run_cli("run", small_config(tmp_path), "--out", out, "--jobs", 1)
    assert res.exit_code == 0, res.output
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 2 * 2 * 4 and (runs["status"] == "ok").all()
    assert runs[["k", "run", "method"]].duplicated().sum() == 0
    assert runs["ac"].between(0, 1).all() and runs["nmi"].between(0, 1).all()
    # the same two classes for every method of a run
    assert (runs.groupby(["k", "run"])["classes"].nunique() == 1).all()
    # two TDT2 topics are easy: even 20 GNMF iterations separate them well
    assert runs.loc[(runs.method == "GNMF") & (runs.k == 2), "ac"].mean() > 0.85
    md = (out / "tables.md").read_text()
    assert "(99.9)" in md and "Δ" in md and "## Accuracy (%)" in md
    ac = pd.read_csv(out / "ac.csv", index_col=0)
    assert ac.loc["2", "GNMF mean"] == pytest.approx(
        runs.loc[(runs.method == "GNMF") & (runs.k == 2), "ac"].mean(), abs=1e-6)
    shown = run_cli("show", out)
    assert shown.exit_code == 0 and shown.output.strip() == md.strip()


def test_same_seed_same_bytes_for_any_number_of_jobs(tmp_path):
    cfg = small_config(tmp_path)
    assert run_cli("run", cfg, "--out", tmp_path / "a", "--jobs", 1, "--quiet").exit_code == 0
    assert run_cli("run", cfg, "--out", tmp_path / "b", "--jobs", 2, "--quiet").exit_code == 0
    assert (tmp_path / "a/runs.csv").read_bytes() == (tmp_path / "b/runs.csv").read_bytes()
    # a complete folder run again, with other jobs, computes nothing and changes no byte
    files = {f: f.read_bytes() for f in (tmp_path / "a").iterdir()}
    assert run_cli("run", cfg, "--out", tmp_path / "a", "--jobs", 2, "--quiet").exit_code == 0
    assert {f: f.read_bytes() for f in (tmp_path / "a").iterdir()} == files


def test_records_keep_their_bytes_when_a_resume_rewrites_them(tmp_path):
    """A k-means row (no objective) and a failed row (no scores) appended, then read back as a
    resume does (which rewrites both files): not one byte changes."""
    (tmp_path / "runs.csv").write_text(",".join(FIELDS) + "\n")
    (tmp_path / "timings.csv").write_text(",".join(TIMING_FIELDS) + "\n")
    store = RunStore(tmp_path)
    common = {"k": 2, "run": 0, "n_docs": 10, "classes": "1 2", "notes": ""}
    rows = [{**common, "method": "KMeans", "status": "ok", "ac": 0.9, "nmi": 0.5,
             "n_iter": None, "objective": None},
            {**common, "method": "NMF", "status": "failed", "error": "DataError: empty"}]
    store.append(rows, [{"k": 2, "run": 0, "method": m, "seconds": 0.1}
                        for m in ("KMeans", "NMF")])
    before = [(tmp_path / f).read_bytes() for f in ("runs.csv", "timings.csv")]
    assert len(store.load(["KMeans", "NMF"])) == 1
    assert [(tmp_path / f).read_bytes() for f in ("runs.csv", "timings.csv")] == before


def test_resume_after_sigkill(tmp_path):
    cfg = small_config(tmp_path, runs=3, k=(2, 3, 4))
    clean = tmp_path / "clean"
    assert run_cli("run", cfg, "--out", clean, "--jobs", 1, "--quiet").exit_code == 0
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "docfact", "run", str(cfg), "--out", str(out),
           "--jobs", "1", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    runs_csv = out / "runs.csv"
    deadline = time.time() + 120
    while time.time() < deadline and (not runs_csv.exists() or
                                      runs_csv.read_text().count("\n") < 6):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = pd.read_csv(runs_csv)
    assert 0 < len(partial) < 36, "the kill should land mid-protocol"
    walls = json.loads((out / "manifest.json").read_text())["wall_seconds"]
    assert len(walls) == 1  # the killed session's time up to its last run (0.0 when the kill
    # lands before the second run's manifest and the first took < 50 ms)
    assert run_cli("run", cfg, "--out", out, "--jobs", 1, "--quiet").exit_code == 0
    assert runs_csv.read_bytes() == (clean / "runs.csv").read_bytes()
    assert len(json.loads((out / "manifest.json").read_text())["wall_seconds"]) == 2


def test_truncated_records_are_recomputed(tmp_path):
    cfg = small_config(tmp_path)
    out = tmp_path / "out"
    assert run_cli("run", cfg, "--out", out, "--quiet").exit_code == 0
    good = (out / "runs.csv").read_bytes()
    (out / "runs.csv").write_bytes(good[: len(good) - 40])  # cut inside the last run's rows
    assert run_cli("run", cfg, "--out", out, "--quiet").exit_code == 0
    assert (out / "runs.csv").read_bytes() == good


class Exploding(BaseEstimator):
    """A stand-in estimator that fails on k = 3, as a diverging factorization would."""

    _parameter_constraints = {"n_components": [int], "random_state": [int, None]}

    def __init__(self, n_components, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def fit_transform(self, X):
        if self.n_components == 3:
            raise FloatingPointError("the factors contain NaN or Inf")
        self.n_iter_, self.objective_ = 1, [0.0]
        return np.eye(X.shape[0], self.n_components) + 0.1


def test_a_failing_run_is_recorded_and_counted(tmp_path, monkeypatch):
    monkeypatch.setitem(ALGORITHMS, "exploding", Exploding)
    cfg = small_config(tmp_path, runs=2, k=(2, 3))
    raw = yaml.safe_load(cfg.read_text())
    raw["methods"] = {"K-means": {"algorithm": "kmeans"}, "Boom": {"algorithm": "exploding"}}
    raw.pop("published")
    cfg.write_text(yaml.safe_dump(raw))
    out = tmp_path / "out"
    res = run_cli("run", cfg, "--out", out, "--jobs", 1)
    assert res.exit_code == 0, res.output
    runs = pd.read_csv(out / "runs.csv")
    failed = runs[runs.status == "failed"]
    assert set(failed["method"]) == {"Boom"} and set(failed["k"]) == {3} and len(failed) == 2
    assert failed["error"].str.contains("FloatingPointError").all()
    tables = (out / "tables.md").read_text()
    assert "[2 failed]" in tables
    # Boom's average is over k = 2 alone: said, beside K-means' over both
    assert tables.count("[1 of 2 k]") == 2 and tables.count("of 2 k]") == 2


@pytest.mark.parametrize("edit, message", [
    (lambda c: c.update(protocol={"k": [2], "runs": 0}), "protocol.runs"),
    (lambda c: c.update(colour="red"), "unknown key 'colour'"),
    (lambda c: c["methods"].update(X={"algorithm": "nope"}), "unknown algorithm 'nope'"),
    (lambda c: c["methods"]["GNMF"].update({"lambda": -1}), "'lambda' parameter of GNMF"),
    (lambda c: c["methods"]["GNMF"].update(lambada=3), "lambada"),
    (lambda c: c.update(protocol={"k": [2, 31], "runs": 1}), "exceeds the 30 classes"),
    (lambda c: c.update(data={"view": "no_such_view"}), "no_such_view"),
])
def test_bad_config_is_one_line_exit_2_nothing_written(tmp_path, edit, message):
    cfg = small_config(tmp_path)
    raw = yaml.safe_load(cfg.read_text())
    edit(raw)
    cfg.write_text(yaml.safe_dump(raw))
    out = tmp_path / "out"
    res = run_cli("run", cfg, "--out", out)
    assert res.exit_code == 2
    assert message in res.output and res.output.count("\n") == 1, res.output
    assert "Traceback" not in res.output
    assert not out.exists()


def test_malformed_yaml_and_options(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("data: {view: gnmf_tdt2\nprotocol: [")
    res = run_cli("run", bad, "--out", tmp_path / "o")
    assert res.exit_code == 2 and "invalid YAML at line" in res.output
    res = run_cli("run", small_config(tmp_path), "--runs", 0, "--out", tmp_path / "o")
    assert res.exit_code == 2 and "--runs" in res.output
    assert not (tmp_path / "o").exists()
    blocker = tmp_path / "file"
    blocker.write_text("")
    res = run_cli("run", small_config(tmp_path), "--out", blocker / "sub")
    assert res.exit_code == 2 and "not a writable folder" in res.output


def test_changed_protocol_is_not_mixed_into_old_results(tmp_path):
    cfg = small_config(tmp_path, runs=1, k=(2,))
    out = tmp_path / "out"
    assert run_cli("run", cfg, "--out", out, "--quiet").exit_code == 0
    raw = yaml.safe_load(cfg.read_text())
    raw["protocol"]["seed"] = 8
    cfg.write_text(yaml.safe_dump(raw))
    res = run_cli("run", cfg, "--out", out, "--quiet")
    assert res.exit_code == 2 and "--fresh" in res.output
    assert run_cli("run", cfg, "--out", out, "--quiet", "--fresh").exit_code == 0


def test_records_of_another_format_are_not_resumed(tmp_path):
    cfg = small_config(tmp_path, runs=1, k=(2,))
    out = tmp_path / "out"
    assert run_cli("run", cfg, "--out", out, "--quiet").exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["records"]  # as written before runs.csv had its notes column
    (out / "manifest.json").write_text(json.dumps(manifest))
    res = run_cli("run", cfg, "--out", out, "--quiet")
    assert res.exit_code == 2 and "another docfact version (format 1, now 2)" in res.output
    res = run_cli("show", out)  # nor read: its runs.csv lacks columns the tables rely on
    assert res.exit_code == 2 and "another docfact version (format 1, now 2)" in res.output


def test_duplicate_documents_are_noted_per_run(tmp_path):
    """Each run's rows say how many of its weighted documents repeat another exactly."""
    from docfact.datasets import load, resolve_view
    from docfact.datasets.stats import duplicate_documents
    from docfact.datasets.views import apply_view
    from docfact.experiment.plan import Plan
    from docfact.experiment.runner import data_notes

    assert data_notes(sp.csr_matrix(np.array([[1.0, 0], [0, 1], [1, 0], [1, 0]]))) == (
        "2 duplicate documents")
    assert data_notes(sp.csr_matrix(np.eye(3))) == ""
    # noting must leave the run's matrix as it was: index order decides the order of the sums
    unsorted = sp.csr_matrix((np.array([2.0, 1.0, 3.0]), np.array([1, 0, 0]), np.array([0, 2, 3])),
                             shape=(2, 2))
    data_notes(unsorted)
    assert unsorted.indices.tolist() == [1, 0, 0] and unsorted.data.tolist() == [2.0, 1.0, 3.0]
    cfg = small_config(tmp_path, runs=3, k=(2,))
    out = tmp_path / "out"
    assert run_cli("run", cfg, "--out", out, "--quiet").exit_code == 0
    runs = pd.read_csv(out / "runs.csv", keep_default_na=False)
    assert (runs.groupby("run")["notes"].nunique() == 1).all()
    config = load_config(cfg)
    corpus = apply_view(load("tdt2"), resolve_view(config.view))
    for _, row in runs.drop_duplicates("run").iterrows():
        picked = [int(c) for c in row["classes"].split()]
        X = Plan.of(config).prepare(corpus.X[np.isin(corpus.y, picked)])
        d = duplicate_documents(X)
        assert row["notes"] == (f"{d} duplicate documents" if d else "")


def test_twenty_kills_at_random_moments_end_in_the_clean_tables(tmp_path):
    """SIGKILL a run at 20 random moments, resuming each time: the final runs.csv and tables
    are byte-identical to one uninterrupted run, with no lost or duplicated rows.

    Every fourth kill lands while the process starts (loading, before any run is done, or as the
    first is flushed); the others just after a run's records are flushed, within the next run or
    its writing. Moments tied to progress, not to the clock, keep every kill within the protocol
    on any machine: between two kills at most two runs are recorded, 35 of the 40 in all."""
    import random

    cfg = small_config(tmp_path, runs=10, k=(2, 3, 4, 5))
    total = 4 * 10 * 4
    clean = tmp_path / "clean"
    assert run_cli("run", cfg, "--out", clean, "--jobs", 1, "--quiet").exit_code == 0
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "docfact", "run", str(cfg), "--out", str(out), "--jobs", "1",
           "--quiet"]

    def rows():
        runs_csv = out / "runs.csv"
        return runs_csv.read_text().count("\n") - 1 if runs_csv.exists() else 0

    def wait(seconds, proc, beyond):
        """Up to `seconds`, cut short when runs.csv holds more than `beyond` rows."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and rows() <= beyond and proc.poll() is None:
            time.sleep(0.005)

    rng = random.Random(0)
    rows_at_kill = []
    for i in range(20):
        before = rows()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        if i % 4 == 0:
            wait(rng.uniform(0.0, 1.0), proc, before)
        else:
            wait(float("inf"), proc, before)
            wait(rng.uniform(0.0, 0.2), proc, rows())
        assert proc.poll() is None, "the run ended before its kill: lengthen the protocol"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        rows_at_kill.append(rows())
    assert 0 < rows_at_kill[-1] < total, rows_at_kill
    assert run_cli("run", cfg, "--out", out, "--jobs", 1, "--quiet").exit_code == 0
    assert (out / "runs.csv").read_bytes() == (clean / "runs.csv").read_bytes()
    assert (out / "tables.md").read_bytes() == (clean / "tables.md").read_bytes()
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == total and not runs[["k", "run", "method"]].duplicated().any()


def test_a_run_cut_short_holds_the_same_runs_for_every_k(tmp_path, monkeypatch):
    """Runs go round by round (run 0 of every k, then run 1): cut after three of nine runs,
    each k holds run 0, and resuming completes the table."""
    from docfact.experiment import runner

    started, real = [], runner.run_one

    def cut_after_three(*args):
        started.append(1)
        if len(started) > 3:
            raise KeyboardInterrupt
        return real(*args)

    cfg = small_config(tmp_path, runs=3, k=(2, 3, 4))
    out = tmp_path / "out"
    monkeypatch.setattr(runner, "run_one", cut_after_three)
    run_cli("run", cfg, "--out", out, "--jobs", 1, "--quiet")
    runs = pd.read_csv(out / "runs.csv")
    assert sorted(set(zip(runs.k, runs.run, strict=True))) == [(2, 0), (3, 0), (4, 0)]
    monkeypatch.setattr(runner, "run_one", real)
    assert run_cli("run", cfg, "--out", out, "--jobs", 1, "--quiet").exit_code == 0
    assert len(pd.read_csv(out / "runs.csv")) == 3 * 3 * 4


def test_each_round_deals_its_largest_k_first(tmp_path, monkeypatch):
    """Round by round, the largest k first in each round (the slowest runs are not left for
    the end), and the records are those of any other order."""
    from docfact.experiment import runner
    from docfact.experiment.plan import Plan

    dealt, real = [], runner.run_one

    def record(plan, task, *args):
        dealt.append((task.k, task.run))
        return real(plan, task, *args)

    cfg = small_config(tmp_path, runs=2, k=(3, 2, 4))
    monkeypatch.setattr(runner, "run_one", record)
    assert run_cli("run", cfg, "--out", tmp_path / "out", "--jobs", 1, "--quiet").exit_code == 0
    assert dealt == [(4, 0), (3, 0), (2, 0), (4, 1), (3, 1), (2, 1)]
    monkeypatch.setattr(runner, "run_one", real)
    plan = Plan.of(load_config(cfg), [(2, 0), (2, 1), (3, 0), (3, 1), (4, 0), (4, 1)])
    runner.run(plan, tmp_path / "ascending", jobs=1, progress=False)
    assert ((tmp_path / "out" / "runs.csv").read_bytes()
            == (tmp_path / "ascending" / "runs.csv").read_bytes())


def test_a_table_that_shares_takes_the_rows_of_identical_methods(tmp_path):
    """shares: NAME takes, from the folder NAME beside the table's, the rows of the methods
    whose inputs are the same there (CF; CCF and RCF see other labels), in no time; the
    records are those of computing every method."""
    results = tmp_path / "results"
    donor = semi_config(tmp_path, labelled=0.1)
    assert run_cli("run", donor, "--out", results / "semi", "--quiet", "--jobs", 1).exit_code == 0
    cfg = semi_config(tmp_path, labelled=0.3, name="semi_t30", shares="semi")
    for out in (results / "semi_t30", tmp_path / "alone"):
        assert run_cli("run", cfg, "--out", out, "--quiet", "--jobs", 1).exit_code == 0
    shared, alone = results / "semi_t30", tmp_path / "alone"
    assert (shared / "runs.csv").read_bytes() == (alone / "runs.csv").read_bytes()
    seconds = pd.read_csv(shared / "timings.csv").set_index("method")["seconds"]
    assert seconds["CF"] == 0 and (seconds[["CCF", "RCF"]] > 0).all()
    assert (pd.read_csv(alone / "timings.csv")["seconds"] > 0).all()
    assert json.loads((shared / "manifest.json").read_text())["shares"] == "semi"


def test_donors_give_a_fresh_table_the_rows_of_identical_methods(tmp_path):
    """--donors DIR: a table rerun --fresh under another labelled fraction takes, from a copy
    of its former folder, the rows of the methods the fraction does not touch (CF), with the
    seconds the copy recorded for them; the records are those of computing every method."""
    import shutil

    out, copy = tmp_path / "table", tmp_path / "before"
    assert run_cli("run", semi_config(tmp_path, labelled=0.1), "--out", out, "--quiet",
                   "--jobs", 1).exit_code == 0
    shutil.copytree(out, copy)
    cfg = semi_config(tmp_path, labelled=0.3)  # the same table, its config edited
    res = run_cli("run", cfg, "--out", out, "--fresh", "--donors", copy, "--quiet", "--jobs", 1)
    runs = len(pd.read_csv(copy / "runs.csv")) // 3  # CF, CCF, RCF
    assert res.exit_code == 0 and (f"{runs} of their {3 * runs} rows (run x method) taken from "
                                   "other folders") in res.output, res.output
    assert run_cli("run", cfg, "--out", tmp_path / "alone", "--quiet", "--jobs", 1).exit_code == 0
    assert (out / "runs.csv").read_bytes() == (tmp_path / "alone" / "runs.csv").read_bytes()
    before = pd.read_csv(copy / "timings.csv").set_index(["k", "run", "method"])["seconds"]
    after = pd.read_csv(out / "timings.csv").set_index(["k", "run", "method"])["seconds"]
    cf = after.index.get_level_values("method") == "CF"
    assert (after[cf] > 0).all() and after[cf].equals(before[cf])
    # CCF and RCF computed again: their records moved with the fraction (seconds rounded to
    # 0.1 ms may repeat by chance, so they cannot tell)
    old, new = (pd.read_csv(d / "runs.csv").set_index(["k", "run", "method"])
                for d in (copy, out))
    semi = new.index.get_level_values("method") != "CF"
    assert not new[semi].equals(old[semi]) and new[~semi].equals(old[~semi])
    # a donor of another seed holds none of these documents: said in one line
    other = tmp_path / "seeded.yaml"
    other.write_text(Path(cfg).read_text().replace("seed: 7", "seed: 8"))
    res = run_cli("run", other, "--out", tmp_path / "other", "--donors", copy, "--quiet",
                  "--jobs", 1)
    assert res.exit_code == 0 and (f"no row taken from --donors {copy}: none holds these "
                                   "runs' documents") in res.output, res.output


def test_a_donor_row_keeps_the_seconds_of_the_folder_that_computed_it(tmp_path):
    """A donor that took a row in turn recorded 0 s for it: the row gets the seconds of the
    donor that computed it, whatever the order of the donors; a row that no donor computed
    (every one recorded 0 s) is computed again, with its seconds and the same record."""
    import shutil

    first, second = tmp_path / "first", tmp_path / "second"
    cfg = semi_config(tmp_path, labelled=0.1)
    assert run_cli("run", cfg, "--out", first, "--quiet", "--jobs", 1).exit_code == 0
    shutil.copytree(first, second)
    timings = pd.read_csv(second / "timings.csv")
    timings.assign(seconds=0.0).to_csv(second / "timings.csv", index=False)
    out = tmp_path / "table"
    assert run_cli("run", cfg, "--out", out, "--donors", second, "--donors", first, "--quiet",
                   "--jobs", 1).exit_code == 0
    assert pd.read_csv(out / "timings.csv").equals(pd.read_csv(first / "timings.csv"))
    alone = tmp_path / "alone"
    assert run_cli("run", cfg, "--out", alone, "--donors", second, "--quiet",
                   "--jobs", 1).exit_code == 0
    assert (alone / "runs.csv").read_bytes() == (first / "runs.csv").read_bytes()
    assert (pd.read_csv(alone / "timings.csv")["seconds"] > 0).all()


def test_a_fit_records_its_cpu_seconds_not_the_time_it_waited(tmp_path, monkeypatch):
    """timings.csv holds each fit's CPU seconds: a fit that waits 0.5 s (as one does on a
    machine shared with other work) records less than half of it; one that computes for 0.5 s
    records at least that. No method fits: every one returns one cluster at once."""
    from docfact.experiment import runner

    def waits(m, artefacts, k, seed, y, *args):
        if m.name == "NMF":
            time.sleep(0.5)
        else:
            t = time.process_time()
            while time.process_time() - t < 0.5:
                pass
        return {"labels": np.zeros(len(y), dtype=int)}, 0.0

    monkeypatch.setattr(runner, "best_of", waits)
    out = tmp_path / "out"
    res = run_cli("run", small_config(tmp_path, runs=1, k=(2,)), "--out", out, "--quiet",
                  "--jobs", 1)
    assert res.exit_code == 0, res.output
    seconds = pd.read_csv(out / "timings.csv").set_index("method")["seconds"]
    assert seconds["NMF"] < 0.25 and (seconds.drop("NMF") >= 0.5).all()


def test_a_config_whose_yaml_would_not_read_back_is_not_run(tmp_path):
    """The runner writes config.yaml from config.raw: a config built in code whose raw does
    not hold its methods (or holds protocol.labelled that none uses) would leave a folder
    that `docfact run` on its own config.yaml cannot resume; nothing is written."""
    import dataclasses

    from docfact.errors import ConfigError
    from docfact.experiment.plan import Plan
    from docfact.experiment.runner import run

    config = load_config(semi_config(tmp_path))
    cf = tuple(m for m in config.methods if m.name == "CF")
    out = tmp_path / "out"
    for wrong in (dataclasses.replace(config, methods=cf),
                  dataclasses.replace(config, methods=cf, raw={
                      **config.raw, "methods": {"CF": config.raw["methods"]["CF"]}})):
        with pytest.raises(ConfigError, match=r"out/config.yaml"):
            run(Plan.of(wrong), out, jobs=1, progress=False)
    assert not out.exists()


def test_a_second_run_on_the_same_folder_is_refused_naming_the_holder(tmp_path):
    from docfact.experiment.store import Lock

    out = tmp_path / "out"
    out.mkdir()
    with Lock(out):
        res = run_cli("run", small_config(tmp_path), "--out", out)
    assert res.exit_code == 1 and f"in use by process {os.getpid()}" in res.output
    assert not (out / "runs.csv").exists()


@pytest.mark.parametrize("by", ["ac", "objective"])
def test_best_of_keeps_the_best_sub_run(tmp_path, by):
    """protocol.best_of: each record is the sub-run of highest AC (best_by: ac, the LCF paper's
    literal protocol) or of lowest objective (best_by: objective: the factorization's, k-means'
    sum of distances) among the method seed's children, recomputed here sub-run by sub-run."""
    from docfact import metrics
    from docfact.experiment.plan import Plan

    cfg = {"name": "faces", "data": {"view": "lcf_yale", "weighting": "l2"},
           "protocol": {"k": [3], "runs": 2, "seed": 3, "best_of": 4,
                        **({"best_by": by} if by != "ac" else {})},
           "labels": {"rule": "kmeans", "replicates": 2},
           "methods": {"Kmeans": {"algorithm": "kmeans", "n_replicates": 1},
                       "NMF": {"algorithm": "nmf", "n_restarts": 1, "max_iter": 15}}}
    path = tmp_path / "faces.yaml"
    path.write_text(yaml.safe_dump(cfg))
    out = tmp_path / "out"
    assert run_cli("run", path, "--out", out, "--quiet", "--jobs", 1).exit_code == 0
    runs = pd.read_csv(out / "runs.csv")
    plan = Plan.of(load_config(path))
    corpus = plan.corpus()
    spread = []
    for row in runs.itertuples():
        task = plan.task(plan.base_matrix(corpus), corpus.y, row.k, row.run)
        artefacts = Artefacts(plan.prepare(task.X))
        method = next(m for m in plan.config.methods if m.name == row.method)
        final = {"track_objective": True} if by == "objective" and method.factorizes else {}
        subs = [method.cluster(artefacts, row.k, s, **final)  # the final objective of each
                for s in plan.seed(task, row.method).spawn(4)]
        acs = [metrics.accuracy(task.y, s["labels"]) for s in subs]
        objectives = [s.get("objective", s.get("inertia")) for s in subs]
        assert row.ac == (max(acs) if by == "ac" else acs[int(np.argmin(objectives))])
        spread.append((max(acs) - min(acs), max(acs) - row.ac))
    # the sub-runs differ; by objective, some run keeps a sub-run of less than the best AC
    assert max(s[0] for s in spread) > 0
    assert (max(s[1] for s in spread) > 0) == (by == "objective")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["best_of"] == 4 and manifest.get("best_by", "ac") == by
    words = {"ac": "AC", "objective": "lowest objective"}[by]
    assert f"each run the best (by {words}) of 4 sub-runs" in (out / "tables.md").read_text()
    raw = yaml.safe_load(path.read_text())
    raw["protocol"]["best_of"] = 1  # another protocol: not mixed into these records
    path.write_text(yaml.safe_dump(raw))
    assert run_cli("run", path, "--out", out, "--quiet").exit_code == 2


@pytest.mark.parametrize("protocol, message", [
    ({"best_by": "objective"}, "only with best_of > 1"),
    ({"best_of": 3, "best_by": "objective"}, "LSI\\+K-means report"),
    ({"best_of": 3, "best_by": "nmi"}, "best_by"),
])
def test_best_by_needs_sub_runs_and_methods_with_an_objective(tmp_path, protocol, message):
    raw = yaml.safe_load(small_config(tmp_path).read_text())
    raw["protocol"].update(protocol)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(raw))
    res = run_cli("validate", path)
    assert res.exit_code == 2 and re.search(message, res.output), res.output
    assert len(res.output.strip().splitlines()) == 1


def test_images_reach_the_methods_dense_and_documents_sparse():
    rng = np.random.default_rng(0)
    images = sp.csr_matrix(rng.random((20, 50)))
    documents = sp.random(20, 500, density=0.01, format="csr", random_state=1)
    assert isinstance(Artefacts(images).X, np.ndarray)
    np.testing.assert_array_equal(Artefacts(images).X, images.toarray())
    assert Artefacts(documents).X is documents


def test_plan_draws_are_the_documents_of_the_committed_runs():
    """Plan.draws (what the experiments under results/ refit on) gives each pair the classes
    and documents that `docfact run` recorded for it."""
    from docfact.experiment.plan import Plan
    from docfact.experiment.plan import load as load_plan_config

    root = Path(__file__).resolve().parents[1]
    runs = pd.read_csv(root / "results" / "gnmf_reuters" / "runs.csv", dtype={"classes": str})
    recorded = runs.drop_duplicates(["k", "run"]).set_index(["k", "run"])
    plan = Plan.of(load_plan_config(root / "configs" / "gnmf_reuters.yaml"), [(2, 0), (7, 3)])
    for task, shared in plan.draws():
        row = recorded.loc[(task.k, task.run)]
        assert " ".join(map(str, task.classes)) == row["classes"]
        assert task.X.shape[0] == shared.X.shape[0] == row["n_docs"]


def test_every_method_of_a_run_sees_the_same_documents():
    """scipy sorts the indices of a csr matrix in place (abs(X), sum_duplicates): a method
    doing so to the run's X would make the next methods sum their products in another order,
    their records depending on the methods before them (and a sweep's on its baselines). The
    run's X is read-only, so such a method fails instead; an estimator of one's own gets a
    copy of its own."""
    from docfact.experiment.methods import Artefacts

    X = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 1]), np.array([0, 2, 3])),
                      shape=(2, 3))  # row 0's indices unsorted
    art = Artefacts(X, y_partial=np.array([0, -1]))
    with pytest.raises(ValueError, match="read-only"):
        abs(art.X)
    assert art.X.indices.tolist() == [2, 0, 1]
    shared = (art.graph(1, "binary").data, art.kernel("polynomial", 2), art.y_partial)
    assert not any(a.flags.writeable for a in shared)  # what the run builds once, too


def test_a_method_writing_into_the_runs_documents_stops_the_table(monkeypatch):
    """A docfact method that would sort the run's X in place (abs(X)) is a defect: the table
    stops with one line naming it, rather than recording its runs as failed and averaging the
    others without them."""
    from docfact.algorithms import nmf
    from docfact.errors import DocfactError
    from docfact.experiment.plan import Plan

    fit = nmf.NMF._fit_transform
    monkeypatch.setattr(nmf.NMF, "_fit_transform", lambda self, X, y=None, W=None: (
        abs(X), fit(self, X, y, W))[1])
    from docfact.experiment.runner import run_one

    root = Path(__file__).resolve().parents[1]
    plan = Plan.of(load_config(root / "configs" / "gnmf_reuters.yaml"), [(2, 0)])
    corpus = plan.corpus()
    task = plan.task(plan.base_matrix(corpus), corpus.y, 2, 0)
    with pytest.raises(DocfactError, match=r"methods.NMF \(nmf\) at k = 2 wrote into the run's"):
        run_one(plan, task, {})
