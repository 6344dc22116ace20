"""The report's pictures, drawn from the committed result files: fidelity at a glance, readable
per-table and sweep plots (the figures are captured, nothing is written)."""

from pathlib import Path

import matplotlib.colors as mcolors
import pytest
from matplotlib.text import Text

from docfact.report import picture, plots
from docfact.report.fidelity import TOLERANCE, rows_of

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


@pytest.fixture
def figures(monkeypatch):
    """The figures the plotting functions would save, kept open instead of written."""
    kept = []

    def keep(fig, stem):
        kept.append(fig)
        return []

    monkeypatch.setattr(plots, "save", keep)
    monkeypatch.setattr(picture, "save", keep)
    monkeypatch.setattr(plots.plt, "close", lambda fig: None)
    monkeypatch.setitem(plots.matplotlib.rcParams, "figure.max_open_warning", 0)
    yield kept
    for fig in kept:
        plots.plt.close(fig)


def series(ax) -> int:
    """Lines of distinct colours on an axis (a method's line and its published markers share
    one)."""
    return len({mcolors.to_hex(line.get_color()) for line in ax.get_lines()})


def test_paper_picture_names_every_point_outside_without_overlapping_labels(figures):
    rows = rows_of(RESULTS / "lccf_tdt2")[0] + rows_of(RESULTS / "lccf_reuters")[0]
    picture.plot_paper(rows, Path("unused"), "LCCF", TOLERANCE)
    fig = figures[0]
    fig.canvas.draw()
    assert [ax.get_title() for ax in fig.axes] == ["lccf_tdt2", "lccf_reuters"]
    for ax, table in zip(fig.axes, ("lccf_tdt2", "lccf_reuters"), strict=True):
        sub = [r for r in rows if r["table"] == table]
        notes = [t for t in ax.texts if t.arrow_patch is not None]
        named = sorted((r["published"], r["ours"]) for r in sub if r["verdict"] == "outside")
        drawn = sorted(tuple(map(float, n.xy)) for n in notes)
        assert [v for xy in drawn for v in xy] == pytest.approx([v for xy in named for v in xy])
        assert {n.get_text() for n in notes} == {f"{r['method']} {r['metric']}" for r in sub
                                                 if r["verdict"] == "outside"}
        boxes = [Text.get_window_extent(n) for n in notes]  # the label without its line
        for i, a in enumerate(boxes):
            assert not any(a.overlaps(b) for b in boxes[i + 1:]), notes[i].get_text()
        # a point sits at (published, ours), its bar spans the 95% interval
        r = sub[0]
        bars = {tuple(map(tuple, segment)) for c in ax.collections if hasattr(c, "get_segments")
                for segment in c.get_segments()}
        assert ((r["published"], r["ci_low"]), (r["published"], r["ci_high"])) in bars
        assert any(r["published"] in line.get_xdata() and r["ours"] in line.get_ydata()
                   for line in ax.get_lines())


def test_overview_has_a_panel_per_paper_with_its_verdict_counts(figures):
    papers = {"GNMF": rows_of(RESULTS / "gnmf_tdt2")[0], "RCF": rows_of(RESULTS / "rcf_tdt2_t2")[0]}
    picture.plot_overview(papers, Path("unused"), TOLERANCE)
    titles = [ax.get_title() for ax in figures[0].axes]
    for (paper, rows), title in zip(papers.items(), titles, strict=True):
        outside = sum(r["verdict"] == "outside" for r in rows)
        assert title.startswith(f"{paper}: {len(rows)} rows") and f"{outside} outside" in title
        assert len(figures[0].axes[titles.index(title)].texts) == min(3, outside)


def test_no_committed_plot_crowds_an_axis(figures):
    """Every table's plot against k and every sweep plot: at most plots.CROWDED series on one
    axis (tables of more methods get a panel per method); sweep plots carry their title."""
    for folder in sorted(p.parent for p in RESULTS.glob("*/manifest.json")):
        plots.plot_k(folder)
        for ax in figures[-1].axes:
            assert series(ax) <= plots.CROWDED, folder.name
    big = figures[[p.parent.name for p in sorted(RESULTS.glob("*/manifest.json"))].index(
        "lccf_tdt2")]
    assert len([ax for ax in big.axes if ax.get_visible() and ax.axison]) == 18
    for csv in sorted(RESULTS.glob("*/*/sweep-*.csv")):
        plots.plot_sweep(csv)
        fig = figures[-1]
        for ax in fig.axes:
            assert series(ax) <= plots.CROWDED, csv
        title = fig.get_suptitle()
        assert title.startswith(f"{csv.parent.parent.name}: AC and NMI"), csv
        assert "documents" in title and "runs per k" in title, csv


def test_sweep_title_names_corpus_protocol_and_fixed_settings(figures):
    plots.plot_sweep(RESULTS / "rcf_tdt2_t2_reference/sweep/sweep-RCF-alpha-by-labelled.csv")
    head, data, fixed = figures[0].get_suptitle().split("\n")
    assert head == ("rcf_tdt2_t2_reference: AC and NMI (averages over k) against alpha, "
                    "a line per labelled")
    assert data.startswith("data: view rcf_tdt2 (9394 documents, 30 classes)")
    assert data.endswith("k = 9, 20 runs per k, seed 2017")
    assert fixed.startswith("RCF: lambda = 100, p = 5") and "alpha" not in fixed
    plots.plot_sweep(RESULTS / "rcf_reuters_t2_reference/constraints/sweep-protocol-labelled.csv")
    fig = figures[1]
    assert len(fig.axes) == 2 * 5  # AC and NMI for each of the five semi-supervised methods
    assert [ax.get_title() for ax in fig.axes[:5]] == ["CCF", "CNPCF", "GDCF", "RCF",
                                                       "SemiLCCF"]


@pytest.mark.parametrize("y", [[0.1, 0.1, 0.1], [0.0, 0.99, 1.0, 1.0], [0.5] * 30])
def test_spread_keeps_labels_apart_and_in_the_column(y):
    gap = 0.03
    out = picture.spread(sorted(y), gap)
    assert all(b - a >= gap - 1e-12 for a, b in zip(out, out[1:], strict=False))
    assert min(out) >= 0 and max(out) <= 1
    assert all(abs(o - v) <= gap * len(y) for o, v in zip(out, sorted(y), strict=True))


def test_the_bands_stay_within_the_metrics_range(figures):
    """AC and NMI lie in [0, 1] (in percent [0, 100]): a 95% band of the mean drawn beyond
    would show values no run can take (LCF's ten runs at large spread reach past both ends)."""
    for name, top in (("lcf_orl", 100.0), ("gnmf_tdt2", 100.0), ("lccf_tdt2", 1.0)):
        plots.plot_k(RESULTS / name)
        bands = [c for ax in figures[-1].axes for c in ax.collections if c.get_paths()]
        assert bands, name
        for band in bands:
            ys = [y for path in band.get_paths() for _, y in path.vertices]
            assert 0.0 <= min(ys) and max(ys) <= top, name
