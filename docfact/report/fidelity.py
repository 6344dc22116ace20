"""Published versus measured: every table's method rows, with a confidence interval and a verdict.

Our average over k is the mean of the per-k means, so its standard error is
sqrt(sum_k s_k^2 / n_k) / |k| (runs of different k are independent); the 95% interval is
+- 1.96 standard errors. A row is "within CI" when the published average lies in that interval,
"within 0.02" when it lies within 0.02 (AC or NMI as fractions) of ours, else "outside".
"""

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

from docfact import atomic
from docfact.errors import ConfigNote, DocfactError
from docfact.experiment.aggregate import METRICS, Z95, average_se, summarize
from docfact.experiment.results import read_folder, read_manifest, table_of
from docfact.report.causes import FILE, read_causes
from docfact.report.claims import claim_words, judge
from docfact.report.readme import splice
from docfact.report.tables import (
    holds_full_protocol,
    numerics_words,
    protocol_words,
    runtime,
    view_words,
    wall_seconds,
)

TOLERANCE = 0.02


def verdict(diff: float, se: float) -> str:
    """A row's verdict: "within CI" when |ours - published| <= 1.96 SE, else "within 0.02" when
    |ours - published| <= TOLERANCE, else "outside"."""
    if abs(diff) <= Z95 * se:
        return "within CI"
    return "within 0.02" if abs(diff) <= TOLERANCE else "outside"


def folders(results: Path) -> list:
    """The tables' folders under `results`, in name order: those holding the runs of the table
    they are named for (a folder holding another's, a copy renamed, is none, with a note)."""
    return [f for f in sorted(p.parent for p in Path(results).glob("*/manifest.json"))
            if _holds_its_table(f)]


def _holds_its_table(folder: Path) -> bool:
    name = table_of(folder) or folder.name  # unreadable: read_folder says why, in one line
    if name != folder.name:
        warnings.warn(f"{folder} holds the runs of table {name!r}: not reported (a table's "
                      "folder bears its name)", ConfigNote, stacklevel=2)
    return name == folder.name


def rows_of(folder: Path) -> tuple:
    """(rows, info) for one results folder: one row per (method, metric) with a published value."""
    config, runs, manifest = read_folder(folder)
    methods = [m.name for m in config.methods]
    ks = sorted(int(k) for k in runs["k"].unique())
    summary = summarize(runs, methods, ks)
    published = config.published
    out = []
    for metric in METRICS:
        for method in methods:
            per_k = summary[(summary.metric == metric) & (summary.method == method)
                            & (summary.k != "avg")]
            ok = per_k[per_k.n > 0]
            if ok.empty:
                continue
            ours = float(ok["mean"].mean())
            se = average_se(ok["std"], ok["n"])
            pub = config.published_average(metric, method,  # over the k ours averages
                                           [int(k) for k in ok["k"]])[0]
            pub = None if pub is None else pub / config.scale
            diff = None if pub is None else ours - pub
            out.append({"table": config.name, "kind": config.kind, "method": method,
                        "metric": metric.upper(),
                        "published": pub, "ours": ours, "diff": diff,
                        "ci_low": ours - Z95 * se, "ci_high": ours + Z95 * se,
                        "runs": int(ok["n"].sum()), "failed": int(per_k["failed"].sum()),
                        "verdict": "no published value" if pub is None else verdict(diff, se)})
    per_run = runs.drop_duplicates(["k", "run"])
    info = {"config": config, "manifest": manifest, "ks": ks,
            "full": holds_full_protocol(config, ks, per_run.groupby("k").size().tolist()),
            "claims": judge(config, summary, runs),
            "source": published.get("source", "") if published else "",
            "runs_with_notes": int((per_run["notes"] != "").sum()), "runs_done": len(per_run)}
    return out, info


PAPERS = {"pspt": "NMF-PSPt"}  # names the upper-cased config prefix would spell otherwise


def prefix_of(name: str) -> str:
    """A table's paper prefix: 'lccf' of 'lccf_tdt2_reference' (its readings are in
    results/lccf_readings)."""
    return name.split("_")[0]


def paper_of(name: str) -> str:
    prefix = prefix_of(name)
    return PAPERS.get(prefix, prefix.upper())


