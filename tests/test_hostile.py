"""Hostile inputs: planted links and special files in a results folder, names and sizes that
reach the file system or memory, YAML that expands or nests without end, kills of the main
process alone. Each ends in one line and a non-zero exit, or in the correct result; nothing
outside the output folder changes and no finished run is lost."""

import csv
import io
import itertools
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from docfact.cli import main
from docfact.errors import DocfactError
from docfact.experiment.results import read_runs, read_timings
from docfact.experiment.store import Lock, RunStore

# What a run writes in its folder, and the temporary names of its atomic writes.
WRITTEN = ["runs.csv", "timings.csv", "manifest.json", "config.yaml", ".lock", "ac.csv",
           "nmi.csv", "tables.md", ".write-test"]
WORDS = {"fruit": "apple banana cherry grape lemon mango melon peach",
         "motor": "engine wheel brake gear piston clutch axle torque",
         "space": "planet orbit comet star galaxy nebula quasar rocket"}


def tiny_csv(folder: Path) -> Path:
    """18 short documents of 3 well separated classes."""
    path = folder / "tiny.csv"
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["label", "text"])
    for label, words in WORDS.items():
        terms = words.split()
        for i in range(6):
            w.writerow([label, " ".join(terms[(i + j) % len(terms)] for j in range(5))])
    path.write_text(buf.getvalue())
    return path


