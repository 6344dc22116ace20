"""`docfact report` and `docfact plot`."""

from pathlib import Path

import click


@click.command()
@click.option("--results", "results", default="results", show_default=True,
              type=click.Path(file_okay=False), help="Folder holding the result folders.")
@click.option("--readme", default="README.md", show_default=True, type=click.Path(dir_okay=False),
              help="README whose table of tables is regenerated (between its markers).")
def report(results, readme):
    """Write RESULTS/REPRODUCTION.md (and .csv): published vs measured for every table."""
    from docfact.report.fidelity import write_report

    text = write_report(Path(results), Path(readme))
    click.echo(text.split("\n## ", 2)[1] if "\n## " in text else text)
    click.echo(f"report in {Path(results) / 'REPRODUCTION.md'}", err=True)


@click.group()
def plot():
    """Figures from result folders."""


@plot.command("k")
@click.argument("folder", type=click.Path(file_okay=False, exists=True))
def plot_k_command(folder):
    """AC and NMI against k for every method of FOLDER (k.png, k.svg)."""
    from docfact.report.plots import plot_k

    for p in plot_k(Path(folder)):
        click.echo(p)
