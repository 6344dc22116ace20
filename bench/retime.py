"""Give a committed table's rows the seconds the current code takes, when it computes the same
records: recompute the methods named, compare every record with the committed one, and only if
all are equal replace those rows' seconds in timings.csv (nothing is written otherwise).

A change that only makes a method faster (ARPACK for the kernel rows' eigenvectors, the replay
of weighted kernel k-means' cycles) keeps the committed digits, and the committed seconds are
then the former code's: `make reproduce` would spend less. A change that moves one record must
rerun the table instead (`docfact run --fresh --donors`), and this refuses it, naming the first
record that differs.

    python bench/retime.py results/lccf_tdt2 [--methods AA-poly,NC-poly] [--jobs 2] [--k 9,10]

Each folder retimed adds a line to bench/RETIMES.csv (`--ledger`): when, which rows (the
methods that had rows retimed), their CPU-hours before and after, the median per-fit ratio
(former seconds over new), and the load average (1 minute) before and after, so that a reader
can tell a quiet machine's seconds from a loaded one's.

Without `--methods`, every method the folder computed itself (a row taken from another folder
is recorded at 0 s, its cost counted where it was computed, and keeps it).

The records are held in memory until every one is compared: `--k` retimes some k only, so that
a large table can be retimed in parts that each fit the time at hand.
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
import csv
import io
import os
import statistics
import sys
from datetime import datetime, timezone
from pathlib import Path

from joblib import Parallel, delayed

from docfact import atomic
from docfact.experiment.plan import Plan, resolve
from docfact.experiment.results import read_setup
from docfact.experiment.runner import run_one
from docfact.experiment.store import FIELDS, TIMING_FIELDS, Lock, _csv, parse_record
from docfact.experiment.sweep import baseline_config


def _records(text: str) -> dict:
    """{(k, run, method): record as runs.csv writes it} of a runs.csv text: parsed and written
    again, as the store does when it rewrites the file (an unset objective reads back nan)."""
    return {(int(r["k"]), int(r["run"]), r["method"]): _csv([parse_record(r)], FIELDS)
            for r in csv.DictReader(io.StringIO(text))}


def _computed(folder: Path) -> set:
    """The (k, run, method) of `folder`'s rows computed there: seconds > 0 (a row taken from
    another folder is recorded at 0 s, its cost counted where it was computed)."""
    rows = csv.DictReader(io.StringIO(atomic.read_text(folder / "timings.csv")))
    return {(int(r["k"]), int(r["run"]), r["method"]) for r in rows if float(r["seconds"]) > 0}


def computed_here(folder: Path) -> list:
    """The methods of `folder` with a row computed there."""
    return sorted({m for _, _, m in _computed(folder)})


def retime(folder: Path, methods: list, jobs: int, ks=None) -> dict:
    """Recompute `methods` on every run of `folder` (at the k in `ks`, every k when None);
    return {(k, run, method): (former seconds, new seconds)} of the rows retimed (a row taken
    from another folder keeps its 0 s)."""
    config, manifest = read_setup(folder)
    plan = Plan.of(baseline_config(resolve(config), methods))
    if plan.data_hash() != manifest.get("data_hash"):
        sys.exit(f"{folder}: the data file differs from the one its runs were computed on")
    committed = _records(atomic.read_text(folder / "runs.csv"))
    todo = {(k, r, m) for k, r, m in _computed(folder) if m in methods and (ks is None or k in ks)}
    pairs = sorted({(k, r) for k, r, _ in todo})
    corpus = plan.corpus()
    X = plan.base_matrix(corpus)
    done = Parallel(n_jobs=jobs)(delayed(run_one)(plan, plan.task(X, corpus.y, k, r), {})
                                 for k, r in pairs)
    seconds = {}
    for rows, timings in done:
        for row, timing in zip(rows, timings, strict=True):
            key = (row["k"], row["run"], row["method"])
            new = _records(",".join(FIELDS) + "\n" + _csv([row], FIELDS))[key]
            if new != committed[key]:
                sys.exit(f"{folder}: {key} recomputes to {new.strip()}, committed "
                         f"{committed[key].strip()}; "
                         "nothing written (this code moves digits: rerun the table)")
            if key in todo:
                seconds[key] = timing["seconds"]
    with Lock(folder):
        text = atomic.read_text(folder / "timings.csv")
        rows = [dict(zip(TIMING_FIELDS, r, strict=True))
                for r in list(csv.reader(io.StringIO(text)))[1:]]
        replaced = {}
        for row in rows:
            key = (int(row["k"]), int(row["run"]), row["method"])
            if key in seconds:
                replaced[key] = (float(row["seconds"]), seconds[key])
                row["seconds"] = seconds[key]
        atomic.write_text(folder / "timings.csv",
                          ",".join(TIMING_FIELDS) + "\n" + _csv(rows, TIMING_FIELDS))
    return replaced


LEDGER_FIELDS = ["date", "folder", "k", "methods", "rows", "cpu_hours_before",
                 "cpu_hours_after", "median_ratio", "load_before", "load_after"]


def ledger_row(folder: Path, ks, methods: list, replaced: dict, loads: tuple) -> dict:
    """One line of the ledger: the rows `replaced` ({key: (former, new)}) of `folder`."""
    former, new = zip(*replaced.values(), strict=True) if replaced else ((), ())
    ratios = [old / now for old, now in replaced.values() if now > 0]
    return {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"),
            "folder": folder.as_posix(),
            "k": "all" if ks is None else " ".join(map(str, sorted(ks))),
            "methods": " ".join(m for m in methods if any(m == key[2] for key in replaced)),
            "rows": len(replaced),
            "cpu_hours_before": f"{sum(former) / 3600:.3f}",
            "cpu_hours_after": f"{sum(new) / 3600:.3f}",
            "median_ratio": f"{statistics.median(ratios):.2f}" if ratios else "",
            "load_before": f"{loads[0]:.2f}", "load_after": f"{loads[1]:.2f}"}


def append_ledger(path: Path, row: dict) -> None:
    """Add `row` to the ledger CSV at `path`, its header written first if the file is new."""
    new = not path.exists()
    with open(path, "a", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, LEDGER_FIELDS, lineterminator="\n")
        if new:
            writer.writeheader()
        writer.writerow(row)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--methods", help="comma-separated method names (default: every method "
                    "with a row computed in the folder)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--k", help="comma-separated k to retime (default: every k)")
    ap.add_argument("--ledger", type=Path, default=Path(__file__).parent / "RETIMES.csv",
                    help="the CSV each folder retimed adds a line to (default: %(default)s)")
    args = ap.parse_args()
    ks = None if args.k is None else {int(k) for k in args.k.split(",")}
    for folder in args.folders:
        methods = args.methods.split(",") if args.methods else computed_here(folder)
        load = os.getloadavg()[0]
        replaced = retime(folder, methods, args.jobs, ks)
        row = ledger_row(folder, ks, methods, replaced, (load, os.getloadavg()[0]))
        append_ledger(args.ledger, row)
        print(f"{folder}: {len(replaced)} rows recomputed to the committed records, their "
              f"seconds replaced: {row['cpu_hours_before']} -> {row['cpu_hours_after']} "
              f"CPU-hours (median per-fit ratio {row['median_ratio']})")


if __name__ == "__main__":
    main()
