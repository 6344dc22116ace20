"""The one reader of a results folder, for show, report, check, sweeps, readings and plots.

A results folder holds config.yaml (read as plain data: no estimator is built, so renaming an
algorithm or a parameter leaves old results readable), manifest.json, runs.csv (one record per
(k, run, method): a frame here) and timings.csv.
"""

import io
import json
from pathlib import Path

import pandas as pd
import yaml

from docfact import atomic
from docfact.config import parse_config
from docfact.errors import ConfigError, DocfactError
from docfact.experiment.store import FIELDS, TEXT_FIELDS, TIMING_FIELDS, check_format, complete_text


def read_setup(folder: Path) -> tuple:
    """(config, manifest) of a results folder: the config that produced its records and its
    manifest; DocfactError if it is not one, ConfigError for records of another format."""
    if not Path(folder).is_dir():
        raise ConfigError(f"{folder}: no such folder")
    try:
        raw = yaml.safe_load(atomic.read_text(folder / "config.yaml"))
        manifest = json.loads(atomic.read_text(folder / "manifest.json"))
        if not isinstance(manifest, dict):
            raise ValueError("manifest.json is not a mapping")
    except FileNotFoundError as e:
        raise DocfactError(f"{folder}: not a complete docfact results folder (no "
                           f"{Path(e.filename).name})") from None
    except (OSError, ValueError, RecursionError, yaml.YAMLError) as e:
        raise DocfactError(f"{folder}: not a complete docfact results folder ({e})") from None
    check_format(manifest, folder)
    return parse_config(raw, str(folder / "config.yaml"), check_paths=False), manifest


def read_manifest(folder: Path) -> dict:
    """A results folder's manifest.json."""
    return json.loads(atomic.read_text(Path(folder) / "manifest.json"))


def read_runs(path: Path) -> pd.DataFrame:
    """runs.csv as a frame: method names stay text (a method named 1 is "1"), an empty or
    "nan" score is NaN (failed runs keep their status "failed")."""
    try:
        runs = pd.read_csv(io.StringIO(complete_text(path), newline=""),
                           dtype={f: str for f in TEXT_FIELDS}, keep_default_na=False,
                           na_values={"ac": ["nan", ""], "nmi": ["nan", ""]})
    except (ValueError, pd.errors.ParserError) as e:
        raise DocfactError(f"{path}: not docfact's run records ({_first_line(e)})") from None
    missing = [f for f in FIELDS if f not in runs.columns]
    if missing:
        raise DocfactError(f"{path}: not docfact's run records (no column {missing[0]!r})")
    return runs


def _first_line(e: Exception) -> str:
    lines = str(e).strip().splitlines()
    return lines[0] if lines else type(e).__name__


def read_timings(folder: Path) -> pd.DataFrame:
    """timings.csv as a frame (k, run, method, seconds); DocfactError for a file that is not
    docfact's (not CSV or text, another header)."""
    path = Path(folder) / "timings.csv"
    try:
        timings = pd.read_csv(io.StringIO(complete_text(path), newline=""))
    except (ValueError, pd.errors.ParserError) as e:
        raise DocfactError(f"{path}: not docfact's timings ({_first_line(e)})") from None
    if list(timings.columns) != TIMING_FIELDS:
        raise DocfactError(f"{path}: not docfact's timings (its header differs from docfact's)")
    return timings


def read_folder(folder: Path):
    """(config, runs, manifest) of a results folder; DocfactError if it is not one."""
    folder = Path(folder)
    config, manifest = read_setup(folder)
    try:
        runs = read_runs(folder / "runs.csv")
    except OSError as e:
        raise DocfactError(f"{folder}: not a complete docfact results folder ({e})") from None
    return config, runs, manifest
