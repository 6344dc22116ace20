"""Run records: one CSV row per (k, run, method), appended as each run finishes.

runs.csv holds only what the seed determines (scores, iterations, objective), so the same
config and seed give a byte-identical file; wall times go to timings.csv. `objective` is the
factorization's objective where the engine last evaluated it: for a fit of fixed max_iter
without trials or tracking at the restarts' selection (a single start: at its random start),
not at the end; at the end for a fit that stops on its tolerance, runs its starts as trials,
or tracks its objective (as sub-runs chosen by objective do). A (k, run) counts as done only
when every method of the config has a well-formed row for it: rows of a run cut short (a
crash, a kill, a truncated last line) are dropped on resume and the run is recomputed.
"""

import csv
import fcntl
import io
import math
import os
from pathlib import Path

from docfact import atomic
from docfact.errors import ConfigError, DocfactError

FIELDS = ["k", "run", "method", "status", "ac", "nmi", "n_iter", "objective", "n_docs", "classes",
          "notes", "error"]
TIMING_FIELDS = ["k", "run", "method", "seconds"]
TEXT_FIELDS = ["method", "status", "classes", "notes", "error"]
FORMAT = 2  # of runs.csv: 2 added `notes`; a folder of another format is not resumed


def check_format(manifest: dict, folder: Path) -> None:
    """Refuse a results folder whose records were written in another format (an older docfact's
    runs.csv lacks columns that resuming and reading rely on)."""
    found = manifest.get("records", 1)
    if found != FORMAT:
        raise ConfigError(f"{folder} holds records of another docfact version (format {found}, "
                          f"now {FORMAT}); choose --out, or --fresh to discard them")


def _format(value) -> str:
    """A field's text; a missing value (None, or NaN as parse_record reads an empty field) is empty,
    so a file rewritten on resume keeps the bytes it was appended with."""
    if value is None or isinstance(value, float) and math.isnan(value):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def _csv(rows, fields) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for row in rows:
        w.writerow([_format(row.get(f)) for f in fields])
    return buf.getvalue()


def complete_text(path: Path) -> str:
    """A records file's text without a last record cut short (no newline at its end: a writer
    was interrupted, or is still writing; cut before decoding, since the cut may fall inside a
    character). ValueError for complete lines that are not UTF-8."""
    return _complete(atomic.read_bytes(path))


def _complete(data: bytes) -> str:
    return data[: data.rfind(b"\n") + 1].decode("utf-8")


def read_records(path: Path, fields: list) -> list:
    """The rows (dicts of text) of a records file whose header is `fields`, parsed as CSV: a
    quoted field may hold a line break. DocfactError for a file that is not UTF-8, not CSV
    (naming the line) or has another header: its rows are not dropped as damaged ones."""
    data = atomic.read_bytes(path)
    if b"\n" not in data and not (",".join(fields) + "\n").encode().startswith(data):
        raise DocfactError(f"{path}: not docfact's records (no line, and not the start of its "
                           "header); choose --out, or --fresh to discard it")
    try:
        reader = csv.DictReader(io.StringIO(_complete(data), newline=""))
        rows = list(reader)
    except ValueError as e:  # not UTF-8
        raise DocfactError(f"{path}: not docfact's records ({e}); choose --out, or "
                           "--fresh to discard it") from None
    except csv.Error as e:
        raise DocfactError(f"{path}, line {reader.line_num}: not docfact's records ({e})"
                           ) from None
    if reader.fieldnames is not None and reader.fieldnames != fields:
        raise DocfactError(f"{path}: not docfact's records (its header differs from "
                           "docfact's); choose --out, or --fresh to discard it")
    return rows


