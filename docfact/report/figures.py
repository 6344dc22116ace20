"""Every figure of the reproduction report, drawn from result files when asked: each table's AC
and NMI against k, the figures' sweeps, convergence curves and anchors (plots.redraw), and the
fidelity pictures (picture.py). `docfact report` draws them after writing REPRODUCTION.md."""

from pathlib import Path

from docfact.report.fidelity import TOLERANCE, fidelity_panels, folders, report_tables
from docfact.report.picture import plot_overview, plot_paper
from docfact.report.plots import plot_k, redraw


def draw_report(results: Path) -> list:
    """Draw every figure below `results` again from its files; the paths written."""
    results = Path(results)
    tables = report_tables(folders(results))
    paths = [p for folder, _, _ in tables for p in plot_k(folder)]
    paths += redraw(results)
    return paths + fidelity_pictures(results, tables)


def fidelity_pictures(results: Path, tables: list) -> list:
    """results/fidelity-<paper>.png/svg (one panel per table, sensitivity tables after the
    paper's) and results/fidelity.png/svg (one panel per paper, its tables)."""
    panels = fidelity_panels(tables)
    paths = []
    for paper, parts in panels.items():
        paths += plot_paper([r for rows in parts for r in rows],
                            results / f"fidelity-{paper.lower()}",
                            f"{paper}: ours against the published averages, a panel per table",
                            TOLERANCE)
    papers = {paper: [r for rows in parts for r in rows if r["kind"] == "table"]
              for paper, parts in panels.items()}
    papers = {paper: rows for paper, rows in papers.items() if rows}
    if papers:
        paths += plot_overview(papers, results / "fidelity", TOLERANCE)
    return paths
