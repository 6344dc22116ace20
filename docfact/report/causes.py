"""Where a row's miss is studied: results/causes.yaml.

For the rows that sit outside their published average, the file names the committed page (a
path under results/) that studies the miss, in one of two kinds:

    lccf_tdt2:                      # a table (its config's name)
      measured:                     # pages that measure the cause
        lccf_km_poly/README.md: [KM-poly NMI]
      tried:                        # pages that list what was tried, the cause not found
        lccf_aa_readout/README.md: [AA-poly]

A row is "METHOD" (both metrics) or "METHOD AC" / "METHOD NMI"; each row has one page. The
report links each such row's verdict to its page and counts the rows outside with and without
one.
"""

from pathlib import Path

from docfact import atomic
from docfact.config import parse_yaml
from docfact.errors import DocfactError
from docfact.experiment.aggregate import METRICS

FILE = "causes.yaml"
KINDS = ("measured", "tried")


def read_causes(results: Path, methods: dict) -> dict:
    """{(table, method, metric): (kind, page)} from results/causes.yaml ({} without the file);
    `methods` maps each table's name to its method names. DocfactError, in one line,
    on a table, method, metric or page that does not exist, or a row given twice."""
    path = Path(results) / FILE
    if not path.exists():
        return {}
    try:
        raw = parse_yaml(atomic.read_text(path), str(path)) or {}
    except (OSError, ValueError) as e:  # ValueError: not UTF-8
        raise DocfactError(f"{path}: cannot be read ({e})") from None
    out = {}
    for table, kinds in _mapping(raw, str(path)).items():
        if table not in methods:
            raise DocfactError(f"{path}: {table!r} is no table of {results}")
        for kind, pages in _mapping(kinds, f"{path}: {table}").items():
            if kind not in KINDS:
                raise DocfactError(f"{path}: {table}.{kind}: expected {' or '.join(KINDS)}")
            for page, specs in _mapping(pages, f"{path}: {table}.{kind}").items():
                if not (Path(results) / page).is_file():
                    raise DocfactError(f"{path}: {table}.{kind}: no page {page!r} under "
                                       f"{results}")
                for spec in specs if isinstance(specs, list) else [specs]:
                    for row in _rows(spec, methods[table], f"{path}: {table}.{kind}"):
                        if (table, *row) in out:
                            raise DocfactError(f"{path}: {table}: {' '.join(row)} given twice")
                        out[(table, *row)] = (kind, page)
    return out


def _mapping(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise DocfactError(f"{where}: expected a mapping")
    return value


def _rows(spec, methods: list, where: str) -> list:
    """[(method, METRIC)] of one row spec: 'METHOD' (both metrics) or 'METHOD AC'."""
    method, _, metric = str(spec).rpartition(" ")
    if metric.lower() not in METRICS:
        method, metric = str(spec), ""
    if method not in methods:
        raise DocfactError(f"{where}: {method!r} is not a method of the table; methods: "
                           f"{', '.join(methods)}")
    return [(method, m.upper()) for m in METRICS if not metric or m == metric.lower()]