def pending(results: Path, configs: Path | None) -> list:
    """The configs in folder `configs` that have no result folder yet (the tables not run)."""
    from docfact.config import load_config

    if configs is None:
        return []
    return [c for c in map(load_config, sorted(Path(configs).glob("*.yaml")))
            if not (Path(results) / c.name / "manifest.json").exists()
            or (table_of(Path(results) / c.name) or c.name) != c.name]


def report_tables(found: list) -> list:
    """[(folder, rows, info)] of the results folders `found` (see rows_of)."""
    return [(folder, *rows_of(folder)) for folder in found]


def write_report(results: Path, readme: Path | None = None, configs: Path | None = None) -> str:
    """Write results/REPRODUCTION.md and .csv (with the table of tables, and the README's line
    linking to it) from the result files alone; return the md. Its pictures are drawn apart
    (report.figures). Tables of `configs` (a folder of configs) without results are listed as
    not yet run."""
    results = Path(results)
    found = folders(results)
    sweeps = sweep_folders(results)
    waiting = pending(results, configs)
    if not found:
        raise DocfactError(f"{results}: no result folders (each holds a manifest.json); "
                           "run `docfact run CONFIG` first")
    tables = report_tables(found)
    causes = read_causes(results, {info["config"].name: [m.name for m in info["config"].methods]
                                   for _, _, info in tables})
    pictures = picture_names(tables)
    frame = pd.DataFrame([r for _, rows, _ in tables for r in rows])
    atomic.write_text(results / "REPRODUCTION.csv", _csv(frame))

    lines = ["# Reproduction report", "",
             "Generated by `docfact report` from the result folders alone. Averages over k as "
             "fractions; 95% interval of our average from the spread over runs; verdict: "
             f"published value within that interval, within {TOLERANCE}, or outside.", ""]
    if (results / "FINDINGS.md").exists():
        lines += ["What the measurements say, in words: [`FINDINGS.md`](FINDINGS.md).", ""]
    if "all" in pictures:
        lines += [f"![Ours against the published averages, all papers]({pictures['all']})", "",
                  "Each point is a method's AC or NMI averaged over k (published on x, ours on "
                  "y, our 95% interval as a bar); the grey band is the diagonal +- "
                  f"{TOLERANCE}. Each paper's section below opens with its own picture, every "
                  "point outside the band named.", ""]
    lines += ["## Summary", ""]
    summary = []
    kinds = sorted({(paper_of(info["config"].name), info["config"].kind) for _, _, info in tables},
                   key=lambda pk: (pk[0], pk[1] != "table"))
    for paper, kind in kinds:
        sub = frame[(frame["table"].map(paper_of) == paper) & (frame["kind"] == kind)]
        counts = sub["verdict"].value_counts()
        summary.append([paper, kind, len(sub), counts.get("within CI", 0),
                        counts.get("within 0.02", 0), counts.get("outside", 0)])
    lines += [tabulate(summary, ["paper", "tables", "rows", "within CI", "within 0.02",
                                 "outside"], tablefmt="github"), "",
              "Sensitivity tables rerun a paper's table with one protocol setting changed; "
              "their notes say which and why.", "",
              *_causes_words(frame, causes),
              f"Wall time of the runs so far: {total_time(found)} over the tables and "
              f"{total_time(sweeps)} over the figures' sweeps (sums of the "
              f"recorded times; `make reproduce` runs both).", ""]
    lines += _claims_section(tables, results)
    table, done, planned = _table_of_tables(tables, waiting, total_time(found + sweeps), configs)
    lines += ["## Tables", "", "Each table's command, its wall time here, its runs and its rows "
              "against the published ones (`make reproduce` runs them all).", "", table, ""]
    pages, audits = readings_pages(results), audit_pages(results)
    if pages:
        lines += ["Readings of the settings the papers leave unstated, scored against the "
                  "published rows (`docfact readings PAPER`): " + ", ".join(
                      f"[{p.parent.name}]({p.relative_to(results)})" for p in pages) + ".", ""]
    if audits:
        lines += ["Audits of the methods that do not reproduce (derivation checks, readings "
                  "tried with their numbers, toys): " + ", ".join(
                      f"[{p.parent.name}]({p.relative_to(results)})" for p in audits) + ".", ""]
    if waiting:
        lines += ["Not run yet (no results): " + ", ".join(
            f"`{c.name}` ({paper_of(c.name)}, {_table_name(c)})" for c in waiting) + ".", ""]
    paper = None
    for folder, rows, info in tables:
        config, manifest = info["config"], info["manifest"]
        if paper_of(config.name) != paper:
            paper = paper_of(config.name)
            lines += [f"## {paper}", ""]
            if paper in pictures:
                lines += [f"![{paper}: ours against the published averages]"
                          f"({pictures[paper]})", ""]
        lines += [f"### {config.title}", "",
                  f"`{folder.name}` - {info['source']}", "",
                  f"- data: view `{view_words(manifest['view'])}`, {manifest['documents']} "
                  "documents, "
                  f"{manifest['classes']} classes; weighting `{manifest['weighting']}` on the "
                  f"{manifest['weight_on']}",
                  f"- protocol: k = {', '.join(map(str, info['ks']))}; runs per k as recorded; "
                  f"seed {manifest['seed']}{protocol_words(manifest)}"
                  f"{numerics_words(config)}; label readers and "
                  "parameters in "
                  f"[`config.yaml`]({folder.name}/config.yaml)",
                  f"- data notes: {info['runs_with_notes']} of {info['runs_done']} runs have "
                  "exact duplicate documents (counted per run in `runs.csv`, column notes)",
                  f"- wall time: {runtime(folder, manifest)} on {manifest['cores']} cores; "
                  f"tables: [`tables.md`]({folder.name}/tables.md); "
                  f"figures: {_figures(folder)}", ""]
        notes = config.notes and info["full"]  # they quote the full table's numbers
        body = [[r["method"], r["metric"], _f(r["published"]), _f(r["ours"]), _f(r["diff"], "+"),
                 "n/a" if np.isnan(r["ci_low"]) else f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
                 r["runs"],
                 _verdict_cell(r, causes, f"#notes-{folder.name}" if notes else None)]
                for r in rows]
        lines += [tabulate(body, ["method", "metric", "published", "ours", "diff", "95% CI",
                                  "runs", "verdict"], tablefmt="github", disable_numparse=True), ""]
        lines += [f"![AC and NMI against k]({folder.name}/k.png)", ""]
        if notes:
            lines += [f'<a id="notes-{folder.name}"></a>Notes:', "", config.notes.strip(), ""]
        elif config.notes:
            lines += ["The config's notes describe its full protocol: see them in "
                      f"[`config.yaml`]({folder.name}/config.yaml).", ""]
    text = "\n".join(lines)
    atomic.write_text(results / "REPRODUCTION.md", text)
    if readme is not None:
        _update_readme(readme, (results / "REPRODUCTION.md").resolve(), found, done, planned,
                       total_time(found + sweeps))
    return text


