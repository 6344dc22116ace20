"""Every published number in the configs is the paper's: each mean, spread and average of
`published.ac` and `published.nmi`, read again from the papers' tables (their texts beside
the repository, ../shared/papers; without them the test skips, and fails in CI).

The tables are read from their text: a line naming a table starts it, a line naming the
metric (Accuracy, AC, Mutual Information, NMI) sets it, and a line whose first cell is k or
"Avg." holds that k's cells, one per method in the order of the paper's header, which is
checked against the header line. LCCF prints a method per line, k across (its kernelized
rows after the line "following are kernelized ...", named METHOD-poly as in the configs).
"""

import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import _missing

PAPERS = Path(__file__).resolve().parents[1].parent / "shared" / "papers"
CONFIGS = Path(__file__).resolve().parents[1] / "configs"

# The papers' method columns, left to right, as their table headers print them.
COLUMNS = {
    "gnmf": ["K-means", "LSI+K-means", "NMF", "GNMF"] * 2,  # AC, then NMI, on one line
    "lcf": ["Kmeans", "NMF", "CF", "SparseNMF", "LCF"],
    "pspt": ["AA", "NMF", "AA-HHt", "AA-PSPt", "NC", "NMF-NCW", "NC-HHt", "NC-PSPt"],
    "rcf": ["KMeans", "CF", "LCCF", "CCF", "SemiLCCF", "CNPCF", "GDCF", "RCF"],
}
FILES = {"gnmf": "gnmf_cai_2008.md", "lccf": "lccf_cai_tkde2011.md",
         "lcf": "lcf_liu_ijcai2011.md", "pspt": "pspt_bao_2008.md", "rcf": "rcf_yan_kbs2017.md"}
CELL = re.compile(r"^\$?\s*(?:\\textbf\{)?([\d.]+)\}?\s*(?:(?:±|\\pm)\s*(?:\\textbf\{)?"
                  r"([\d.]+)\}?)?\s*\$?$")
TABLE = re.compile(r"^(?:Table|TABLE) (\d+)")
ROW = re.compile(r"^(\d+|Avg\.?|avg\.?)$")


def _cell(text: str) -> tuple:
    """'97.6±6.7', '$99.7 \\pm 0.4$', '0.938' -> (mean, std or None)."""
    m = CELL.match(text.strip())
    assert m, f"not a table cell: {text!r}"
    return float(m[1]), float(m[2]) if m[2] else None


def _key(first: str):
    return "avg" if first.lower().startswith("avg") else int(first)


def paper_tables(paper: str) -> dict:
    """{(table number, metric): {method: {k or "avg": (mean, std or None)}}} of a paper."""
    found, table, metric, kernel, header = {}, None, None, False, False
    for line in (PAPERS / FILES[paper]).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split("\t")]
        if TABLE.match(line):
            table, metric, kernel, header = int(TABLE.match(line)[1]), None, False, False
        words = line.lower()
        if "accuracy" in words or "ac performance" in words:
            metric = "ac"
        if ("mutual information" in words or "nmi performance" in words) and paper != "gnmf":
            metric = "nmi"  # GNMF's one header line names both
        if table is None:
            continue
        if paper == "lccf":
            if line.startswith("following are"):  # "... kernelized version of each ..."
                kernel = True
            elif metric and len(cells) == 11 and cells[0] != "k":
                ks = [*range(2, 11), "avg"]
                found.setdefault((table, metric), {})[cells[0] + "-poly" * kernel] = {
                    k: _cell(c) for k, c in zip(ks, cells[1:], strict=True)}
            continue
        names = [n for n in " ".join(cells[1:]).split() if n in COLUMNS[paper]]
        if len(cells) > 2 and cells[0] in ("", "k", "K") and names:
            assert names == COLUMNS[paper][: len(names)] and len(names) >= 4, line
            header = True
        elif header and metric and ROW.match(cells[0]):
            values = [c for c in cells[1:] if c]
            assert len(values) == len(COLUMNS[paper]), line
            for i, (method, value) in enumerate(zip(COLUMNS[paper], values, strict=True)):
                which = ("ac" if i < 4 else "nmi") if paper == "gnmf" else metric
                found.setdefault((table, which), {}).setdefault(method, {})[
                    _key(cells[0])] = _cell(value)
    return found


def _published(value) -> tuple:
    m = re.fullmatch(r"\s*([\d.]+)\s*(?:±\s*([\d.]+))?\s*", str(value))
    return float(m[1]), float(m[2]) if m[2] else None


CONFIG_FILES = sorted(p for p in CONFIGS.glob("*.yaml")
                      if (yaml.safe_load(p.read_text()) or {}).get("published"))


def test_every_table_config_carries_published_numbers():
    assert len(CONFIG_FILES) >= 40


@pytest.mark.parametrize("path", CONFIG_FILES, ids=lambda p: p.stem)
def test_published_numbers_are_the_papers(path):
    if not PAPERS.is_dir():
        _missing(f"needs the papers' texts in {PAPERS}")
    config = yaml.safe_load(path.read_text())
    published, paper = config["published"], path.stem.split("_")[0]
    numbers = [int(n) for n in re.findall(r"Tables? (\d+)(?: \(AC\) and (\d+))?",
                                          published["source"])[0] if n]
    tables = {"ac": numbers[0], "nmi": numbers[-1]}
    read = paper_tables(paper)
    checked = 0
    for metric in ("ac", "nmi"):
        printed = read[(tables[metric], metric)]
        assert set(published[metric]) == set(config["methods"]) <= set(printed), metric
        for method, cells in published[metric].items():
            assert set(cells) == set(printed[method]), (metric, method)
            for k, value in cells.items():
                assert _published(value) == printed[method][k], (metric, method, k, value)
                checked += 1
    assert checked >= 2 * len(config["methods"]) * 2
