"""`docfact report` and `docfact plot`."""

from pathlib import Path

import click

from docfact.cli.options import data_options, not_empty


@click.command(short_help="Write results/REPRODUCTION.md: published vs measured.")
@click.option("--results", "results", default="results", show_default=True,
              type=click.Path(file_okay=False), help="Folder holding the result folders.")
@click.option("--readme", type=click.Path(dir_okay=False),
              help="README whose summary line of the tables is regenerated (between its "
                   "markers) [default: README.md with the default --results; none with "
                   "another].")
@click.option("--configs", default="configs", show_default=True, type=click.Path(file_okay=False),
              help="Folder of configs: those without results are listed as not run yet.")
def report(results, readme, configs):
    """Draw every figure again from its files (nothing is recomputed), then write
    RESULTS/REPRODUCTION.md (and .csv): published vs measured for every table, with the
    fidelity pictures, links to each table's figures and the table of tables; the README's
    summary line links to the table of tables."""
    from docfact.errors import ConfigError
    from docfact.report.fidelity import write_report
    from docfact.report.figures import draw_report
    from docfact.report.readme import has_section

    if readme is not None and not has_section(Path(readme), "reproduction"):
        raise ConfigError(f"--readme {readme}: no such file, or no summary markers in it "
                          "(<!-- reproduction:start --> and <!-- reproduction:end -->)")
    if readme is None and Path(results).resolve() == Path("results").resolve() and (
            has_section(Path("README.md"), "reproduction")):
        readme = "README.md"
    draw_report(Path(results))
    text = write_report(Path(results), readme and Path(readme), Path(configs))
    click.echo(text.split("\n## ", 2)[1] if "\n## " in text else text)
    click.echo(f"report in {Path(results) / 'REPRODUCTION.md'}"
               + (f", summary line in {readme}" if readme else ""), err=True)


@click.group(short_help="Figures (k, convergence, anchors).")
def plot():
    """Figures: from a results folder (k), or recomputed (convergence, anchors)."""


@plot.command("k", short_help="AC and NMI against k for a results folder.")
@click.argument("folder", type=click.Path(file_okay=False, exists=True))
def plot_k_command(folder):
    """AC and NMI against k for every method of FOLDER (k.png, k.svg)."""
    from docfact.experiment.results import read_folder
    from docfact.report.plots import plot_k

    read_folder(Path(folder), recorded=True)  # no figure of nothing
    for p in plot_k(Path(folder)):
        click.echo(p)


@plot.command("convergence", short_help="Objective against iteration (LCCF Fig. 3).")
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("--k", "k", type=int, help="Classes drawn (default: 10, LCCF Fig. 3's, or the "
              "config's largest k where that is smaller).")
@click.option("--run", "run_index", type=int, default=0, show_default=True,
              help="Which run's classes.")
@click.option("--iterations", type=int, default=100, show_default=True)
@click.option("--methods", help="Comma-separated factorizations (default: all of the config).")
@click.option("--out", type=click.Path(file_okay=False), callback=not_empty,
              help="Folder (default: results/<config name>).")
@data_options
def plot_convergence_command(config_path, k, run_index, iterations, methods, out):
    """Objective against iteration (LCCF Fig. 3): convergence.csv, .png and .svg."""
    from docfact import atomic
    from docfact.errors import ConfigError
    from docfact.experiment.convergence import convergence
    from docfact.experiment.plan import load as load_config
    from docfact.report.plots import plot_convergence

    config = load_config(config_path)
    k = min(10, max(config.k)) if k is None else k
    if k not in range(2, 10**6) or iterations < 1 or run_index < 0:
        raise ConfigError("--k must be >= 2, --iterations >= 1 and --run >= 0")
    curves = convergence(config, k, run_index, iterations,
                         methods.split(",") if methods else None)
    folder = Path(out) if out else Path("results") / config.name
    folder.mkdir(parents=True, exist_ok=True)
    atomic.write_text(folder / "convergence.csv", curves.to_csv(index=False))
    for p in plot_convergence(folder):
        click.echo(p)


@plot.command("anchors", short_help="NMF's and LCF's bases on 2-D points (LCF Fig. 5).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=2011, show_default=True)
@click.option("--lambda", "--lam", "lam", type=float, default=0.3, show_default=True,
              help="LCF's lambda (--lam: its former name).")
@click.option("--out", type=click.Path(file_okay=False), callback=not_empty,
              default="results/lcf_anchors", show_default=True, help="Folder.")
def plot_anchors_command(seed, lam, out):
    """The bases of NMF and LCF on three 2-D Gaussians (LCF Fig. 5): anchors.csv, .png, .svg."""
    from docfact import atomic
    from docfact.errors import ConfigError
    from docfact.experiment.anchors import anchors
    from docfact.report.plots import plot_anchors

    if not 0 <= lam < float("inf"):
        raise ConfigError(f"--lambda must be a finite number >= 0, got {lam}")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    atomic.write_text(folder / "anchors.csv", anchors(seed, lam).to_csv(index=False))
    for p in plot_anchors(folder):
        click.echo(p)
