"""`docfact run CONFIG` and `docfact show DIR`."""

from pathlib import Path

import click

from docfact import limits
from docfact.cli.options import data_options, jobs_option, not_empty, one_line
from docfact.errors import ConfigError, DocfactError

# The commands import what they use (numpy, scikit-learn, ...), so that `docfact --help`
# starts at once.


def _k_option(value):
    """--k: comma-separated integers and ranges 'a..b' (as a config's k), e.g. 2..5,8."""
    if value is None:
        return None
    ks = []
    try:
        for part in value.split(","):
            low, dots, high = part.partition("..")
            low, high = int(low), int(high) if dots else int(low)
            if dots and not 2 <= low <= high:
                raise ConfigError(f"--k: a range 'a..b' needs 2 <= a <= b, got {part!r}")
            limits.check_runs(high - low + 1, "--k", f"the {high - low + 1} k values of {part!r}")
            ks += range(low, high + 1)
    except ValueError:
        raise ConfigError(f"--k: expected comma-separated integers or ranges a..b, got "
                          f"{value!r}") from None
    if not ks or min(ks) < 2:
        raise ConfigError(f"--k: every k must be an integer >= 2, got {value!r}")
    if len(set(ks)) < len(ks):
        raise ConfigError(f"--k: must be a list without repeated values, got {value!r}")
    return ks


QUICK_RUNS = 3  # runs per k of --quick, at three of the config's k (about 2 min on 2 cores)