def tiny_config(folder: Path, name="tiny", methods=None, **protocol) -> Path:
    cfg = {"name": name, "data": {"view": str(tiny_csv(folder))},
           "protocol": {"k": [2, 3], "runs": 2, "seed": 3, **protocol},
           "labels": {"rule": "kmeans", "replicates": 2},
           "methods": methods or {"KM": {"algorithm": "kmeans"},
                                  "NMF": {"algorithm": "nmf", "max_iter": 30}}}
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
    return path


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(res, code=None):
    assert "Traceback" not in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code != 0 if code is None else res.exit_code == code, res.output
    lines = res.output.splitlines()  # a run's first line says what it computes
    errors = [line for line in lines if line.startswith("docfact: error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0] and len(lines) <= 2, res.output


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """(config, folder) of a complete run of the tiny config."""
    folder = tmp_path_factory.mktemp("clean")
    cfg = tiny_config(folder)
    res = cli("run", cfg, "--out", folder / "out", "--jobs", 1, "--quiet")
    assert res.exit_code == 0, res.output
    return cfg, folder / "out"


def _snapshot(path: Path):
    """Bytes of a file, or (name, bytes) of a folder's files, to compare after a run."""
    if path.is_dir():
        return sorted((p.name, p.read_bytes()) for p in path.iterdir())
    return path.read_bytes()


PLANTS = {
    "symlink to a file": lambda at, outside: at.symlink_to(outside / "victim.txt"),
    "symlink to a folder": lambda at, outside: at.symlink_to(outside),
    "dangling symlink": lambda at, outside: at.symlink_to(outside / "absent"),
    "FIFO": lambda at, outside: os.mkfifo(at),
    "folder": lambda at, outside: at.mkdir(),
}


@pytest.mark.parametrize("state", ["new", "complete"])
@pytest.mark.parametrize("name, kind", list(itertools.product(WRITTEN, PLANTS)))
def test_planted_files_are_refused_and_nothing_outside_changes(tmp_path, clean, state, name,
                                                               kind):
    cfg, done = clean
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("precious\n")
    before = _snapshot(outside)
    out = tmp_path / "out"
    if state == "complete":
        shutil.copytree(done, out)
        (out / name).unlink(missing_ok=True)
    else:
        out.mkdir()
    PLANTS[kind](out / name, outside)
    res = cli("run", cfg, "--out", out, "--jobs", 1, "--quiet")
    assert _snapshot(outside) == before
    assert not (outside / "absent").exists()
    if name == ".write-test":  # the probe takes a new name: the planted one stays untouched
        assert res.exit_code == 0, res.output
        assert (out / "runs.csv").read_bytes() == (done / "runs.csv").read_bytes()
    else:
        one_line_error(res, 1)
        assert f"{out / name} is " in res.output
        if state == "complete" and name != "runs.csv":  # no finished run is lost
            assert (out / "runs.csv").read_bytes() == (done / "runs.csv").read_bytes()


@pytest.mark.parametrize("target", ["runs.csv", "timings.csv", "manifest.json", "tables.md"])
def test_atomic_writes_do_not_follow_a_planted_temporary_name(tmp_path, clean, monkeypatch,
                                                              target):
    """A link planted at the temporary name an atomic write tries first is passed over (the
    temporary file is created with O_EXCL), and the write lands in the folder. Every draw of
    temporary names starts with the planted one (the folder's write probe draws first)."""
    cfg, done = clean
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / f".{target}.planted.tmp").symlink_to(victim)
    real, draws = tempfile._get_candidate_names, []

    def names():
        draws.append(1)
        return itertools.chain(["planted"], real())

    monkeypatch.setattr(tempfile, "_get_candidate_names", names)
    res = cli("run", cfg, "--out", out, "--jobs", 1, "--quiet")
    assert res.exit_code == 0, res.output
    assert len(draws) > 1 and (out / f".{target}.planted.tmp").is_symlink()
    assert victim.read_text() == "precious\n"
    assert (out / "runs.csv").read_bytes() == (done / "runs.csv").read_bytes()


def test_show_writes_nothing_and_reads_a_read_only_folder(tmp_path, clean):
    _, done = clean
    out = tmp_path / "ro"
    shutil.copytree(done, out)
    for f in ("tables.md", "ac.csv", "nmi.csv"):
        (out / f).unlink()
    for p in [*out.iterdir(), out]:
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        before = _snapshot(out)
        res = cli("show", out)
        assert res.exit_code == 0, res.output
        assert res.output.strip() == (done / "tables.md").read_text().strip()
        assert _snapshot(out) == before
    finally:
        out.chmod(0o755)


def test_show_of_a_run_cut_before_its_first_record_says_so(tmp_path, clean, monkeypatch):
    from docfact.experiment import runner

    def cut(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_one", cut)
    out = tmp_path / "cut"
    assert cli("run", clean[0], "--out", out, "--jobs", 1, "--quiet").exit_code == 130
    assert (out / "runs.csv").exists()
    for command in (["show", out], ["show", out, "--format", "csv"],
                    ["show", out, "--format", "latex"], ["plot", "k", out]):
        res = cli(*command)
        one_line_error(res, 1)
        assert f"{out}: no runs recorded yet (docfact run resumes the table)" in res.output
    assert not (out / "k.png").exists()


@pytest.mark.parametrize("names", [["1", "2"], ["a, b", 'say "x"'], ["Ünï", "x;y|z"]])
def test_odd_method_names_keep_their_rows(tmp_path, names):
    """Method names that are numbers, or hold commas and quotes, keep their runs: every run
    recorded once, counted in the table, and a rerun recomputes and drops nothing."""
    cfg = tiny_config(tmp_path, methods={names[0]: {"algorithm": "kmeans"},
                                         names[1]: {"algorithm": "nmf", "max_iter": 30}})
    out = tmp_path / "out"
    assert cli("run", cfg, "--out", out, "--jobs", 1, "--quiet").exit_code == 0
    runs = read_runs(out / "runs.csv")
    assert sorted(runs["method"].unique()) == sorted(names) and len(runs) == 2 * 2 * 2
    assert (runs["status"] == "ok").all() and runs["ac"].between(0, 1).all()
    assert "runs per k: 2;" in (out / "tables.md").read_text()
    records = (out / "runs.csv").read_bytes()
    assert cli("run", cfg, "--out", out, "--quiet").exit_code == 0
    assert (out / "runs.csv").read_bytes() == records


def test_records_with_line_breaks_round_trip(tmp_path):
    """runs.csv is read as CSV: a field holding a line break (an error message, a note) does
    not cut its row, and a complete run is kept."""
    store = RunStore(tmp_path)
    store.load(["A", "B"])  # as a run starts: both files with their header
    rows = [{"k": 2, "run": 0, "method": m, "status": "failed", "ac": float("nan"),
             "nmi": float("nan"), "n_docs": 4, "classes": "1 2", "notes": "two\nlines",
             "error": "ValueError: a\r\nb"} for m in ("A", "B")]
    store.append(rows, [{"k": 2, "run": 0, "method": m, "seconds": 0.5} for m in ("A", "B")])
    done = store.load(["A", "B"])
    assert list(done) == [(2, 0)] and [r["notes"] for r in done[(2, 0)]] == ["two\nlines"] * 2
    assert done[(2, 0)][0]["error"] == "ValueError: a\r\nb"
    assert len(read_runs(tmp_path / "runs.csv")) == 2


@pytest.mark.parametrize("name", ["..", ".", ".hidden", "a/b", "/abs", "x" * 101, ""])
def test_names_that_are_not_folder_names_are_refused(tmp_path, name):
    cfg = tiny_config(tmp_path)
    raw = yaml.safe_load(cfg.read_text())
    raw["name"] = name
    cfg.write_text(yaml.safe_dump(raw))
    res = cli("validate", cfg)
    one_line_error(res, 2)
    assert "(name)" in res.output


@pytest.mark.parametrize("stem", ["..", "."])
def test_a_file_name_that_is_no_folder_name_needs_a_name(tmp_path, stem):
    raw = yaml.safe_load(tiny_config(tmp_path).read_text())
    del raw["name"]
    cfg = tmp_path / f"{stem}.yaml"
    cfg.write_text(yaml.safe_dump(raw))
    res = cli("run", cfg, "--quiet")
    one_line_error(res, 2)
    assert "add a key name:" in res.output and not (Path("results") / stem / "runs.csv").exists()


@pytest.mark.parametrize("protocol, option", [
    ({"k": "2..99999999999"}, ()),
    ({"runs": 10**12}, ()),
    ({"best_of": 10**12}, ()),
    ({}, ("--runs", 10**12)),
    ({}, ("--k", ",".join(map(str, range(2, 2 + 10**6))))),
])
def test_sizes_beyond_memory_are_refused_before_any_folder(tmp_path, protocol, option):
    cfg = tiny_config(tmp_path, **protocol)
    res = cli("run", cfg, "--out", tmp_path / "out", *option)
    one_line_error(res, 2)
    assert "this machine can hold" in res.output and "DOCFACT_MEMORY" in res.output
    assert not (tmp_path / "out").exists()


def test_the_memory_planned_for_moves_the_limit(tmp_path, monkeypatch):
    cfg = tiny_config(tmp_path, runs=600)
    monkeypatch.setenv("DOCFACT_MEMORY", "64M")  # 1024 runs of 16 KiB in a quarter
    one_line_error(cli("validate", cfg), 2)
    monkeypatch.setenv("DOCFACT_MEMORY", "1G")
    assert cli("validate", cfg).exit_code == 0
    for amount in ("lots", "0", "0G", "9" * 400):  # nothing to plan for (or no number at all)
        monkeypatch.setenv("DOCFACT_MEMORY", amount)
        res = cli("validate", cfg)
        one_line_error(res, 2)
        assert "DOCFACT_MEMORY: expected a positive amount" in res.output


def _alias_bomb(levels=9, fan=9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fan)}]" for i in range(1, levels)]
    return "\n".join(lines) + f"\ndata: {{view: *a{levels - 1}}}\n"


@pytest.mark.parametrize("text, message", [
    (_alias_bomb(), "alias *a0"),
    ("[" * 100_000 + "]" * 100_000, "nested deeper than 32 levels"),
    ("- " * 20_000 + "x", "nested deeper"),
    ("{a: " * 50_000 + "1" + "}" * 50_000, "nested deeper"),
    ("runs: " + "9" * 5000, "an integer of more than 4300 digits"),
    ("when: 2020-13-45", "invalid YAML"),
])
def test_yaml_that_expands_or_nests_is_one_line(tmp_path, text, message):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    res = cli("validate", path)
    one_line_error(res, 2)
    assert message in res.output


@pytest.mark.parametrize("data", [b"name: \xff\n", b"\xfe\xff\x00n", b"\x00" * 10,
                                  b"name: ok\nnotes: caf\xe9\n"])
def test_config_bytes_that_are_not_utf8_are_one_line(tmp_path, data):
    path = tmp_path / "c.yaml"
    path.write_bytes(data)
    res = cli("validate", path)
    one_line_error(res, 2)


