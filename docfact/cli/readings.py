"""`docfact readings PAPER`: the landscape of a paper's readings, one chosen, validated."""

from pathlib import Path

import click
import numpy as np
import pandas as pd
from tabulate import tabulate

from docfact.cli.options import data_options, jobs_option
from docfact.errors import ConfigError


def _names(value, known, what):
    if value is None:
        return list(known)
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise ConfigError(f"--{what}: unknown {unknown[0] if unknown else value!r}; known: "
                          f"{', '.join(known)}")
    return names


def _readings_file(paper: str, configs: Path) -> Path:
    """PAPER as a readings file: itself if it ends in .yaml, else CONFIGS/readings/PAPER.yaml,
    which must be one of that folder's files."""
    if paper.endswith((".yaml", ".yml")):
        return Path(paper)
    folder = configs / "readings"
    known = sorted(p.stem for p in folder.glob("*.yaml"))
    named = [k for k in known if k.lower() == paper.lower()]  # GNMF as gnmf, as data sets
    if paper not in known and len(named) != 1:
        where = "" if known else " (run from the repository, or give --configs DIR)"
        raise ConfigError(f"PAPER: {paper!r} is no readings file of {folder}/ (known: "
                          f"{', '.join(known) or 'none'}{where}); or give a readings .yaml "
                          "file")
    return folder / f"{paper if paper in known else named[0]}.yaml"


@click.command(short_help="Choose the reading of a paper's unstated settings.")
@click.argument("paper")
@click.option("--only", help="Comma-separated readings to compute (default: all); the others "
                             "are scored from the runs they already have.")
@click.option("--tables", help="Comma-separated tables to compute (default: all); the landscape "
                               "is scored over all the paper's tables, from their recorded runs.")
@click.option("--score-only", is_flag=True, help="Compute nothing: score the runs recorded.")
@click.option("--full", is_flag=True, help="Then run the chosen reading's full protocol "
                                           "(k and runs of the table's own config, "
                                           "CONFIGS/<table>.yaml), resumable.")
@jobs_option(-1)
@click.option("--configs", default="configs", show_default=True,
              type=click.Path(file_okay=False), help="Folder of the configs (readings in "
                                                     "CONFIGS/readings/PAPER.yaml).")
@click.option("--results", default="results", show_default=True,
              type=click.Path(file_okay=False), help="Folder of the results (the readings in "
                                                     "RESULTS/PAPER_readings).")
@data_options
def readings(paper, only, tables, score_only, full, jobs, configs, results):
    """Run each declared reading of PAPER's unstated settings on the sub-protocol (10 runs at
    the odd k, or the file's `runs`), score it against the published rows, choose one,
    validate it on the even k.

    PAPER is a readings file or a name (gnmf, lccf, ...) of CONFIGS/readings/PAPER.yaml.
    Writes RESULTS/PAPER_readings/: readings.csv, rows.csv, readings.md, readings.png.
    """
    from docfact.experiment.readings import check_readings, load_readings, run_reading
    from docfact.report.readings import write_landscape

    spec = load_readings(_readings_file(paper, Path(configs)))
    chosen_tables = _names(tables, spec.tables, "tables")
    if only and score_only:
        raise ConfigError("--only names readings to compute; --score-only computes none")
    todo = [] if score_only else _names(only, spec.readings, "only")
    results = Path(results)
    check_readings(spec, Path(configs), todo, chosen_tables)
    for reading in todo:
        click.echo(f"{spec.paper}: reading {reading} (select: odd k, {spec.runs} runs or the "
                   "table's if fewer)", err=True)
        run_reading(spec, reading, "select", configs, results, chosen_tables, jobs)
    # one reading per paper: whatever --tables computed, the choice is made over every table
    landscape, rows = _landscape(spec, results, "select")
    complete = landscape[landscape["status"] == "complete"]
    if complete.empty:
        if todo and set(chosen_tables) != set(spec.tables):  # the other tables are still to run
            click.echo(f"{spec.paper}: no reading has its selection runs on every table yet; "
                       "the landscape is not written", err=True)
            return
        raise ConfigError(f"{spec.paper}: no reading has its selection runs on "
                          f"{', '.join(spec.tables)} yet"
                          + ("" if todo else "; run without --score-only"))
    from docfact.report.readings import choose

    winner = choose(dict(zip(complete["reading"], complete["select_score"], strict=True)))
    missing = landscape.loc[landscape["status"] != "complete", "reading"].tolist()
    if missing:
        click.echo(f"{spec.paper}: not complete: {', '.join(missing)}; the choice of {winner} "
                   "holds among the readings computed", err=True)
    if set(missing) & set(todo):
        click.echo(f"{spec.paper}: {winner} not validated (readings asked for are missing)",
                   err=True)
    elif not score_only:
        click.echo(f"{spec.paper}: validating {winner} (even k, {spec.runs} runs or the "
                   "table's if fewer)", err=True)
        run_reading(spec, winner, "validate", configs, results, chosen_tables, jobs)
    held, held_rows = _landscape(spec, results, "validate", [winner])
    landscape["chosen"] = landscape["reading"] == winner
    scored = held["select_rows"].iloc[0] > 0
    for col in ("score", "agree", "rows"):
        landscape[f"validate_{col}"] = np.where(landscape["chosen"] & scored,
                                                held[f"select_{col}"].iloc[0], np.nan)
    landscape["validate_status"] = np.where(landscape["chosen"], held["status"].iloc[0], "")
    rows = pd.concat([rows, held_rows], ignore_index=True)
    out = spec.folder(results)
    write_landscape(out, landscape, rows, spec.title)
    _markdown(out / "readings.md", spec, landscape)
    if full:
        click.echo(f"{spec.paper}: {winner}, full protocol", err=True)
        run_reading(spec, winner, "full", configs, results, chosen_tables, jobs)
    click.echo(tabulate(landscape[["reading", "status", "select_score", "select_agree",
                                   "select_rows", "validate_status", "validate_score",
                                   "validate_agree"]],
                        headers="keys", showindex=False, floatfmt=".2f", tablefmt="github"))
    click.echo(f"chosen: {winner}; landscape in {out}/", err=True)