def quick_k(ks) -> list:
    """The k values of a quick table: the config's smallest, middle and largest."""
    ks = sorted(ks)
    return sorted({ks[0], ks[len(ks) // 2], ks[-1]})


@click.command(short_help="Run a paper's table (or a quick part of it).")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("--quick", is_flag=True,
              help=f"A quick table: {QUICK_RUNS} runs (the config's if fewer) at the config's "
                   "smallest, middle and largest k, into quick/<config name> (--runs, --k and "
                   "--out still apply).")
@click.option("--runs", type=int, help="Runs per k (default: the config's).")
@click.option("--k", "k", help="Comma-separated k values or ranges a..b (default: the "
                               "config's).")
@jobs_option(-1)
@click.option("--fresh", is_flag=True, help="Discard recorded runs and start over.")
@click.option("--out", type=click.Path(file_okay=False), callback=not_empty,
              help="Results folder (default: results/<config name>).")
@click.option("--quiet", is_flag=True, help="No progress bar, no table and no figure.")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default="loky", show_default=True,
              help="Local processes, or a dask.distributed cluster (pip install 'docfact[dask]').")
@click.option("--scheduler", help="Address of a dask scheduler (default: a local cluster of "
              "--jobs workers).")
@click.option("--donors", multiple=True, type=click.Path(file_okay=False, exists=True),
              help="A results folder whose rows this table can take: a method's row computed "
                   "from the same documents with the same settings is copied with its "
                   "recorded seconds, not recomputed; never an estimator of one's own, whose "
                   "code may have changed (repeatable; e.g. a copy of the folder before "
                   "--fresh).")
@data_options
def run(config_path, quick, runs, k, jobs, fresh, out, quiet, backend, scheduler, donors):
    """Run a paper's table: sample classes, run every method, score AC/NMI, write the tables
    and draw AC and NMI against k (k.png).

    Finished runs are kept in OUT/runs.csv; running again resumes where it stopped, and
    prints the runs asked (--k, --runs) from the folder.
    """
    import time

    from docfact.experiment.plan import Plan
    from docfact.experiment.plan import load as load_config
    from docfact.experiment.runner import run as run_protocol
    from docfact.report.plots import plot_k
    from docfact.report.tables import k_words, runs_words, write_tables

    if runs is not None and runs < 1:
        raise ConfigError(f"--runs: must be >= 1, got {runs}")
    if scheduler and backend != "dask":
        raise ConfigError("--scheduler goes with --backend dask")
    full = load_config(config_path)
    ks = _k_option(k)
    if quick:
        ks, runs = ks or quick_k(full.k), runs or min(QUICK_RUNS, full.runs)
    config = full.with_overrides(k=ks, runs=runs)
    folder = Path(out) if out else Path("quick" if quick else "results") / config.name
    if fresh and any(Path(d).resolve() == folder.resolve() for d in donors):
        raise ConfigError(f"--donors {folder}: --fresh discards its runs before any can be "
                          "taken; give --donors a copy of the folder")
    ahead = None if (folder / "runs.csv").exists() and not fresh else _time_ahead(
        config, config_path, folder, jobs)
    if ahead:
        click.echo(ahead, err=True)
    started = time.time()
    run_protocol(Plan.of(config), folder, jobs=jobs, fresh=fresh, progress=not quiet,
                 backend=backend, scheduler=scheduler, donors=donors,
                 say=lambda line: click.echo(line, err=True))
    seconds = time.time() - started
    text = write_tables(folder, ks=config.k, runs=config.runs)
    if not quiet:
        click.echo(text)
        for path in plot_k(folder):
            click.echo(f"figure: {path}", err=True)
    click.echo(f"results in {folder}/ ({_duration(seconds)})", err=True)
    failures = _failures(folder)
    if not quiet and (config.k, config.runs) != (full.k, full.runs):
        click.echo(f"This table: {runs_words(config.runs)} at k = {k_words(config.k)}. The "
                   f"full protocol, {runs_words(full.runs)} at k = {k_words(full.k)}: docfact run "
                   f"{config_path} --out DIR"
                   f"{_time_here(full.name, config_path, folder, [m.name for m in full.methods])}",
                   err=True)
    _stop_if_a_method_never_ran(failures)


def _failures(folder: Path) -> list:
    """[(method, failed on every run)] of the methods with failed runs in the folder, each
    noted in a line: how many, and the first reason (runs.csv's error column holds every
    one)."""
    from docfact.experiment.results import read_runs

    runs = read_runs(folder / "runs.csv")
    found = []
    for method, rows in runs[runs["status"] == "failed"].groupby("method", sort=False):
        total = int((runs["method"] == method).sum())
        click.echo(f"docfact: note: {method} failed on {len(rows)} of {total} runs: "
                   f"{rows['error'].iloc[0]} (the error column of {folder / 'runs.csv'})",
                   err=True)
        found.append((method, len(rows) == total))
    return found


def _stop_if_a_method_never_ran(failures: list) -> None:
    """A non-zero exit when a method failed on every run (its settings do not fit the data:
    a table without its rows is no result); the runs stay recorded."""
    never = [method for method, every in failures if every]
    if never:
        raise DocfactError(f"{', '.join(never)} failed on every run (the note above says why)")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def _results_places(config_path) -> list:
    """Where a table's committed results are looked for: results/ of the current folder, then
    the results/ beside the config's configs/ folder (a repository's layout)."""
    return [Path("results"), Path(config_path).resolve().parent.parent / "results"]


def _committed(name: str, places: list):
    """The table's committed results folder: the first of `places` holding its runs.csv, or
    None."""
    return next((p / name for p in places if (p / name / "runs.csv").exists()), None)


def _committed_timings(name: str, config_path, written: Path):
    """(folder, timings.csv) of the table's committed results (_committed in _results_places;
    not the folder `written`), or None."""
    from docfact.experiment.results import read_timings

    folder = _committed(name, _results_places(config_path))
    if folder is None or folder.resolve() == written.resolve():
        return None
    try:
        return folder, read_timings(folder)
    except (OSError, ValueError, KeyError, DocfactError):
        return None


def _cpu_words(seconds: float) -> str:
    return (f"{seconds / 3600:.1f} CPU-hours" if seconds >= 3600 else
            f"{seconds / 60:.0f} CPU-minutes" if seconds >= 90 else f"{seconds:.0f} CPU-seconds")


def _time_ahead(config, config_path, out: Path, jobs: int) -> str | None:
    """Before a table is computed: the CPU seconds its committed records give for the runs
    asked (the same seeds: the same fits), and about how long that is with the workers this
    run uses; None when they do not hold every run asked, or took some of its fits from other
    tables (recorded at 0 s)."""
    from joblib import cpu_count

    found = _committed_timings(config.name, config_path, out)
    if found is None:
        return None
    folder, timings = found
    asked = timings[timings["k"].isin(config.k) & (timings["run"] < config.runs)]
    pairs = len(asked[["k", "run"]].drop_duplicates())
    names = {m.name for m in config.methods}
    if (pairs < len(config.k) * config.runs or not names <= set(asked["method"])
            or (asked["seconds"] == 0).any()):
        return None
    seconds = float(asked.loc[asked["method"].isin(names), "seconds"].sum())
    workers = min(jobs if jobs > 0 else cpu_count(), pairs)
    these = "this run" if pairs == 1 else f"these {pairs} runs"
    return (f"the fits of {these} took {_cpu_words(seconds)} as recorded in "
            f"{folder}: about {_duration(seconds / workers)} with {workers} "
            f"worker{'s' * (workers != 1)}, besides loading the data")


def _time_here(name: str, config_path, written: Path, methods=()) -> str:
    """What the full table costs, from the CPU seconds its committed results record (timings.csv,
    in the first of _results_places holding the table; not the folder just `written`, which
    holds only the runs asked): CPU-hours, and about how long on this machine's cores (the runs
    are independent; a recorded wall time depends on the load it ran under and on --jobs); the
    `methods` of the config that folder does not hold (one's own, added) are named."""
    from joblib import cpu_count

    found = _committed_timings(name, config_path, written)
    if found is None:
        return ""
    folder, timings = found
    fits = timings["seconds"]
    missing = [m for m in methods if m not in set(timings["method"])]
    seconds, taken = float(fits.sum()), int((fits == 0).sum())
    if not seconds > 0:
        return ""
    cores = cpu_count()  # what --jobs -1 uses
    cpu = _cpu_words(seconds)
    # rows the table took from another one record 0 s (timings.csv)
    besides = f", not counting the {taken} of its {len(fits)} fits taken from other tables"
    without = f"; without {', '.join(missing)}, which it does not hold" if missing else ""
    return (f" ({cpu} as recorded in {folder}{besides if taken else ''}: about "
            f"{_duration(seconds / cores)} on this "
            f"machine's {cores} cores{without})")


@click.command(short_help="Print a results folder's tables again.")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["markdown", "latex", "csv"]),
              default="markdown", show_default=True,
              help="markdown: the tables as in tables.md; latex: booktabs "
                   "tables in the paper's layout, best of each k in bold; csv: one row per "
                   "metric, method and k.")
