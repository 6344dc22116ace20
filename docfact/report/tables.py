"""A results folder's tables, in the paper's layout, from its files alone (no rerun).

Reads config.yaml, runs.csv and manifest.json; writes ac.csv, nmi.csv and tables.md (`show`
writes nothing). Each cell reads "ours (paper)": our mean ± std over the runs, the published
value beside it; the Avg. row adds our difference from the published average.
"""

from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

from docfact import atomic
from docfact.experiment.aggregate import METRICS, summarize
from docfact.experiment.results import read_folder, read_timings

TITLES = {"ac": "Accuracy", "nmi": "Normalized mutual information"}


def wall_seconds(folder: Path, manifest: dict) -> tuple:
    """(seconds, recorded): a results folder's recorded wall time, or, when that lies below the
    least the runs could have taken (their methods' seconds in timings.csv over the workers;
    sessions cut short before the manifest kept partial times recorded none), that least time,
    with recorded False."""
    wall = sum(manifest.get("wall_seconds", []))
    cpu = read_timings(folder)["seconds"].sum()
    workers = manifest["jobs"] if manifest["jobs"] > 0 else manifest["cores"]
    return (wall, True) if wall >= cpu / workers else (cpu / workers, False)


def runtime(folder: Path, manifest: dict) -> str:
    """A results folder's run time for a reader (wall_seconds), a lower bound marked as such."""
    seconds, recorded = wall_seconds(folder, manifest)
    return (f"{seconds / 60:.0f} min" if recorded
            else f">= {seconds / 60:.0f} min (wall time partly unrecorded)")


def numerics_words(config) -> str:
    """How the factorizations computed, when not in the default float64: '; ...' or ''. The
    numerics most methods share come first, as the factorizations'; methods set apart by their
    own are named after them ('; CNPCF in float64 (products auto)')."""
    found = {}
    for m in config.methods:
        if m.numerics:
            found.setdefault(tuple(sorted(m.numerics.items())), []).append(m.name)
    most = max(found, key=lambda n: len(found[n]), default=None)
    return "".join(f"; {'factorizations' if n == most else ', '.join(found[n])} in "
                   f"{PRECISION_WORDS.get(dict(n).get('precision', 'float64'))} (products "
                   f"{dict(n).get('products', 'reference')})"
                   for n in sorted(found, key=lambda n: (n != most, n)))


PRECISION_WORDS = {"float64": "float64", "float32": "float32",
                   "mixed": "mixed precision: float32 products, float64 factors"}


def protocol_words(manifest: dict) -> str:
    """What a run's protocol adds to k, runs and seed: the k largest classes when they are not
    drawn, how its result was chosen, when it was the best of several sub-runs, and how many
    labels the semi-supervised methods saw; else ''."""
    n, t = manifest.get("best_of", 1), manifest.get("labelled")
    if manifest.get("constraints") == "pairs":
        labels = (f"; constraints: {100 * t:g}% of all document pairs, must-link or cannot-link "
                  "by class, for the semi-supervised methods (CCF and GDCF: the must-link "
                  "components as classes)")
    else:
        labels = (f"; labelled: {100 * t:g}% of each class's documents (at least one), for the "
                  "semi-supervised methods" if t is not None else "")
    by = "lowest objective" if manifest.get("best_by") == "objective" else "AC"
    classes = ("; classes: the k largest of the view in every run, not drawn"
               if manifest.get("class_rule") == "largest" else "")
    return classes + (f"; each run the best (by {by}) of {n} sub-runs" if n > 1 else "") + labels


def holds_full_protocol(config, ks, counts) -> bool:
    """Whether runs recorded at `ks`, `counts` runs per k, are the config's whole protocol (its
    notes, which quote the full table's numbers, are shown under it only then)."""
    return set(ks) >= set(config.k) and min(counts, default=0) >= config.runs


def tables(folder, ks=None, runs=None) -> tuple:
    """(Markdown of every recorded run, {"ac.csv": text, "nmi.csv": text}, Markdown of the runs
    asked: those of the k values `ks` and run numbers below `runs`, default all) of a results
    folder, from its files alone; nothing is written."""
    folder = Path(folder)
    config, records, manifest = read_folder(folder, recorded=True)
    methods = [m.name for m in config.methods]
    recorded = sorted(int(k) for k in records["k"].unique())
    summary = summarize(records, methods, recorded)
    csvs = {}
    for metric in METRICS:
        wide = summary[summary["metric"] == metric].pivot(index="k", columns="method",
                                                          values=["mean", "std", "n"])
        wide = wide.reindex([*recorded, "avg"])
        wide.columns = [f"{method} {stat}" for stat, method in wide.columns]
        wide = wide[[f"{m} {s}" for m in methods for s in ("mean", "std", "n")]]
        counts = [c for c in wide.columns if c.endswith(" n")]
        wide[counts] = wide[counts].astype("Int64")  # run counts as integers
        csvs[f"{metric}.csv"] = wide.to_csv(float_format="%.6f")
    text = render(config, summary, recorded, manifest)
    asked = records[records["k"].isin(ks if ks is not None else recorded)
                    & (records["run"] < (runs if runs is not None else np.inf))]
    if len(asked) == len(records):
        return text, csvs, text
    shown = sorted(int(k) for k in asked["k"].unique())
    return text, csvs, render(config, summarize(asked, methods, shown), shown, manifest)


