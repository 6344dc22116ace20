"""A table computed in float32 (numerics) against the same table's float64 runs, draw by draw.

For each pair NAME=FLOAT32_FOLDER:FLOAT64_FOLDER[:M1,M2] (results folders of one table: same
documents, seed and methods, only the factorizations' numerics differ; M1,M2: only these
methods, e.g. the one a primary computes in float64), on the (k, run, method) both hold
for the factorizing methods (the rows numerics change; K-means and spectral rows are the same
records in both): the paired difference of AC and NMI (float32 - float64) with its 95%
interval, the share of runs whose AC is unchanged, and the average over k of each on those
draws, the float64 one set against the float32 one's 95% interval (the report's: per-k means,
standard error of their average). Writes a CSV (one row per table, method and metric) and a
Markdown summary.

    python bench/float32_tables.py NAME=F32:F64[:METHODS] [...] --csv bench/FLOAT32_TABLES.csv
                                   --md bench/FLOAT32_TABLES.md
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from tabulate import tabulate

from docfact.experiment.aggregate import METRICS, average_se, summarize
from docfact.experiment.plan import resolve
from docfact.experiment.results import read_setup, read_runs


def half_width(d: pd.Series) -> float:
    """Half-width of the 95% interval (Student's t) of the mean of the paired differences d."""
    return stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))


def compare(name: str, fast: Path, reference: Path, only=None) -> pd.DataFrame:
    """One row per (method, metric) of the factorizations both folders hold (of `only`'s
    methods, if given)."""
    config = resolve(read_setup(fast)[0])
    factorizing = [m.name for m in config.methods if m.factorizes and (not only or m.name in only)]
    keys = ["k", "run", "method"]
    a, b = (read_runs(folder / "runs.csv") for folder in (fast, reference))
    a, b = (r[r["method"].isin(factorizing) & (r["status"] == "ok")] for r in (a, b))
    pairs = a.merge(b, on=keys, suffixes=("_32", "_64"))
    rows = []
    for method in factorizing:
        p = pairs[pairs["method"] == method]
        if p.empty:
            continue
        ks = sorted(p["k"].unique())
        for metric in METRICS:
            d = p[f"{metric}_32"] - p[f"{metric}_64"]
            half = half_width(d)
            avg = {}
            for tag in ("32", "64"):
                runs = p.rename(columns={f"{m}_{tag}": m for m in METRICS}).assign(status="ok")
                s = summarize(runs, [method], ks)
                per_k = s[(s["metric"] == metric) & (s["k"] != "avg")]
                avg[tag] = (float(per_k["mean"].mean()), average_se(per_k["std"], per_k["n"]))
            low, high = avg["32"][0] - 1.96 * avg["32"][1], avg["32"][0] + 1.96 * avg["32"][1]
            rows.append({"table": name, "method": method, "metric": metric.upper(),
                         "draws": len(d), "k": len(ks),
                         "diff": d.mean(), "diff_low": d.mean() - half,
                         "diff_high": d.mean() + half, "unchanged": float((d.abs() < 1e-12).mean()),
                         "avg_64": avg["64"][0], "avg_32": avg["32"][0], "ci_low": low,
                         "ci_high": high, "inside": bool(low <= avg["64"][0] <= high)})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    lines = ["# float32 against float64, table by table", "",
             "Made by `bench/float32_tables.py` (its docstring says how). Paired on the same "
             "draws (k, run): the difference float32 - float64 with its 95% interval, the share "
             "of runs with the same AC, and the average over k of each, the float64 one against "
             "the float32 one's 95% interval.", ""]
    for name, t in table.groupby("table", sort=False):
        inside = int(t["inside"].sum())
        lines += [f"## {name}", "",
                  f"{inside} of {len(t)} method x metric averages of float64 inside the float32 "
                  f"interval; {int(t['draws'].max())} draws per method at {int(t['k'].max())} "
                  "values of k.", ""]
        lines += [rows(t, "float32"), ""]
    return "\n".join(lines)


def rows(t: pd.DataFrame, fast: str) -> str:
    """One table's comparison rows (compare's frame) as a Markdown table; `fast` names the
    numerics set against float64."""
    show = t.assign(**{
        "diff [95% CI]": [f"{r.diff:+.4f} [{r.diff_low:+.4f}, {r.diff_high:+.4f}]"
                          for r in t.itertuples()],
        f"{fast} avg [95% CI]": [f"{r.avg_32:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]"
                                 for r in t.itertuples()]})
    return tabulate(show[["method", "metric", "draws", "diff [95% CI]", "unchanged", "avg_64",
                          f"{fast} avg [95% CI]", "inside"]],
                    headers="keys", showindex=False, floatfmt=".4f", tablefmt="github")


def cli(doc: str, csv: str, md: str, pair, markdown) -> None:
    """The command line of a pairing script: NAME=FOLDER:FOLDER[:...] pairs, each made a
    DataFrame by pair(name, folders), joined, written as CSV and Markdown, and printed."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("pairs", nargs="+", help="NAME=FOLDER:FOLDER[:...] (see above)")
    parser.add_argument("--csv", type=Path, default=Path(csv))
    parser.add_argument("--md", type=Path, default=Path(md))
    args = parser.parse_args()
    table = pd.concat([pair(*spec.split("=", 1)) for spec in args.pairs], ignore_index=True)
    table.to_csv(args.csv, index=False, float_format="%.6f")
    args.md.write_text(markdown(table) + "\n")
    print(markdown(table))


def pair(name: str, folders: str) -> pd.DataFrame:
    """FLOAT32_FOLDER:FLOAT64_FOLDER[:M1,M2] compared."""
    fast, reference, *only = folders.split(":")
    return compare(name, Path(fast), Path(reference), only[0].split(",") if only else None)


def main():
    cli(__doc__, "bench/FLOAT32_TABLES.csv", "bench/FLOAT32_TABLES.md", pair, markdown)


if __name__ == "__main__":
    main()