@click.option("--margins", "method", metavar="METHOD",
              help="Instead of the tables: METHOD against each other method, AC and NMI "
                   "margins with their 95% intervals paired over the draws (markdown).")
def show(folder, fmt, method):
    """Print a results folder's tables again (rebuilt from its files; nothing is written)."""
    from docfact.report import export
    from docfact.report.margins import render
    from docfact.report.tables import tables

    if method is not None:
        if fmt != "markdown":
            raise click.BadParameter("margins are printed as markdown only", param_hint="--format")
        click.echo(render(Path(folder), method), nl=False)
    elif fmt == "markdown":
        click.echo(tables(Path(folder))[0])
    else:
        click.echo({"latex": export.to_latex, "csv": export.to_csv}[fmt](Path(folder)), nl=False)


@click.command(short_help="Recompute committed runs and compare them.")
@click.argument("config_paths", metavar="CONFIG...", nargs=-1, required=True,
                type=click.Path(dir_okay=False))
@click.option("--results", default=None, type=click.Path(file_okay=False),
              help="Folder holding the committed result folders [default: results/ of the "
                   "current folder, else the results/ beside the config's configs/ folder].")
@jobs_option(-1)
@click.option("--quick/--full", default=True, show_default=True,
              help="Recompute the config's check pairs (the reduced protocol), or every "
                   "committed run, requiring runs.csv to be the same bytes.")
@data_options
def check(config_paths, results, jobs, quick):
    """Recompute each table's check pairs; compare with committed rows and published averages.

    Exits 1 when a table has no committed results, a recomputed row differs from the
    committed one, or a method's average leaves its band around the published average (see the
    config's `check` section).
    """
    from docfact.experiment.check import check as check_table
    from docfact.experiment.plan import load as load_config
    from docfact.experiment.results import table_of

    failed = 0
    for path in config_paths:
        config = load_config(path)
        places = [Path(results)] if results else _results_places(path)
        folder = _committed(config.name, places)
        if folder is None:
            click.echo(f"{config.name}: FAILED (no committed results in "
                       f"{' or '.join(f'{p}/' for p in places)}; run the table first)")
            failed += 1
            continue
        owner = table_of(folder)
        if owner not in (None, config.name):
            click.echo(f"{config.name}: FAILED ({folder} holds the runs of table {owner!r}, "
                       f"not {config.name!r})")
            failed += 1
            continue
        failures = check_table(config, folder, jobs=jobs, full=not quick)
        pairs = ("every committed run" if not quick else
                 "pairs " + ", ".join(f"({k}, {r})" for k, r in config.check["pairs"]))
        click.echo(f"{config.name}: {'ok' if not failures else 'FAILED'} ({pairs})")
        for line in failures:
            click.echo(f"  {line}")
        failed += bool(failures)
    if failed:
        raise SystemExit(1)


