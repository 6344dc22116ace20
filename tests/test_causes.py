"""results/causes.yaml: each primary row outside its published average links the committed page
that studies its miss; a bad entry is refused in one line."""

from pathlib import Path

import pandas as pd
import pytest

from docfact.errors import DocfactError
from docfact.report.causes import read_causes
from docfact.report.fidelity import _verdict_cell

RESULTS = Path(__file__).parent.parent / "results"


def test_rows_are_read_with_their_kind_and_page(tmp_path):
    (tmp_path / "page.md").write_text("what was measured\n")
    (tmp_path / "causes.yaml").write_text(
        "t:\n  measured:\n    page.md: [A]\n  tried:\n    page.md: [B NMI]\n")
    assert read_causes(tmp_path, {"t": ["A", "B"]}) == {
        ("t", "A", "AC"): ("measured", "page.md"), ("t", "A", "NMI"): ("measured", "page.md"),
        ("t", "B", "NMI"): ("tried", "page.md")}
    assert read_causes(tmp_path / "elsewhere", {"t": ["A"]}) == {}  # no file: no causes


@pytest.mark.parametrize("text, words", [
    ("u:\n  tried:\n    page.md: [A]\n", "'u' is no table of"),
    ("t:\n  guessed:\n    page.md: [A]\n", "expected measured or tried"),
    ("t:\n  tried:\n    none.md: [A]\n", "no page 'none.md'"),
    ("t:\n  tried:\n    page.md: [C AC]\n", "'C' is not a method of the table"),
    ("t:\n  tried:\n    page.md: [A, A NMI]\n", "A NMI given twice"),
    ("t: [A]\n", "expected a mapping"),
    ("t: [\n", "invalid YAML at line 2"),
    ("a: &x {}\nt: *x\n", "alias"),
    ("t:\n  tried:\n    caf\xe9.md: [A]\n".encode("latin-1"), "cannot be read"),
])
def test_a_bad_entry_is_refused_in_one_line(tmp_path, text, words):
    (tmp_path / "page.md").write_text("x\n")
    (tmp_path / "causes.yaml").write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(DocfactError, match=words) as e:
        read_causes(tmp_path, {"t": ["A", "B"]})
    assert "\n" not in str(e.value)


def test_an_outside_verdict_links_its_page_else_the_notes():
    row = {"table": "t", "method": "A", "metric": "AC", "verdict": "outside"}
    causes = {("t", "A", "AC"): ("measured", "p/README.md")}
    assert _verdict_cell(row, causes, "#n") == "[outside, cause measured](p/README.md)"
    assert _verdict_cell(row, {("t", "A", "AC"): ("tried", "q.md")}, None) == \
        "[outside, tried](q.md)"
    assert _verdict_cell(row, {}, "#notes-t") == "[outside](#notes-t)"
    assert _verdict_cell(row, {}, None) == "outside"
    assert _verdict_cell({**row, "verdict": "within CI"}, causes, "#n") == "within CI"


def test_every_committed_row_outside_links_a_page():
    """The committed ledger's rows outside (REPRODUCTION.csv, which test_ledger recomputes from
    the runs) each have a page in results/causes.yaml, and every page named exists."""
    frame = pd.read_csv(RESULTS / "REPRODUCTION.csv")
    causes = read_causes(RESULTS, {t: list(g.method.unique()) for t, g in frame.groupby("table")})
    out = frame[(frame.kind == "table") & (frame.verdict == "outside")]
    missing = [f"{t} {m} {x}" for t, m, x in zip(out.table, out.method, out.metric, strict=True)
               if (t, m, x) not in causes]
    assert not missing, f"rows outside with no page in results/causes.yaml: {missing}"


def test_the_summary_links_the_causes_file_only_where_there_is_one():
    """A row outside is counted by its cause with a link to causes.yaml; results without that
    file (a user's own) get no such sentence and no link to a file that is not there."""
    from docfact.report.fidelity import _causes_words

    frame = pd.DataFrame([{"table": "t", "kind": "table", "method": "A", "metric": "AC",
                           "verdict": "outside"}])
    assert _causes_words(frame, {}) == []
    words = _causes_words(frame, {("t", "A", "AC"): ("measured", "t/page.md")})
    assert "1 link the committed page" in words[0] and "(causes.yaml)" in words[0]