def test_a_huge_config_is_refused_unread(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("notes: '" + "x" * (2 << 20) + "'\n")
    res = cli("validate", path)
    one_line_error(res, 2)
    assert "1 MiB" in res.output


def test_schema_errors_never_spell_out_a_long_value(tmp_path):
    path = tmp_path / "c.yaml"
    raw = yaml.safe_load(tiny_config(tmp_path).read_text())
    raw["protocol"]["k"] = list(range(2, 100_000)) + ["x"]
    path.write_text(yaml.safe_dump(raw))
    res = cli("validate", path)
    one_line_error(res, 2)
    assert len(res.output) < 400


def _children(pid: int) -> list:
    """Pids of the processes whose parent is `pid`."""
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.append(int(entry.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _loky_workers(pid: int) -> list:
    workers = []
    for p in _children(pid):
        try:
            if b"popen_loky" in Path(f"/proc/{p}/cmdline").read_bytes():
                workers.append(p)
        except OSError:
            continue
    return workers


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def _computing_run(tmp_path, stderr=subprocess.DEVNULL) -> tuple:
    """(process, its two loky workers) of a `docfact run` in a session of its own, once both
    workers compute runs that take minutes."""
    cfg = tiny_config(tmp_path, runs=2, methods={
        "NMF": {"algorithm": "nmf", "max_iter": 10**7, "min_iter": 10**7}})
    proc = subprocess.Popen([sys.executable, "-m", "docfact", "run", str(cfg), "--out",
                             str(tmp_path / "out"), "--jobs", "2", "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=stderr, text=True,
                            start_new_session=True)
    deadline = time.time() + 180
    workers = []
    while time.time() < deadline and proc.poll() is None:
        workers = _loky_workers(proc.pid)
        if len(workers) == 2 and all(_cpu_ticks(p) > 100 for p in workers):  # computing
            break
        time.sleep(0.1)
    return proc, workers


def _signal(proc, who: str, signum) -> None:
    """`signum` to the main process alone or to its whole group."""
    if who == "main":
        os.kill(proc.pid, signum)
    else:
        os.killpg(proc.pid, signum)


def _no_worker_left(workers, within: float = 10) -> list:
    deadline = time.time() + within
    while time.time() < deadline and any(map(_alive, workers)):
        time.sleep(0.1)
    return [p for p in workers if _alive(p)]


def _kill(pids) -> None:
    for p in pids:
        if _alive(p):
            os.kill(p, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("who", ["main", "group"])
def test_a_killed_main_process_leaves_no_worker_computing(tmp_path, who):
    """SIGKILL the main process alone (its workers get no signal) or its whole group while
    two workers compute runs that take minutes: within 10 seconds no worker is left (loky's
    would finish their run first)."""
    proc, workers = _computing_run(tmp_path)
    try:
        assert proc.poll() is None and len(workers) == 2, "kill the run mid-protocol"
        _signal(proc, who, signal.SIGKILL)
        proc.wait()
        left = _no_worker_left(workers)
        assert not left, f"workers still computing after their main process was killed: {left}"
    finally:
        _kill([proc.pid, *workers])
    with Lock(tmp_path / "out"):  # the folder is not left locked: a rerun resumes
        pass


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("who", ["main", "group"])
def test_a_terminated_run_says_so_in_one_line_and_leaves_the_folder_unlocked(tmp_path, who):
    """SIGTERM (a batch system's time limit) to the main process or its whole group while two
    workers compute: one line, exit 143, no lock file and no worker left, as after Ctrl-C
    (formerly: killed by the signal, the lock file and loky's leak warnings left behind)."""
    proc, workers = _computing_run(tmp_path, stderr=subprocess.PIPE)
    try:
        assert proc.poll() is None and len(workers) == 2, "terminate the run mid-protocol"
        _signal(proc, who, signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 143, err
        assert err.splitlines()[-1] == ("docfact: terminated; finished runs are kept, rerun "
                                        "to resume"), err
        assert "Traceback" not in err and "Warning" not in err, err
        assert not (tmp_path / "out" / ".lock").exists()
        assert not _no_worker_left(workers)
    finally:
        _kill([proc.pid, *workers])


def test_a_method_named_by_a_bare_number_is_refused_up_front(tmp_path):
    cfg = tiny_config(tmp_path, methods={1: {"algorithm": "kmeans"}})
    res = cli("run", cfg, "--out", tmp_path / "out")
    one_line_error(res, 2)
    assert "methods name 1" in res.output and "quote a number" in res.output
    assert not (tmp_path / "out").exists()


def test_an_unterminated_quote_names_the_line_it_opens(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('label,text\na,apple pear\nb,"plum\nc,comet star\nd,orbit\n')
    res = cli("datasets", "info", path)
    one_line_error(res, 1)
    assert f"{path}, line 3: a quoted text opened on this line is never closed" in res.output


def test_a_declared_shape_beyond_memory_is_refused_unallocated(tmp_path):
    import numpy as np

    path = tmp_path / "huge.npz"
    np.savez(path, data=np.ones(1), indices=np.zeros(1, np.int32),
             indptr=np.r_[0, np.ones(60, np.int32)], shape=np.array([60, 10**12]),
             format=np.array(b"csr"), labels=np.r_[np.ones(30, int), 2 * np.ones(30, int)])
    res = cli("datasets", "info", path)
    one_line_error(res, 1)
    assert "shape 60 x 1000000000000 exceeds what this machine can hold" in res.output
    assert "DOCFACT_MEMORY" in res.output


def test_a_public_copy_must_be_the_published_bytes(empty_cache, mirror_dir, tmp_path,
                                                   monkeypatch):
    """The mirror's 20 Newsgroups tarball rebuilds the published files: accepted from the
    mirror by its content, refused from a public address (not the published sha256)."""
    import dataclasses

    from docfact.datasets.fetch import fetch
    from docfact.datasets.registry import entry, registry
    from docfact.errors import DataError

    public = (mirror_dir / "20news-bydate.tar.gz").as_uri()
    monkeypatch.setitem(registry(), "20newsgroups",
                        dataclasses.replace(entry("20newsgroups"), urls=(public,)))
    monkeypatch.delenv("DOCFACT_MIRROR")
    with pytest.raises(DataError, match="sha256 mismatch"):
        fetch("20newsgroups")
    assert fetch("20newsgroups", mirror=mirror_dir).exists()


def _copy(clean, tmp_path) -> Path:
    out = tmp_path / "results" / "tiny"
    shutil.copytree(clean[1], out)
    return out


@pytest.mark.parametrize("damage", ["header", "bytes"])
def test_records_that_are_not_docfacts_are_refused_and_kept(tmp_path, clean, damage):
    """A runs.csv whose header is not docfact's (a column renamed) or whose bytes are not text:
    every command that reads it says so in one line, and `run` keeps it as it was instead of
    dropping its rows as damaged ones."""
    out = _copy(clean, tmp_path)
    runs = out / "runs.csv"
    runs.write_bytes(runs.read_bytes().replace(b",ac,", b",AC,", 1) if damage == "header"
                     else bytes(range(256)) * 4)
    before = _snapshot(out)
    for args in (("run", clean[0], "--out", out, "--jobs", 1, "--quiet"), ("show", out),
                 ("plot", "k", out), ("report", "--results", out.parent),
                 ("check", clean[0], "--results", out.parent)):
        res = cli(*args)
        one_line_error(res)
        assert f"{runs}" in res.output and "not docfact's" in res.output, (args, res.output)
    assert _snapshot(out) == before


@pytest.mark.parametrize("name", ["config.yaml", "tables.md", "k.png"])
def test_a_users_own_files_in_out_are_never_overwritten(tmp_path, clean, name):
    """`--out .` in the folder of one's own config (or any folder without a manifest holding a
    file a table writes): one line, with or without --fresh, the file as it was; a config.yaml
    as the table writes it (a run cut short before its manifest) resumes."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / name).write_text("# my own notes\n")
    (out / "runs.csv").write_text("")  # a file of the user's, no records: no table's folder
    for fresh in ((), ("--fresh",)):
        res = cli("run", clean[0], "--out", out, "--jobs", 1, "--quiet", *fresh)
        one_line_error(res)
        assert f"{out / name} is not docfact's" in res.output, res.output
        assert (out / name).read_text() == "# my own notes\n"
    if name == "config.yaml":
        (out / "runs.csv").unlink()
        shutil.copy(clean[1] / "config.yaml", out / name)
        assert cli("run", clean[0], "--out", out, "--jobs", 1, "--quiet").exit_code == 0


def test_fresh_never_discards_another_tables_runs(tmp_path, clean):
    """--fresh (the remedy a refusal names) into a folder of another table is refused; the
    folder's own table may start over."""
    out = _copy(clean, tmp_path)
    before = _snapshot(out)
    other = tiny_config(tmp_path, name="other", methods={"KM": {"algorithm": "kmeans"}})
    res = cli("run", other, "--out", out, "--fresh", "--jobs", 1, "--quiet")
    one_line_error(res, 2)
    assert "holds the runs of table 'tiny', not 'other'" in res.output
    assert _snapshot(out) == before
    runs = (out / "runs.csv").read_bytes()
    assert cli("run", clean[0], "--out", out, "--fresh", "--jobs", 1, "--quiet").exit_code == 0
    assert (out / "runs.csv").read_bytes() == runs  # the same runs again


@pytest.mark.parametrize("jobs", ["0", "-2"])
@pytest.mark.parametrize("command", ["run", "check", "sweep", "readings"])
def test_jobs_is_a_positive_number_or_minus_one(tmp_path, clean, command, jobs):
    args = {"run": [clean[0]], "check": [clean[0]], "readings": ["lccf"],
            "sweep": [clean[0], "--param", "NMF.max_iter=10,20"]}[command]
    res = cli(command, *args, "--jobs", jobs, "--out" if command in ("run", "sweep") else
              "--results", tmp_path / "x")
    one_line_error(res, 2)
    assert f"--jobs: a positive number of workers, or -1 for all cores; got {jobs}" in res.output
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("args, message", [
    (["run", "{cfg}", "--jobs", "abc"], "Invalid value for '--jobs': 'abc' is not a valid "
     "integer. (see 'docfact run --help')"),
    (["show", "{cfg}"], "is a file. (see 'docfact show --help')"),
    (["show", "x", "--format", "xml"], "'xml' is not one of 'markdown', 'latex', 'csv'."),
    (["nosuch"], "No such command 'nosuch'. (see 'docfact --help')"),
    (["--data-dir", "{cfg}", "datasets", "list"], "Invalid value for '--data-dir'"),
    (["run"], "Missing argument 'CONFIG'. (see 'docfact run --help')"),
    (["run", "{cfg}", "--out", ""], "Invalid value for '--out': give a folder, not an empty "
     "name"),
    (["sweep", "{cfg}", "--param", "NMF.max_iter=10", "--out", " "], "Invalid value for "
     "'--out': give a folder"),
    (["plot", "anchors", "--out", ""], "Invalid value for '--out': give a folder"),
    (["run", "{cfg}", "--k", "2,,3"],
     "--k: expected comma-separated integers or ranges a..b, got '2,,3'"),
    (["run", "{cfg}", "--k", "5..3"], "--k: a range 'a..b' needs 2 <= a <= b, got '5..3'"),
    (["run", "{cfg}", "--k", "2..99999999999"], "--k: the 99999999998 k values of"),
])
def test_clicks_own_errors_are_one_line(clean, args, message):
    res = CliRunner().invoke(main, [a.format(cfg=clean[0]) for a in args], prog_name="docfact")
    one_line_error(res, 2)
    assert message in res.output


@pytest.mark.parametrize("group", [[], ["datasets"], ["plot"]])
def test_a_group_without_its_command_prints_its_help(group):
    res = CliRunner().invoke(main, group, prog_name="docfact")
    assert res.exit_code == 0 and res.output.startswith(f"Usage: docfact {' '.join(group)}")


@pytest.mark.parametrize("ks", ["2,2", "2,3,2"])
def test_a_repeated_k_is_refused_as_in_a_config(tmp_path, clean, ks):
    """--k 2,2 once computed runs that the records then held once, and lost the others."""
    res = cli("run", clean[0], "--k", ks, "--out", tmp_path / "x", "--quiet")
    one_line_error(res, 2)
    assert f"--k: must be a list without repeated values, got '{ks}'" in res.output
    assert not (tmp_path / "x").exists()


def test_k_takes_ranges_as_a_config_does(tmp_path, clean):
    """--k 2..3 is --k 2,3: the folder's records (resumed from the complete table) print."""
    res = cli("run", clean[0], "--k", "2..3", "--out", clean[1], "--quiet")
    assert res.exit_code == 0 and "4 of 4 runs already recorded" in res.output, res.output


def test_no_more_workers_start_than_runs_are_left(tmp_path, clean, monkeypatch):
    from docfact.experiment import runner

    asked, real = [], runner.Parallel

    def counting(n_jobs, **kwargs):
        asked.append(n_jobs)
        return real(n_jobs=n_jobs, **kwargs)

    monkeypatch.setattr(runner, "Parallel", counting)
    out = tmp_path / "out"
    assert cli("run", clean[0], "--out", out, "--jobs", 1000, "--quiet").exit_code == 0
    assert cli("run", clean[0], "--out", out, "--jobs", 1000, "--quiet").exit_code == 0
    runs = read_runs(out / "runs.csv")
    assert asked == [len(set(zip(runs.k, runs.run, strict=True))), 1]  # all, then none left


@pytest.mark.parametrize("name", ["../../escaped", "/tmp/absolute", ".hidden"])
def test_a_reading_is_named_as_a_folder(tmp_path, name):
    """A reading's name becomes a folder under --results: a path is refused before any run."""
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({
        "tables": ["tiny"], "runs": 2,
        "settings": {"weighting": {"l2": {"set": {}, "grounds": "code: x"}}},
        "readings": {name: {"weighting": "l2"}}}))
    res = cli("readings", path, "--configs", tmp_path, "--results", tmp_path / "r")
    one_line_error(res, 2)
    assert f"readings.{name}: a reading's name names its folder" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.yaml"]


def test_readings_of_an_unknown_paper_name_the_known_ones(tmp_path):
    (tmp_path / "readings").mkdir()
    (tmp_path / "readings" / "gnmf.yaml").write_text("{}")
    res = cli("readings", "gnfm", "--configs", tmp_path)
    one_line_error(res, 2)
    assert "'gnfm' is no readings file" in res.output and "(known: gnmf)" in res.output
    res = cli("readings", "GNMF", "--configs", tmp_path)  # named as data sets are: any case
    one_line_error(res, 2)
    assert "readings file" not in res.output and "gnmf.yaml" in res.output, res.output
    res = cli("readings", "gnmf", "--configs", tmp_path / "elsewhere")  # none there
    one_line_error(res, 2)
    assert "(known: none (run from the repository, or give --configs DIR))" in res.output


def test_a_report_on_other_results_leaves_the_readme_alone(tmp_path, clean, monkeypatch):
    """The README's summary line belongs to the default results folder: a report on another
    writes only in that folder, unless --readme is given."""
    out = tmp_path / "other" / "tiny"
    shutil.copytree(clean[1], out)
    readme = tmp_path / "README.md"
    readme.write_text("# x\n<!-- reproduction:start -->\nold\n<!-- reproduction:end -->\n")
    monkeypatch.chdir(tmp_path)
    assert cli("report", "--results", out.parent, "--configs", tmp_path).exit_code == 0
    assert readme.read_text().count("old") == 1
    assert cli("report", "--results", out.parent, "--configs", tmp_path,
               "--readme", readme).exit_code == 0
    assert "old" not in readme.read_text() and "REPRODUCTION.md" in readme.read_text()


def test_a_folder_holding_another_tables_runs_is_no_table_of_the_report(tmp_path, clean):
    """A copy of tiny's folder named 'other' (a table of --configs): the report holds tiny once,
    says why 'other' is not in it, and lists 'other' as not run."""
    results, configs = tmp_path / "results", tmp_path / "configs"
    shutil.copytree(clean[1], results / "tiny")
    shutil.copytree(clean[1], results / "other")
    configs.mkdir()
    (configs / "other.yaml").write_text(Path(clean[0]).read_text().replace("name: tiny",
                                                                          "name: other"))
    for folder in ("tiny", "other"):
        (results / folder / "k.png").unlink(missing_ok=True)
    res = cli("report", "--results", results, "--configs", configs)
    assert res.exit_code == 0, res.output
    assert (f"docfact: note: {results / 'other'} holds the runs of table 'tiny': not reported"
            in res.output)
    assert (results / "tiny" / "k.png").exists() and not (results / "other" / "k.png").exists()
    report = pd.read_csv(results / "REPRODUCTION.csv")
    assert set(report.table) == {"tiny"} and not report.duplicated(["method", "metric"]).any()
    md = (results / "REPRODUCTION.md").read_text()
    assert "Not run yet (no results): `other`" in md and "### other" not in md, md


MARKERS = b"<!-- reproduction:start -->", b"<!-- reproduction:end -->"


@pytest.mark.parametrize("content", [
    None, b"# no markers\n", bytes(range(256)),
    b"a\n%b\nold\n%b\n" % MARKERS[::-1],  # the end first
    b"%b\n%b\n%b\n%b\n" % (MARKERS * 2)])  # two sections: which one is meant?
def test_a_readme_without_its_markers_is_refused_before_the_report(tmp_path, clean, content):
    """--readme naming no file, a file without the summary markers, with them out of order
    or twice, or bytes that are not text: one line, and nothing written (no report claims a
    summary line it did not write)."""
    out = tmp_path / "other" / "tiny"
    shutil.copytree(clean[1], out)
    readme = tmp_path / "README.md"
    if content is not None:
        readme.write_bytes(content)
    before = _snapshot(out)
    res = cli("report", "--results", out.parent, "--configs", tmp_path, "--readme", readme)
    one_line_error(res)
    assert str(readme) in res.output
    assert _snapshot(out) == before and sorted(out.parent.iterdir()) == [out]
    assert (readme.read_bytes() if content is not None else None) == content


def test_check_without_results_fails(tmp_path, clean):
    res = cli("check", clean[0], "--results", tmp_path)
    assert res.exit_code == 1 and "tiny: FAILED (no committed results in" in res.output


def test_check_against_another_tables_runs_says_so(tmp_path, clean):
    """A folder named for one table that holds another's runs: a check against those is no
    check (every row would differ); one line says whose runs they are."""
    shutil.copytree(clean[1], tmp_path / "results" / "mine")
    cfg = tmp_path / "mine.yaml"
    cfg.write_text(Path(clean[0]).read_text().replace("name: tiny", "name: mine"))
    res = cli("check", cfg, "--results", tmp_path / "results")
    assert res.exit_code == 1, res.output
    assert res.output.strip() == ("mine: FAILED (" + str(tmp_path / "results" / "mine")
                                  + " holds the runs of table 'tiny', not 'mine')")


def test_a_donor_whose_records_are_not_docfacts_gives_nothing(tmp_path, clean):
    """A damaged folder among the donors, or one that is no results folder, is passed over
    with a note: the run computes its rows."""
    donor = _copy(clean, tmp_path)
    runs = donor / "runs.csv"
    runs.write_bytes(runs.read_bytes().replace(b",ac,", b",AC,", 1))
    empty = [tmp_path / "e1", tmp_path / "e2"]  # two folders of one reason: two notes
    for folder in empty:
        folder.mkdir()
    res = cli("run", clean[0], "--out", tmp_path / "new", "--donors", donor, "--donors",
              empty[0], "--donors", empty[1], "--jobs", 1, "--quiet")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "new" / "runs.csv").read_bytes() == (clean[1] / "runs.csv").read_bytes()
    notes = [line for line in res.output.splitlines() if line.startswith("docfact: note: donor")]
    assert len(notes) == 3 and all(line.endswith(": its rows are computed") for line in notes)
    assert f"donor {donor} not read (" in notes[0] and "not docfact" in notes[0], notes
    for note, folder in zip(notes[1:], empty, strict=True):
        assert note.startswith(f"docfact: note: donor {folder} not read (manifest.json: "), note


def test_donors_a_command_gathers_itself_are_passed_over_silently(tmp_path, clean):
    """The readings take rows from every folder of the results tree (named=False): one that
    cannot be read is no concern of the reading's, and gets no note."""
    import warnings

    from docfact.experiment.plan import load
    from docfact.experiment.runner import shared_rows

    config = load(clean[0])
    digest = json.loads((clean[1] / "manifest.json").read_text())["data_hash"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert shared_rows(config, tmp_path / "out", "x", [tmp_path], named=False) == {}
        # after a folder that gives rows too
        assert shared_rows(config, tmp_path / "out", digest, [clean[1], tmp_path], named=False)
    with pytest.warns(UserWarning, match=f"donor {tmp_path} not read"):
        shared_rows(config, tmp_path / "out", "x", [tmp_path])


def test_a_folders_config_with_a_key_given_twice_is_read_as_a_config_is(tmp_path, clean):
    """A results folder's config.yaml is read by the rules of a config (no key twice, no
    alias): `show` refuses what `validate` refuses, in one line, rather than taking the last."""
    out = _copy(clean, tmp_path)
    config = out / "config.yaml"
    config.write_text(config.read_text() + "name: another\n")
    res = cli("show", out)
    assert res.exit_code != 0 and len(res.output.strip().splitlines()) == 1, res.output
    assert "key 'name' given twice" in res.output, res.output
    config.write_text(config.read_text().replace("name: another\n", "")
                      + "a: &same {rule: kmeans}\nb: *same\n")  # as earlier sweeps wrote
    res = cli("show", out)
    assert res.exit_code != 0 and "rerun what made the folder" in res.output, res.output


def test_a_donor_whose_manifest_is_a_fifo_is_refused_not_waited_on(tmp_path, clean):
    """A FIFO planted as a donor's manifest.json: the donor gives nothing (a note when named),
    the run is not left waiting for a writer."""
    import threading

    from docfact.experiment.plan import load
    from docfact.experiment.runner import shared_rows

    donor = tmp_path / "fifo"
    donor.mkdir()
    os.mkfifo(donor / "manifest.json")
    found = []
    reader = threading.Thread(target=lambda: found.append(shared_rows(
        load(clean[0]), tmp_path / "out", "x", [donor], named=False)), daemon=True)
    reader.start()
    reader.join(30)
    assert found == [{}]


def test_a_last_record_cut_inside_a_character_is_dropped_as_cut(tmp_path, clean):
    """A writer stopped in the middle of a two-byte character: the cut record is dropped, the
    complete ones read, and the folder is not refused."""
    out = _copy(clean, tmp_path)
    complete = RunStore(out).read(["KM", "NMF"])
    with (out / "runs.csv").open("ab") as f:
        f.write("9,9,KM,ok,0.5,0.5,,nan,18,a b,Ü".encode()[:-1])
    assert sorted(RunStore(out).read(["KM", "NMF"])) == sorted(complete)
    assert len(read_runs(out / "runs.csv")) == 2 * len(complete)


def test_timings_that_are_not_docfacts_are_refused_and_kept(tmp_path, clean):
    """timings.csv with a renamed column: run and report say so in one line, the file kept."""
    out = _copy(clean, tmp_path)
    timings = out / "timings.csv"
    timings.write_bytes(timings.read_bytes().replace(b",seconds", b",secs", 1))
    before = [_snapshot(out / name) for name in ("runs.csv", "timings.csv")]
    for args in (("run", clean[0], "--out", out, "--jobs", 1, "--quiet"),
                 ("report", "--results", out.parent)):
        res = cli(*args)
        one_line_error(res)
        assert f"{timings}" in res.output and "not docfact's" in res.output, (args, res.output)
    assert [_snapshot(out / name) for name in ("runs.csv", "timings.csv")] == before


@pytest.mark.parametrize("damage, what", [
    ("2,0,KM,ok,abc,0.5,,,6,x,,", "a damaged record"),
    ("x,0,KM,ok,0.5,0.5,,,6,x,,", "a damaged record"),
    ("2,0,KM,done,0.5,0.5,,,6,x,,", "a damaged record"),
    ("2,0,KM,ok,7.5,0.5,,,6,x,,", "a damaged record"),
    (None, "a second record of k = 2, run 0, KM")])
def test_damaged_records_are_named_by_readers_and_dropped_by_run(tmp_path, clean, damage, what):
    """A record that is not one docfact writes (a score that is no number or out of [0, 1], a
    k that is no number, an unknown status) or a second record of one (k, run, method): the
    commands that read a folder name its line in one line instead of counting it in a table,
    and `run` drops it and computes that run again, giving the clean folder's records."""
    out = _copy(clean, tmp_path)
    runs = out / "runs.csv"
    clean_bytes = runs.read_bytes()
    lines = clean_bytes.decode().splitlines(keepends=True)
    extra = (lines[1] if damage is None else damage + "\n")
    runs.write_text("".join(lines) + extra)
    line = len(lines) + 1
    for args in (("show", out), ("plot", "k", out), ("report", "--results", out.parent),
                 ("check", clean[0], "--results", out.parent)):
        res = cli(*args)
        one_line_error(res)
        assert f"{runs}, line {line}: {what}" in res.output, (args, res.output)
    res = cli("run", clean[0], "--out", out, "--jobs", 1, "--quiet")
    assert res.exit_code == 0, res.output
    assert runs.read_bytes() == clean_bytes


def test_runs_without_their_manifest_are_refused_and_kept(tmp_path, clean):
    """A folder holding runs but no manifest.json (removed by hand): no one can tell which
    protocol computed its runs, so `run` refuses the folder in one line and changes nothing,
    instead of dropping the runs of other methods or taking runs of another seed as its own."""
    out = _copy(clean, tmp_path)
    (out / "manifest.json").unlink()
    before = _snapshot(out)
    res = cli("run", clean[0], "--out", out, "--jobs", 1, "--quiet")
    one_line_error(res, 2)
    assert f"{out} holds runs but no manifest.json" in res.output
    assert _snapshot(out) == before
    res = cli("run", clean[0], "--out", out, "--fresh", "--jobs", 1, "--quiet")
    assert res.exit_code == 0, res.output
    assert (out / "runs.csv").read_bytes() == (clean[1] / "runs.csv").read_bytes()


def test_a_write_that_fails_names_the_file_not_its_temporary_twin(tmp_path, monkeypatch):
    """Writes go through a temporary file beside the target; when the move fails (a folder
    made read-only, an immutable file) the error names the target, which the user knows."""
    from docfact import atomic

    def refuse(src, dst):
        raise PermissionError(1, "Operation not permitted", src)

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(PermissionError) as e:
        atomic.write_text(tmp_path / "runs.csv", "k\n")
    assert e.value.filename == str(tmp_path / "runs.csv")
    with pytest.raises(PermissionError) as e:
        atomic.write_with(tmp_path / "k.png", lambda tmp: Path(tmp).write_bytes(b"x"))
    assert e.value.filename == str(tmp_path / "k.png")
    assert sorted(tmp_path.iterdir()) == []  # no temporary file left


def test_an_interrupted_command_that_runs_nothing_does_not_speak_of_runs(monkeypatch):
    def cut(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("tabulate.tabulate", cut)
    res = cli("datasets", "list")
    assert res.exit_code == 130 and res.output.strip() == "docfact: interrupted", res.output


def test_convergence_of_a_table_of_few_classes_draws_its_largest_k(tmp_path):
    """plot convergence's --k defaults to LCCF Fig. 3's 10 classes, or to the config's largest
    k where the data hold fewer (3 here): no error about a k the user never gave."""
    cfg = tiny_config(tmp_path)
    res = cli("plot", "convergence", cfg, "--iterations", 5, "--out", tmp_path / "c")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "c" / "convergence.csv").exists()


@pytest.mark.parametrize("method, words", [
    ({"algorithm": "gnmf", "p": 10000}, "G at k = 2, run 0: ValueError: p must be in"),
    ({"algorithm": "sklearn.decomposition:TruncatedSVD"},
     "G take(s) none of the engine's parameters track_objective, n_restarts"),
])
def test_convergence_of_a_fit_that_fails_is_one_line(tmp_path, method, words):
    """A factorization that cannot fit this draw, or an estimator without the engine's
    parameters: one line naming it, nothing drawn."""
    cfg = tiny_config(tmp_path, methods={"G": method})
    res = cli("plot", "convergence", cfg, "--k", 2, "--iterations", 5, "--out", tmp_path / "c")
    one_line_error(res)
    assert words in res.output and not (tmp_path / "c").exists(), res.output


def test_an_out_folder_of_another_table_is_named_so(tmp_path, clean):
    """--out holding another table's runs: said at once (--fresh, which discards a table's own
    runs only, would be refused: it is not offered), and the folder kept as it was."""
    out = _copy(clean, tmp_path)
    before = _snapshot(out)
    cfg = tmp_path / "zz.yaml"
    cfg.write_text(Path(clean[0]).read_text().replace("name: tiny", "name: zz")
                   .replace("seed: 3", "seed: 4"))
    res = cli("run", cfg, "--out", out, "--jobs", 1, "--quiet")
    one_line_error(res, 2)
    assert f"{out} holds the runs of table 'tiny', not 'zz'; choose another --out" in res.output
    assert "--fresh" not in res.output and _snapshot(out) == before


def test_a_report_of_ones_own_partial_table_says_what_it_is(tmp_path):
    """A table of one's own, its config kept outside --configs, cut to one k and one run: the
    report names the command that computes it (its folder's config), leaves out the notes
    written for its full protocol (they quote numbers this table does not hold), and its
    figure shows the one k's means as points (a line of one point draws nothing)."""
    import matplotlib.pyplot as plt

    from docfact.experiment.aggregate import summarize
    from docfact.experiment.results import read_folder
    from docfact.report.plots import _curve

    cfg = tiny_config(tmp_path)
    raw = yaml.safe_load(cfg.read_text())
    cfg.write_text(yaml.safe_dump({**raw, "notes": "FULL-TABLE WORDS"}))
    results, configs = tmp_path / "results", tmp_path / "configs"
    configs.mkdir()
    res = cli("run", cfg, "--k", 2, "--runs", 1, "--out", results / "tiny", "--jobs", 1)
    assert res.exit_code == 0, res.output
    res = cli("report", "--results", results, "--configs", configs)
    assert res.exit_code == 0, res.output
    md = (results / "REPRODUCTION.md").read_text()
    assert f"`docfact run {results / 'tiny' / 'config.yaml'}`" in md
    assert "FULL-TABLE WORDS" not in md and "describe its full protocol" in md
    config, runs, _ = read_folder(results / "tiny")
    fig, ax = plt.subplots()
    _curve(ax, config, summarize(runs, ["KM"], [2]), "ac", "KM", [2], "C0", "KM")
    assert ax.lines[0].get_marker() == "s" and len(ax.lines[0].get_xdata()) == 1
    plt.close(fig)


def test_sub_runs_by_objective_are_chosen_by_their_final_objective(tmp_path):
    """best_by objective with a fixed max_iter: each sub-run's objective is its final one (the
    fit tracks it), not the value it kept at the choice of its start, for one start the
    objective of the random start, which 5 iterations bring far down."""
    runs = {}
    for by in ("ac", "objective"):
        (tmp_path / by).mkdir()
        cfg = tiny_config(tmp_path / by, methods={"NMF": {"algorithm": "nmf", "n_restarts": 1,
                                                          "max_iter": 5}},
                          best_of=3, best_by=by)
        assert cli("run", cfg, "--out", tmp_path / by / "out", "--quiet", "--jobs", 1
                   ).exit_code == 0
        runs[by] = pd.read_csv(tmp_path / by / "out" / "runs.csv")
    assert runs["objective"].objective.max() < runs["ac"].objective.min() / 2, runs


def test_a_manifest_that_is_no_mapping_is_refused_alike_everywhere(tmp_path, clean):
    """manifest.json holding JSON that is not a mapping: run, show and a donor read it by one
    reader and say so in one line; the folder is kept."""
    out = _copy(clean, tmp_path)
    (out / "manifest.json").write_text("[1, 2]\n")
    before = _snapshot(out)
    for args in (("run", clean[0], "--out", out, "--jobs", 1, "--quiet"), ("show", out)):
        res = cli(*args)
        one_line_error(res)
        assert "manifest.json is not a mapping" in res.output, res.output
    res = cli("run", clean[0], "--out", tmp_path / "new", "--donors", out, "--jobs", 1, "--quiet")
    assert res.exit_code == 0 and "manifest.json is not a mapping" in res.output, res.output
    assert _snapshot(out) == before


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.pop("documents"), "manifest.json has no 'documents'"),
    (lambda m: m.update(best_of="3"), "manifest.json: best_of is '3'"),
    (lambda m: m.update(jobs=True), "manifest.json: jobs is True"),
    (lambda m: m.update(wall_seconds=["1.5"]), "wall_seconds holds something other than"),
])
def test_a_manifest_entry_missing_or_of_another_type_is_one_line(tmp_path, clean, edit,
                                                                  message):
    """A manifest edited by hand (an entry the tables and the report read removed, or a
    number written as text): run, show and report say so in one line; the folder is kept."""
    out = _copy(clean, tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    edit(manifest)
    (out / "manifest.json").write_text(json.dumps(manifest))
    before = _snapshot(out)
    for args in (("run", clean[0], "--out", out, "--jobs", 1, "--quiet"), ("show", out)):
        res = cli(*args)
        one_line_error(res)
        assert message in res.output, res.output
    assert _snapshot(out) == before


def test_timings_with_seconds_that_are_not_numbers_are_refused(tmp_path, clean):
    """The report sums timings.csv's seconds (a table's least wall time): a cell that is no
    number is named by its line."""
    out = _copy(clean, tmp_path)
    lines = (out / "timings.csv").read_text().splitlines()
    lines[2] = ",".join(lines[2].split(",")[:3] + ["abc"])
    (out / "timings.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(DocfactError, match=r"timings.csv, line 3: not docfact's timings "
                                           r"\(seconds 'abc'\)"):
        read_timings(out)


@pytest.mark.parametrize("name", ["runs.csv", "timings.csv"])
@pytest.mark.parametrize("content, refused", [(b"\x00\xff\xfe garbage", True),
                                              (b"k,run,meth", False)])
def test_records_without_a_line_are_refused_unless_a_cut_header(tmp_path, clean, name,
                                                                 content, refused):
    """A records file holding no line break is either a header cut as it was written (the
    start of docfact's header: resumed, the runs computed again) or a file of something else:
    refused in one line and kept, as one with a foreign header is."""
    out = _copy(clean, tmp_path)
    (out / name).write_bytes(content)
    res = cli("run", clean[0], "--out", out, "--jobs", 1, "--quiet")
    if refused:
        one_line_error(res, 1)
        assert "not docfact's records (no line, and not the start of its header)" in res.output
        assert (out / name).read_bytes() == content
    else:
        assert res.exit_code == 0, res.output


def test_fresh_with_the_folder_itself_as_donor_is_refused_before_discarding(tmp_path, clean):
    """--fresh --donors OUT: the runs would be discarded before any could be taken; said in
    one line, the folder kept."""
    out = _copy(clean, tmp_path)
    before = _snapshot(out)
    res = cli("run", clean[0], "--out", out, "--fresh", "--donors", out, "--jobs", 1, "--quiet")
    one_line_error(res, 2)
    assert "--fresh discards its runs before any can be taken; give --donors a copy" in (
        res.output), res.output
    assert _snapshot(out) == before


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("when", ["starting", "computing"])
def test_ctrl_c_to_the_group_is_one_line_while_workers_start_or_compute(tmp_path, when):
    """SIGINT to the whole process group, as the terminal's Ctrl-C, the moment the workers are
    spawned (still importing) or while they compute: one line, exit 130, no traceback of an
    interrupted worker, no worker left (workers never see SIGINT: the main process stops
    them as it unwinds)."""
    if when == "computing":
        proc, workers = _computing_run(tmp_path, stderr=subprocess.PIPE)
    else:
        cfg = tiny_config(tmp_path, runs=2, methods={
            "NMF": {"algorithm": "nmf", "max_iter": 10**7, "min_iter": 10**7}})
        proc = subprocess.Popen([sys.executable, "-m", "docfact", "run", str(cfg), "--out",
                                 str(tmp_path / "out"), "--jobs", "2", "--quiet"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        deadline, workers = time.time() + 60, []
        while time.time() < deadline and proc.poll() is None and not (
                workers and _cpu_ticks(workers[0]) >= 10):  # past Python's start: importing
            workers = _loky_workers(proc.pid)
            time.sleep(0.005)
    try:
        assert proc.poll() is None and workers, "interrupt the run as its workers start"
        _signal(proc, "group", signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
        assert err.splitlines()[-1] == ("docfact: interrupted; finished runs are kept, rerun "
                                        "to resume"), err
        assert not _no_worker_left(_loky_workers(proc.pid) + workers)
    finally:
        _kill([proc.pid, *workers])