class Lock:
    """An exclusive lock on a results folder, so two runs cannot interleave their records.

    The lock file `.lock` (holding the owner's process id) is opened without following a link
    (see atomic.open_fd) and removed when the lock is released; a process that locked a file
    removed meanwhile tries again on the new one."""

    def __init__(self, folder: Path):
        self.path = folder / ".lock"

    def __enter__(self):
        while True:
            self.fd = atomic.open_fd(self.path, os.O_RDWR | os.O_CREAT)
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(self.fd, 64).decode(errors="replace").strip() or "another process"
                os.close(self.fd)
                raise DocfactError(f"{self.path.parent} is in use by process {holder}; wait for "
                                   "it to finish or use another --out folder") from None
            try:
                if os.stat(self.path).st_ino == os.fstat(self.fd).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(self.fd)  # released and removed by its owner meanwhile: lock the new one
        os.ftruncate(self.fd, 0)
        os.write(self.fd, str(os.getpid()).encode())
        return self

    def __exit__(self, *exc):
        self.path.unlink(missing_ok=True)  # while locked: no other process holds this file
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


class RunStore:
    """runs.csv and timings.csv of one results folder."""

    def __init__(self, folder: Path):
        self.runs = folder / "runs.csv"
        self.timings = folder / "timings.csv"

    def read(self, methods: list) -> dict:
        """{(k, run): rows} of the complete runs (a row for each of `methods`), files untouched."""
        groups = {}
        if atomic.check_regular(self.runs):
            for row in read_records(self.runs, FIELDS):
                parsed = parse_record(row)
                if parsed is not None:
                    groups.setdefault((parsed["k"], parsed["run"]), []).append(parsed)
        return {key: rows for key, rows in groups.items()
                if sorted(r["method"] for r in rows) == sorted(methods)}

    def load(self, methods: list) -> dict:
        """{(k, run): rows} of the complete runs; anything else is dropped from the files."""
        done = self.read(methods)
        self._rewrite(done, methods)
        return done

    def append(self, rows: list, timings: list) -> None:
        """Add the rows of one finished run, flushed to disk before returning."""
        for path, records, fields in ((self.runs, rows, FIELDS),
                                      (self.timings, timings, TIMING_FIELDS)):
            atomic.append_text(path, _csv(records, fields))

    def _rewrite(self, done: dict, methods: list) -> None:
        """Rewrite both files with the rows of `done` only, sorted by k, run, method order."""
        order = {m: i for i, m in enumerate(methods)}
        keys = sorted(done)
        rows = [r for key in keys for r in sorted(done[key], key=lambda r: order[r["method"]])]
        atomic.write_text(self.runs, ",".join(FIELDS) + "\n" + _csv(rows, FIELDS))
        timings = []
        if atomic.check_regular(self.timings):
            for row in read_records(self.timings, TIMING_FIELDS):
                try:
                    key = (int(row["k"]), int(row["run"]))
                    float(row["seconds"])
                except (TypeError, ValueError, KeyError):  # a damaged row
                    continue
                if key in done and row["method"] in order:
                    timings.append(row)
        timings.sort(key=lambda r: (int(r["k"]), int(r["run"]), order[r["method"]]))
        atomic.write_text(self.timings, ",".join(TIMING_FIELDS) + "\n"
                          + _csv(timings, TIMING_FIELDS))


def parse_record(row: dict):
    """A well-formed record (a row of runs.csv as text) with typed fields, or None."""
    try:
        if None in row or any(row.get(f) is None for f in FIELDS):
            return None
        out = dict(row)
        out["k"], out["run"], out["n_docs"] = int(row["k"]), int(row["run"]), int(row["n_docs"])
        if row["status"] not in ("ok", "failed"):
            return None
        for f in ("ac", "nmi", "objective"):
            out[f] = float(row[f]) if row[f] else float("nan")
        out["n_iter"] = int(row["n_iter"]) if row["n_iter"] else None
        if row["status"] == "ok" and not (0 <= out["ac"] <= 1 and 0 <= out["nmi"] <= 1 + 1e-12):
            return None
        return out
    except (TypeError, ValueError):
        return None
