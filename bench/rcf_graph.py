"""RCF's rows computed on the structured W~ (graphs.ConstrainedGraph) against the same rows
computed on the dense W~, draw by draw: the same matrix, its products summed in another order.

For each pair NAME=NEW_FOLDER:FORMER_FOLDER (results folders of one table, e.g. a primary and
its copy at the commit before the structured form), on the runs both hold: the paired
difference of RCF's AC and NMI (new - former) with its 95% interval, the share of runs whose
AC is unchanged, each average over k with the new one's 95% interval, and the CPU-hours of
the RCF rows in each folder's timings.csv. Writes a CSV and a Markdown summary.

    python bench/rcf_graph.py NAME=NEW:FORMER [...] --csv bench/RCF_GRAPH.csv
                              --md bench/RCF_GRAPH.md
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

from pathlib import Path

import pandas as pd
from float32_tables import cli, compare
from tabulate import tabulate

from docfact.experiment.results import read_timings

COLUMNS = {"avg_32": "avg_new", "avg_64": "avg_former"}


def hours(folder: Path) -> float:
    t = read_timings(folder)
    return float(t.loc[t["method"] == "RCF", "seconds"].sum()) / 3600


def markdown(table: pd.DataFrame) -> str:
    lines = ["# RCF on the structured W~ against the dense W~", "",
             "Made by `bench/rcf_graph.py` (its docstring says how). With products \"auto\", "
             "RCF holds W~ = max(F, 0) + W * (1 - |F|) as a sparse part and the dense blocks of "
             "the documents leaning to one class (`graphs.ConstrainedGraph`): the same matrix, "
             "W~ V summed in another order. Paired on the same draws (k, run): the difference "
             "new - former with its 95% interval, the share of runs with the same AC, the "
             "averages over k (the former against the new one's 95% interval), and the RCF "
             "rows' CPU-hours (timings.csv).", ""]
    show = table.assign(**{
        "diff [95% CI]": [f"{r.diff:+.4f} [{r.diff_low:+.4f}, {r.diff_high:+.4f}]"
                          for r in table.itertuples()],
        "new avg [95% CI]": [f"{r.avg_new:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]"
                             for r in table.itertuples()]})
    lines += [tabulate(show[["table", "metric", "draws", "diff [95% CI]", "unchanged",
                             "avg_former", "new avg [95% CI]", "inside", "cpu_h_former",
                             "cpu_h_new"]],
                       headers="keys", showindex=False, floatfmt=".4f", tablefmt="github"), ""]
    return "\n".join(lines)


def pair(name: str, folders: str) -> pd.DataFrame:
    """NEW_FOLDER:FORMER_FOLDER compared on RCF's rows, with their CPU-hours."""
    new, former = (Path(f) for f in folders.split(":"))
    return compare(name, new, former, ["RCF"]).rename(columns=COLUMNS).assign(
        cpu_h_former=hours(former), cpu_h_new=hours(new))


def main():
    cli(__doc__, "bench/RCF_GRAPH.csv", "bench/RCF_GRAPH.md", pair, markdown)


if __name__ == "__main__":
    main()
