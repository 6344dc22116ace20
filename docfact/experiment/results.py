"""The reader of a results folder, for show, report, check, sweeps, readings and plots (the
run store, experiment/store.py, reads its own runs.csv when it resumes or takes a donor's rows).

A results folder holds config.yaml (read as plain data: no estimator is built, so renaming an
algorithm or a parameter leaves old results readable), manifest.json, runs.csv (one record per
(k, run, method): a frame here) and timings.csv.
"""

import csv
import io
import json
import warnings
from pathlib import Path

import pandas as pd

from docfact import atomic
from docfact.config import parse_config, parse_yaml
from docfact.errors import ConfigError, ConfigNote, DocfactError, first_line
from docfact.experiment.store import (
    FIELDS,
    TEXT_FIELDS,
    TIMING_FIELDS,
    check_format,
    complete_text,
    parse_record,
)


def read_setup(folder: Path) -> tuple:
    """(config, manifest) of a results folder: the config that produced its records and its
    manifest; DocfactError if it is not one, ConfigError for records of another format."""
    if not Path(folder).is_dir():
        raise ConfigError(f"{folder}: " + ("a file, not a results folder" if Path(folder).exists()
                                           else "no such folder"))
    try:
        raw = parse_yaml(atomic.read_text(folder / "config.yaml"), str(folder / "config.yaml"))
        manifest = read_manifest(folder)
    except FileNotFoundError as e:
        raise DocfactError(f"{folder}: not a complete docfact results folder (no "
                           f"{Path(e.filename).name})") from None
    except (OSError, ValueError, RecursionError, ConfigError) as e:
        why = " ".join(str(e).split())
        if "alias *" in why:  # written so by docfact before its sweeps wrote values out
            why += "; rerun what made the folder, which computes nothing and rewrites it"
        raise DocfactError(f"{folder}: not a complete docfact results folder ({why})") from None
    check_format(manifest, folder)
    with warnings.catch_warnings():  # the copy docfact wrote: its notes were the config's
        warnings.simplefilter("ignore", ConfigNote)
        return parse_config(raw, str(folder / "config.yaml"), check_paths=False), manifest


# The manifest's entries that its readers use, with their types (docfact writes them all;
# best_of and labelled only where the protocol has them).
_MANIFEST = {"config": str, "view": (str, dict), "weighting": str, "weight_on": str,
             "documents": int, "classes": int, "seed": int, "k": list, "runs": int,
             "cores": int, "jobs": int, "wall_seconds": list}
_MANIFEST_OPTIONAL = {"best_of": int, "labelled": (int, float)}


def read_manifest(folder: Path) -> dict:
    """A results folder's manifest.json: OSError (a link or FIFO there: PlantedFileError) or
    ValueError (not JSON, not a mapping, an entry its readers use missing or of another type)
    when it cannot be read as one."""
    manifest = json.loads(atomic.read_text(Path(folder) / "manifest.json"))
    if not isinstance(manifest, dict):
        raise ValueError("manifest.json is not a mapping")
    for key, kind in {**_MANIFEST, **_MANIFEST_OPTIONAL}.items():
        if key not in manifest:
            if key in _MANIFEST:
                raise ValueError(f"manifest.json has no {key!r}")
        elif isinstance(manifest[key], bool) or not isinstance(manifest[key], kind):
            raise ValueError(f"manifest.json: {key} is {manifest[key]!r}")
    if not all(isinstance(s, int | float) for s in manifest["wall_seconds"]):
        raise ValueError("manifest.json: wall_seconds holds something other than seconds")
    return manifest


def table_of(folder: Path):
    """The table whose runs `folder` holds, by its manifest's config (None when the manifest
    cannot be read, is not docfact's, or does not say)."""
    try:
        return read_manifest(folder).get("config")
    except (OSError, ValueError, DocfactError):
        return None


def read_runs(path: Path) -> pd.DataFrame:
    """runs.csv as a frame: method names stay text (a method named 1 is "1"), an empty or
    "nan" score is NaN (failed runs keep their status "failed"). DocfactError for a file that
    is not docfact's, or holds a damaged record or a second record of one (k, run, method):
    a table read from it would count them (a resumed run drops them instead)."""
    try:
        text = complete_text(path)
        runs = pd.read_csv(io.StringIO(text, newline=""),
                           dtype={f: str for f in TEXT_FIELDS}, keep_default_na=False,
                           na_values={"ac": ["nan", ""], "nmi": ["nan", ""]})
    except (ValueError, pd.errors.ParserError) as e:
        raise DocfactError(f"{path}: not docfact's run records ({first_line(e)})") from None
    missing = [f for f in FIELDS if f not in runs.columns]
    if missing:
        raise DocfactError(f"{path}: not docfact's run records (no column {missing[0]!r})")
    _check_records(path, text)
    return runs


def _check_records(path: Path, text: str) -> None:
    """DocfactError naming the first line of `text` (runs.csv) that is not a well-formed
    record, or that repeats a (k, run, method) recorded before it."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    seen = set()
    for row in reader:
        record = parse_record(row)
        key = None if record is None else (record["k"], record["run"], record["method"])
        if key is None or key in seen:
            what = "a damaged record" if key is None else (
                f"a second record of k = {key[0]}, run {key[1]}, {key[2]}")
            raise DocfactError(f"{path}, line {reader.line_num}: {what}; `docfact run` on its "
                               "config drops it and computes the run again")
        seen.add(key)


def read_timings(folder: Path) -> pd.DataFrame:
    """timings.csv as a frame (k, run, method, seconds); DocfactError for a file that is not
    docfact's (not CSV or text, another header)."""
    path = Path(folder) / "timings.csv"
    try:
        timings = pd.read_csv(io.StringIO(complete_text(path), newline=""))
    except (ValueError, pd.errors.ParserError) as e:
        raise DocfactError(f"{path}: not docfact's timings ({first_line(e)})") from None
    if list(timings.columns) != TIMING_FIELDS:
        raise DocfactError(f"{path}: not docfact's timings (its header differs from docfact's)")
    seconds = pd.to_numeric(timings["seconds"], errors="coerce")
    if seconds.isna().any():
        line = int(seconds.isna().to_numpy().argmax()) + 2
        raise DocfactError(f"{path}, line {line}: not docfact's timings (seconds "
                           f"{timings['seconds'].iloc[line - 2]!r})")
    return timings.assign(seconds=seconds)


def read_folder(folder: Path, recorded: bool = False):
    """(config, runs, manifest) of a results folder; DocfactError if it is not one, or with
    `recorded` if it holds no run yet (a table of nothing: its tables and figures are not
    printed or drawn)."""
    folder = Path(folder)
    config, manifest = read_setup(folder)
    try:
        runs = read_runs(folder / "runs.csv")
    except OSError as e:
        raise DocfactError(f"{folder}: not a complete docfact results folder ({e})") from None
    if recorded and runs.empty:
        raise DocfactError(f"{folder}: no runs recorded yet (docfact run resumes the table)")
    return config, runs, manifest