def write_tables(folder, ks=None, runs=None) -> str:
    """Write ac.csv, nmi.csv and tables.md in `folder` (every recorded run); return the Markdown
    of the runs asked (see tables)."""
    text, csvs, asked = tables(folder, ks, runs)
    for name, csv in csvs.items():
        atomic.write_text(Path(folder) / name, csv)
    atomic.write_text(Path(folder) / "tables.md", text)
    return asked


def render(config, summary: pd.DataFrame, ks: list, manifest: dict) -> str:
    scale, digits = config.scale, (1 if config.unit == "percent" else 3)
    unit = " (%)" if config.unit == "percent" else ""
    methods = [m.name for m in config.methods]
    published = config.published
    lines = [f"# {config.title}", ""]
    if published:
        lines += [f"Published: {published['source']}. Each cell: ours, the mean ± standard "
                  "deviation over the runs (the paper's mean).", ""]
    runs_per_k = summary[(summary["metric"] == "ac") & (summary["k"] != "avg")]
    counts = sorted(set(runs_per_k["n"] + runs_per_k["failed"]))
    lines += [
        f"Data: view `{view_words(manifest['view'])}` ({manifest['documents']} documents, "
        f"{manifest['classes']} classes), weighting `{manifest['weighting']}` on the "
        f"{manifest['weight_on']}; runs per k: {', '.join(map(str, counts))}; seed "
        f"{manifest['seed']}{protocol_words(manifest)}{numerics_words(config)}.",
        "",
    ]

    partial = False

    def paper_value(metric, method, k):
        """The published value at k, or its average over the k values run (see Config)."""
        if k != "avg":
            return config.published_value(metric, method, k)
        nonlocal partial
        value, over_fewer = config.published_average(metric, method, ks)
        partial |= over_fewer
        return value

    def cell(metric, method, k):
        row = summary[(summary["metric"] == metric) & (summary["method"] == method)
                      & (summary["k"].astype(str) == str(k))].iloc[0]
        if row["n"] == 0:
            text = "n/a"
        elif k == "avg":
            text = f"{row['mean'] * scale:.{digits}f}"
        else:
            std = "" if np.isnan(row["std"]) else f"±{row['std'] * scale:.{digits}f}"
            text = f"{row['mean'] * scale:.{digits}f}{std}"
        if k != "avg" and row["failed"]:
            text += f" [{row['failed']} failed]"
        if k == "avg" and 0 < row["n"] < len(ks):  # not comparable with a full row's
            text += f" [{row['n']} of {len(ks)} k]"
        paper = paper_value(metric, method, k)
        if paper is not None:
            text += f" ({paper:.{digits}f})"
            if k == "avg" and row["n"]:
                delta = round(row["mean"] * scale - paper, digits) + 0.0  # no "-0.0"
                text += f" Δ {delta:+.{digits}f}"
        return text

    for metric in METRICS:
        lines += [f"## {TITLES[metric]}{unit}", ""]
        if config.layout == "k_by_method":
            header = ["k", *methods]
            body = [[k, *(cell(metric, m, k) for m in methods)] for k in ks]
            body.append(["Avg.", *(cell(metric, m, "avg") for m in methods)])
        else:
            header = ["Method", *map(str, ks), "Avg."]
            body = []
            for heading, members in config.groups:
                if heading:
                    body.append([f"*{heading}*", *[""] * (len(ks) + 1)])
                body += [[m, *(cell(metric, m, k) for k in [*ks, "avg"])] for m in members]
        lines += [tabulate(body, header, tablefmt="github", disable_numparse=True), ""]
    if partial:
        lines += ["Avg. of a run over fewer k than the paper: the published value beside it is "
                  "the mean of the paper's values for the same k.", ""]
    if config.notes and holds_full_protocol(config, ks, counts):
        lines += ["## Notes", "", config.notes.strip(), ""]
    elif config.notes:
        lines += [f"The config's `notes` describe the full table ({config.runs} runs at k = "
                  f"{k_words(config.k)}) and are not repeated under this one "
                  f"({runs_words(counts)} at k = {k_words(ks)}).", ""]
    return "\n".join(lines)


def k_words(ks) -> str:
    """k values for a reader: '2..10' for a range of three or more, else '2, 6, 10'."""
    ks = sorted(ks)
    if len(ks) >= 3 and ks == list(range(ks[0], ks[-1] + 1)):
        return f"{ks[0]}..{ks[-1]}"
    return ", ".join(map(str, ks))


def runs_words(counts) -> str:
    """Runs per k for a reader: '1 run', '50 runs', or '3, 50 runs' when k differ."""
    counts = [counts] if isinstance(counts, int) else list(counts)
    return f"{', '.join(map(str, counts))} run{'' if counts == [1] else 's'}"


def view_words(view) -> str:
    """A data view for a reader: its name, a path, or an inline view as 'key: value, ...'."""
    if isinstance(view, dict):
        return ", ".join(f"{key}: {value}" for key, value in view.items())
    return str(view)