def _claims_section(tables: list, results: Path) -> list:
    """The papers' headline claims on the primary tables (report.claims); a claim that fails
    links its paper's readings landscape and method audit (results/<paper>_readings/)."""
    claims = [(info["config"], c) for _, _, info in tables if info["config"].kind == "table"
              for c in info["claims"]]
    if not claims:
        return []
    body = [[paper_of(config.name), config.name,
             claim_words(c, [m.name for m in config.methods]),
             f"{c['ac']:.3f}", f"{c['ac_rival']} {c['ac'] - c['ac_margin']:.3f}",
             _margin(c, "ac"), _margin(c, "nmi"),
             "holds" if c["holds"] else _evidence(config.name, results)]
            for config, c in claims]
    held = sum(c["holds"] for _, c in claims)
    ties = sum(abs(c["ac_margin"]) <= c["ac_margin_hw"] for _, c in claims)
    return ["## The papers' claims", "",
            f"Each paper's headline claim that its method leads, held against the primary "
            f"tables (AC averaged over k; NMI beside it): **{held} of {len(body)} hold**. The "
            "paper's words are in each config (`published.claims`); a claim that fails links "
            "what was tried: every reading of the paper's unstated settings with its numbers, "
            "and the audit of the method (derivation checks, toys). Each margin carries the "
            "half-width of its 95% interval, paired over the draws (every method of a table "
            f"clusters the same documents; n/a where some k has fewer than two paired runs), "
            "against the strongest other method in AC, and in NMI where it names another; "
            f"the 95% interval of {ties} of the {len(body)} AC margins includes zero, a tie on "
            "these draws.", "",
            tabulate(body, ["paper", "table", "claim", "AC", "strongest other (AC)", "AC margin",
                            "NMI margin", "claim"], tablefmt="github", disable_numparse=True),
            ""]


