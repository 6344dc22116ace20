"""`docfact check`: recompute a table's check pairs (k, run), hold them against the committed.

1. determinism: each recomputed row equals the committed one (status, AC and NMI to EXACT,
   iterations, the objective to OBJECTIVE_RTOL: it moves with any change of the numbers even
   when an easy run's labels do not);
2. published averages: each method's mean over the recomputed runs lies within 1.96 standard
   errors (each k's spread from the committed runs) + `check.margin` of the published mean over
   the same k; methods in `check.against_own` are held against our committed averages instead.
"""

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from docfact.config import Config
from docfact.errors import DocfactError
from docfact.experiment.aggregate import METRICS, Z95, average_se
from docfact.experiment.plan import Plan
from docfact.experiment.results import read_runs
from docfact.experiment.runner import run

EXACT = 1e-12
OBJECTIVE_RTOL = 1e-9  # summation order moves the last bits (~1e-15); a changed formula more


def check(config: Config, committed: Path, jobs: int = 1, full: bool = False) -> list:
    """The failures (one line each) of both layers for `config` against folder `committed`.

    full: recompute every committed (k, run) instead of the check pairs, and require the new
    runs.csv to equal the committed one byte for byte."""
    committed_runs = _read(committed / "runs.csv")
    pairs = (sorted(set(zip(committed_runs["k"], committed_runs["run"], strict=True))) if full
             else config.check["pairs"])
    with tempfile.TemporaryDirectory() as tmp:
        out = run(Plan.of(config, pairs), Path(tmp) / config.name, jobs=jobs, progress=full)
        fresh = _read(out / "runs.csv")
        same_bytes = (out / "runs.csv").read_bytes() == (committed / "runs.csv").read_bytes()
    failures = _determinism(fresh, committed_runs)
    if full and not same_bytes:
        failures.append(f"runs.csv of {len(pairs)} recomputed runs differs from the committed "
                        "file")
    failures += _published(config, fresh, committed_runs)
    return failures


def _read(path: Path) -> pd.DataFrame:
    if not path.exists():
        raise DocfactError(f"{path} does not exist: run the table first")
    return read_runs(path)


def _determinism(fresh: pd.DataFrame, committed: pd.DataFrame) -> list:
    merged = fresh.merge(committed, on=["k", "run", "method"], how="left",
                         suffixes=("", "_committed"), indicator="found")
    failures = []
    for row in merged.itertuples():
        where = f"k={row.k} run={row.run} {row.method}"
        if row.found != "both":
            failures.append(f"{where}: not in the committed runs.csv")
            continue
        if row.status != row.status_committed:
            failures.append(f"{where}: status {row.status} != committed {row.status_committed}")
        for metric in ("ac", "nmi"):
            a, b = getattr(row, metric), getattr(row, f"{metric}_committed")
            if not (np.isnan(a) and np.isnan(b)) and not abs(a - b) <= EXACT:
                failures.append(f"{where}: {metric.upper()} {a:.6f} != committed {b:.6f}")
        a, b = _number(row.objective), _number(row.objective_committed)
        if not (np.isnan(a) and np.isnan(b)) and not abs(a - b) <= OBJECTIVE_RTOL * abs(b):
            failures.append(f"{where}: objective {a!r} != committed {b!r}")
        if str(row.n_iter) != str(row.n_iter_committed):
            failures.append(f"{where}: {row.n_iter} iterations != committed "
                            f"{row.n_iter_committed}")
    return failures


def _number(value) -> float:
    """A runs.csv field as a float, NaN when empty."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _published(config: Config, fresh: pd.DataFrame, committed: pd.DataFrame) -> list:
    ks = sorted(set(fresh["k"]))
    margin = config.check["margin"]
    failures = []
    for m in config.methods:
        for metric in METRICS:
            mine = fresh[(fresh.method == m.name) & (fresh.status == "ok")]
            per_k = mine.groupby("k")[metric].agg(["mean", "count"])
            if len(per_k) != len(ks):
                failures.append(f"{m.name} {metric.upper()}: no successful run for some k")
                continue
            spread = committed[(committed.method == m.name) & (committed.status == "ok")
                               ].groupby("k")[metric].std().reindex(per_k.index).fillna(0)
            ours = per_k["mean"].mean()
            se = average_se(spread, per_k["count"])
            if m.name in config.check["against_own"]:
                own = committed[(committed.method == m.name) & committed.k.isin(ks)
                                & (committed.status == "ok")]
                ref, what = own.groupby("k")[metric].mean().mean(), "our committed average"
            else:
                ref = config.published_average(metric, m.name, ks)[0]
                if ref is None:
                    continue
                ref, what = ref / config.scale, "published average"
            if abs(ours - ref) > Z95 * se + margin:
                failures.append(f"{m.name} {metric.upper()}: {ours:.3f} over k={ks} is off "
                                f"{what} {ref:.3f} by more than {Z95} SE ({se:.3f}) + {margin}")
    return failures