def _landscape(spec, results: Path, phase: str, names=None) -> tuple:
    """(one line per reading: its settings, status and score on `phase` over every table of
    the paper, the scored rows)."""
    from docfact.experiment.readings import phase_ks
    from docfact.experiment.results import read_setup
    from docfact.report.readings import folder_rows, summary

    lines, all_rows = [], []
    for reading in names or spec.readings:
        parts, state = [], []
        for table in spec.tables:
            folder = spec.folder(results) / reading / table
            if not (folder / "manifest.json").exists():
                state.append(False)
                continue
            config, _ = read_setup(folder)
            # the sub-protocol's runs: the file's, or the table's where it has fewer
            scored, done = folder_rows(folder, phase_ks(config, phase),
                                       min(spec.runs, config.runs))
            if scored.empty:  # no run of this phase yet
                state.append(False)
                continue
            parts.append(scored.assign(reading=reading, phase=phase))
            state.append(done)
        rows = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        all_rows.append(rows)
        status = ("not run" if not parts else "complete" if all(state) else "partial")
        s = summary(rows) if parts else {"score": np.nan, "agree": 0, "rows": 0}
        lines.append({"reading": reading, **spec.readings[reading],
                      "tables": " ".join(spec.tables), "status": status,
                      "select_score": s["score"], "select_agree": s["agree"],
                      "select_rows": s["rows"]})
    return pd.DataFrame(lines), pd.concat(all_rows, ignore_index=True)


def _markdown(path: Path, spec, landscape: pd.DataFrame) -> None:
    """readings.md: the declared settings with their grounds, the readings and their scores."""
    from docfact import atomic
    from docfact.report.readings import SE_FLOOR

    lines = [f"# {spec.title}: readings of the unstated settings", "",
             f"Declared in `configs/readings/{spec.paper}.yaml`; computed by `docfact readings "
             f"{spec.paper}` on {', '.join(f'`{t}`' for t in spec.tables)}. Score: mean over the "
             f"published method x metric rows of |ours - published| / SE (SE floored at "
             f"{SE_FLOOR}); selection on {spec.runs} runs at the odd k, validation of the chosen "
             f"reading on {spec.runs} runs at the held-out even k. Agreement: rows within the 95% "
             "interval or within 0.02, as in the report." + (
                 f" Every reading's factorizations compute with numerics {spec.numerics}."
                 if spec.numerics else ""), "", "## Settings and their grounds", ""]
    for setting, values in spec.settings.items():
        lines.append(f"- **{setting}**")
        lines += [f"  - `{value}`: {v['grounds']}" for value, v in values.items()]
    if spec.fixed:
        lines += ["", "Not varied:", ""]
        lines += [f"- **{setting}**: {v['grounds'] if isinstance(v, dict) else v}"
                  for setting, v in spec.fixed.items()]
    lines += ["", "## Landscape", "",
              tabulate(landscape.drop(columns=["tables"]), headers="keys", showindex=False,
                       floatfmt=".3f", tablefmt="github"), "", "![readings](readings.png)", ""]
    if spec.notes:
        lines += ["## Notes", "", spec.notes.strip(), ""]
    atomic.write_text(path, "\n".join(lines))