@click.command(short_help="Check configs without running anything.")
@click.argument("config_paths", metavar="CONFIG...", nargs=-1, required=True,
                type=click.Path(dir_okay=False))
def validate(config_paths):
    """Check configs without running anything (schema, methods, parameters, views; for a data
    file or folder of your own, its classes against k); every problem of a config is listed,
    one a line."""
    from docfact.config import problems
    from docfact.datasets import resolve_view
    from docfact.datasets.user import is_path
    from docfact.errors import DataError
    from docfact.experiment import plan

    bad = 0
    for path in config_paths:
        found = problems(path, check=plan.problems)
        for line in found:
            click.echo(f"docfact: error: {one_line(line)}", err=True)
        if found:
            bad += 1
            continue
        config = plan.load(path)
        if is_path(resolve_view(config.view)["dataset"]):  # read it: k against its classes
            try:
                plan.Plan.of(config).corpus()
            except (ConfigError, DataError) as e:
                click.echo(f"docfact: error: {path}: {one_line(str(e))}", err=True)
                bad += 1
                continue
        n = len(config.methods)
        click.echo(f"{path}: ok ({n} method{'s' * (n != 1)}, k = "
                   f"{', '.join(map(str, config.k))}, {config.runs} run{'s' * (config.runs != 1)})")
    if bad:
        raise SystemExit(ConfigError.exit_code)


@click.command(short_help="AC and NMI against a parameter (figures).")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("--param", "param_text", required=True,
              help="METHOD.PARAM=V1,V2,... where METHOD is a method or an algorithm "
                   "(e.g. lccf.lambda=1,10,100 or LCCF-NCW.p=1,3,5,7), or "
                   "protocol.labelled=T1,T2,... (the semi-supervised methods' labelled "
                   "fraction).")
@click.option("--by", "by_text",
              help="METHOD.PARAM=V1,V2,...: a second parameter, one line per value at each "
                   "value of --param (e.g. --param protocol.labelled=0.02,0.1,0.2 "
                   "--by RCF.links=must,cannot,both).")
@click.option("--baselines", help="Comma-separated methods of the config run unchanged on the same "
                                  "runs and drawn as reference lines (e.g. NMF,CF).")
@click.option("--runs", type=int, help="Runs per k (default: the config's).")
@click.option("--k", "k", help="Comma-separated k values or ranges a..b (default: the "
                               "config's).")
@jobs_option(-1)
@click.option("--out", type=click.Path(file_okay=False), callback=not_empty,
              help="Folder (default: results/<config name>/sweep).")
@data_options
def sweep(config_path, param_text, by_text, baselines, runs, k, jobs, out):
    """AC and NMI against a parameter (LCCF Figs. 1-2, RCF Figs. 1-6):
    sweep-TARGET-PARAM[-by-PARAM2].csv, .png and .svg (TARGET a method, or protocol), one
    results folder per value."""
    from docfact import atomic
    from docfact.experiment.plan import load as load_config
    from docfact.experiment.runner import result_folders
    from docfact.experiment.sweep import parse_param
    from docfact.experiment.sweep import sweep as run_sweep
    from docfact.report.plots import plot_sweep

    if runs is not None and runs < 1:
        raise ConfigError(f"--runs: must be >= 1, got {runs}")
    target, param, values = parse_param(param_text)
    by = parse_param(by_text, "--by") if by_text else None
    config = load_config(config_path).with_overrides(k=_k_option(k), runs=runs)
    folder = Path(out) if out else Path("results") / config.name / "sweep"
    reused = result_folders(Path("results")) + result_folders(folder)  # rows to take
    table, parts = run_sweep(config, target, param, values, folder, jobs,
                             baselines.split(",") if baselines else (), by, reused)
    csv = folder / f"sweep-{target}-{param}{f'-by-{by[1]}' if by else ''}.csv"
    atomic.write_text(csv, table.to_csv(index=False, float_format="%.6f"))
    click.echo(table.to_string(index=False))
    for p in plot_sweep(csv):
        click.echo(p)
    _stop_if_a_method_never_ran([found for part in parts for found in _failures(part)])
