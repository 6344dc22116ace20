"""A table's rows computed in mixed precision (numerics: float32 kernel products, float64
factors) against the float64 rows they replaced, draw by draw.

For each pair NAME=MIXED_FOLDER:FLOAT64_FOLDER[:M1,M2] (results folders of one table, only the
methods' numerics differing; M1,M2: only these methods), the comparison of float32_tables.py
(paired differences of AC and NMI with their 95% intervals, the share of runs whose AC is
unchanged, the float64 average over k against the mixed one's 95% interval), and the CPU-hours
of the compared rows in each folder (timings.csv). The float64 folders are the committed ones
before the regeneration (bench/README.md gives the commit):

    git worktree add /tmp/former COMMIT
    python bench/mixed_tables.py NAME=results/NAME:/tmp/former/results/NAME:CNPCF ... \
        --csv bench/MIXED.csv --md bench/MIXED.md
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

from pathlib import Path

import pandas as pd

from docfact.experiment.results import read_timings

from float32_tables import cli, compare, rows  # bench/float32_tables.py, beside this script


def hours(folder: Path, methods) -> float:
    """CPU-hours of `methods`' rows recorded in `folder` (all its methods when None)."""
    t = read_timings(folder)
    return float(t[t["method"].isin(methods)]["seconds"].sum() if methods else
                 t["seconds"].sum()) / 3600


def pair(name: str, folders: str) -> pd.DataFrame:
    """MIXED_FOLDER:FLOAT64_FOLDER[:M1,M2] compared."""
    mixed, reference, *only = folders.split(":")
    methods = only[0].split(",") if only else None
    table = compare(name, Path(mixed), Path(reference), methods)
    return table.assign(hours_64=hours(Path(reference), methods),
                        hours_mixed=hours(Path(mixed), methods))


def markdown(table: pd.DataFrame) -> str:
    before, after = (table.groupby("table")[c].first().sum() for c in ("hours_64", "hours_mixed"))
    lines = ["# Mixed precision against float64, table by table", "",
             "Made by `bench/mixed_tables.py` (its docstring says how). Paired on the same "
             "draws (k, run): the difference mixed - float64 with its 95% interval, the share "
             "of runs with the same AC, and the average over k of each, the float64 one against "
             "the mixed one's 95% interval; the CPU-hours of the compared rows in each folder.",
             "", f"In all: {int(table['inside'].sum())} of {len(table)} method x metric "
             f"averages of float64 inside the mixed interval; the rows' CPU-hours {before:.3f} in "
             f"float64, {after:.3f} in mixed precision.", ""]
    for name, t in table.groupby("table", sort=False):
        lines += [f"## {name}", "",
                  f"{int(t['draws'].max())} draws per method at {int(t['k'].max())} values of "
                  f"k; CPU-hours {t['hours_64'].iloc[0]:.3f} in float64, "
                  f"{t['hours_mixed'].iloc[0]:.3f} in mixed precision.", ""]
        lines += [rows(t, "mixed"), ""]
    return "\n".join(lines)


def main():
    cli(__doc__, "bench/MIXED.csv", "bench/MIXED.md", pair, markdown)


if __name__ == "__main__":
    main()