def _evidence(table: str, results: Path) -> str:
    """'fails', with links to the table's paper's readings landscape and audit, if any."""
    folder = Path(results) / f"{prefix_of(table)}_readings"
    links = [f"[{word}]({folder.name}/{name})" for word, name in
             (("readings", "readings.md"), ("audit", "README.md")) if (folder / name).exists()]
    return "fails" + (f" ({', '.join(links)})" if links else "")


def fidelity_panels(tables: list) -> dict:
    """{paper: [rows of each of its tables]} of the rows with a published value, a paper's
    tables before its sensitivity tables; the panels of the fidelity pictures."""
    by_paper = {}
    for _, rows, info in tables:
        rows = [r for r in rows if r["published"] is not None]
        if rows:
            by_paper.setdefault(paper_of(info["config"].name), []).append(rows)
    for parts in by_paper.values():
        parts.sort(key=lambda rows: rows[0]["kind"] != "table")
    return by_paper


def picture_names(tables: list) -> dict:
    """{paper or "all": file name} of the fidelity pictures of these tables (see
    report.figures): one per paper with published values, and one of all papers' tables."""
    panels = fidelity_panels(tables)
    names = {paper: f"fidelity-{paper.lower()}.png" for paper in panels}
    if any(r["kind"] == "table" for parts in panels.values() for rows in parts for r in rows):
        names["all"] = "fidelity.png"
    return names


def ledger(results: Path) -> str:
    """The text of REPRODUCTION.csv, the ledger: every table's rows (published, ours, interval,
    verdict) recomputed from the result files under `results` alone."""
    return _csv(pd.DataFrame([r for folder in folders(results) for r in rows_of(folder)[0]]))


def _csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, float_format="%.4f")


def readings_pages(results: Path) -> list:
    """The readings landscapes (results/<paper>_readings/readings.md), in name order."""
    return sorted(Path(results).glob("*_readings/readings.md"))


def audit_pages(results: Path) -> list:
    """The method audits' pages: each results folder's README.md (beside a readings
    landscape's readings.md, the audit of the paper's method), in name order."""
    return sorted(Path(results).glob("*/README.md"))


def _verdict_cell(row: dict, causes: dict, notes: str | None) -> str:
    """A row's verdict; an "outside" one linked to the page that studies its miss
    (results/causes.yaml), else to its table's notes (the anchor `notes`, if any)."""
    if row["verdict"] != "outside":
        return row["verdict"]
    cause = causes.get((row["table"], row["method"], row["metric"]))
    if cause:
        kind, page = cause
        return f"[outside, {'cause measured' if kind == 'measured' else 'tried'}]({page})"
    return f"[outside]({notes})" if notes else "outside"


def _causes_words(frame: pd.DataFrame, causes: dict) -> list:
    """The summary's count of the primary tables' rows outside, by what studies them."""
    out = frame[(frame["kind"] == "table") & (frame["verdict"] == "outside")]
    if not len(out) or not causes:  # no causes file: nothing to count, no link to make
        return []
    kinds = [causes.get(key, ("none",))[0]
             for key in zip(out["table"], out["method"], out["metric"], strict=True)]
    rest = (f"; {kinds.count('none')} link only their table's notes" if "none" in kinds
            else "")
    return [f"Of the primary tables' {len(out)} rows outside, {kinds.count('measured')} link "
            "the committed page that measures the cause of their miss and "
            f"{kinds.count('tried')} a page of what was tried without finding it "
            f"([`{FILE}`]({FILE})){rest}.", ""]


def total_time(folders) -> str:
    """The wall times of result folders (paths) summed, in hours; a lower bound when one is."""
    times = [wall_seconds(folder, read_manifest(folder))
             for folder in folders]
    bound = "" if all(recorded for _, recorded in times) else ">= "
    return f"{bound}{sum(seconds for seconds, _ in times) / 3600:.1f} h"


def sweep_folders(results: Path) -> list:
    """The record folders of the figures' sweeps: one per swept value, below a table's folder
    (results/TABLE/sweep/lam=1, results/TABLE/sweep/labelled=0.02/links=must with --by, or a
    sweep's own --out). Folders below a name that is not a table's (readings landscapes such
    as results/pspt_readings/) are not the figures' and do not count."""
    results = Path(results)
    return sorted(p.parent for p in results.glob("*/*/**/manifest.json")
                  if (results / p.relative_to(results).parts[0] / "manifest.json").exists())


def _table_name(config) -> str:
    """The paper's table(s) a config reproduces, from its published source ("..., Table 2")."""
    source = config.published.get("source", "") if config.published else ""
    return (source.split(",")[-1].strip() or config.name) + (
        " (sensitivity)" if config.kind == "sensitivity" else "")


def _figures(folder: Path) -> str:
    """Links to the table's figures: AC/NMI against k, then any convergence and sweep plots
    (sweep-*.png in any of its subfolders: sweep/, or a sweep's own --out such as
    constraints/)."""
    pngs = [folder / "k.png", folder / "convergence.png", *sorted(folder.glob("*/sweep-*.png"))]
    return ", ".join(f"[`{p.relative_to(folder)}`]({p.relative_to(folder.parent)})"
                     for p in pngs if p.exists())


def _margin(claim: dict, metric: str) -> str:
    """'+0.010 ± 0.008': a claim's margin and the half-width of its 95% interval ('± n/a'
    when unknown; blank without a margin), '(over CF-NCW)' after it when the strongest
    other method in this metric is not the one in AC."""
    margin, hw = claim[f"{metric}_margin"], claim[f"{metric}_margin_hw"]
    if np.isnan(margin):
        return ""
    rival = claim[f"{metric}_rival"]
    return (f"{margin:+.3f} ± " + ("n/a" if np.isnan(hw) else f"{hw:.3f}")
            + ("" if rival == claim["ac_rival"] else f" (over {rival})"))


def _f(value, sign=""):
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else (
        f"{value:{sign}.3f}")


def _command(folder: Path, config, manifest: dict, configs) -> str:
    """The command that computes the table in `folder`: its config in `configs` when that is
    the protocol the folder holds, else the copy the folder keeps (a table of one's own made
    from a config kept elsewhere, or one edited since)."""
    from docfact.experiment.plan import load

    path = Path(configs) / f"{config.name}.yaml" if configs is not None else None
    if path is not None and path.exists() and (
            load(path).protocol_hash() == manifest.get("protocol_hash")):
        return f"`docfact run {path}`"
    return f"`docfact run {folder / 'config.yaml'}`"


def _table_of_tables(tables, waiting, wall: str, configs=None) -> tuple:
    """(Markdown, runs done, runs planned): one row per table (paper, table, command, run time,
    runs, verdicts), the configs `waiting` for a run listed as not run; a last row sums the runs
    and gives the `wall` time of tables and sweeps together."""
    body, done_all, planned_all = [], 0, 0
    for folder, rows, info in tables:
        config, manifest = info["config"], info["manifest"]
        verdicts = pd.Series([r["verdict"] for r in rows])
        status = ", ".join(f"{n} {v}" for v, n in verdicts.value_counts().items())
        done = sum(r["runs"] for r in rows if r["metric"] == "AC") // max(
            1, sum(1 for r in rows if r["metric"] == "AC"))
        planned = len(config.k) * config.runs
        done_all, planned_all = done_all + done, planned_all + planned
        body.append([paper_of(config.name), _table_name(config),
                     _command(folder, config, manifest, configs),
                     runtime(folder, manifest) if done >= planned else "partial (resumable)",
                     f"{done} / {planned}", status])
    for config in waiting:
        planned_all += len(config.k) * config.runs
        body.append([paper_of(config.name), _table_name(config),
                     f"`docfact run {Path(configs) / f'{config.name}.yaml'}`", "not run",
                     f"0 / {len(config.k) * config.runs}", ""])
    body.sort(key=lambda row: (row[0], row[2]))
    body.append(["all", "", "`make reproduce`", f"{wall} (the runs so far)",
                 f"{done_all} / {planned_all}", ""])
    text = tabulate(body, ["paper", "table", "command", "runtime", "runs", "rows vs published"],
                    tablefmt="github")
    return text, done_all, planned_all


def _update_readme(readme: Path, report: Path, found: list, done: int, planned: int,
                   wall: str) -> None:
    """The README's line on the result folders `found` (between its markers), linking to the
    table of tables in `report`."""
    link = Path(os.path.relpath(report, Path(readme).resolve().parent)).as_posix()
    count, papers = len(found), len({paper_of(folder.name) for folder in found})
    splice(readme, "reproduction",
           f"{count} table{'s' * (count > 1)} of {papers} paper{'s' * (papers > 1)}, {done} of "
           f"{planned} runs recorded ({wall} of "
           f"wall time with the figures' sweeps): [the table of tables]({link}#tables), each "
           "with its command, run time and rows against the published ones.")
