"""Experiment configs: the YAML schema, validation and defaults. Nothing else reads YAML configs.

A config is one table of a paper:

    name: gnmf_tdt2
    title: GNMF report, Table 2 - clustering performance on TDT2
    data: {view: gnmf_tdt2, weighting: tfidf, weight_on: subset}
    protocol: {k: [2, 3, ..., 10], runs: 50, seed: 2008}
    labels: {rule: kmeans, replicates: 20}     # default label reader of factorizations
    methods:
      GNMF: {algorithm: gnmf, lam: 10, p: 5}   # display name -> algorithm + parameters
    report: {layout: k_by_method, unit: percent}
    published: {source: ..., ac: {GNMF: {2: 99.9±0.3, ..., avg: 97.6}}, nmi: {...}}
    notes: free text shown under the tables

Every error is a ConfigError naming the file, the key and the reason.
"""

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from docfact.datasets.preprocess import SCHEMES
from docfact.errors import ConfigError
from docfact.experiment.methods import Method

TOP_KEYS = {"name", "title", "data", "protocol", "labels", "methods", "report", "published",
            "notes", "check"}
CHECK_KEYS = {"pairs", "margin", "against_own"}
DATA_KEYS = {"view", "weighting", "weight_on"}
PROTOCOL_KEYS = {"k", "runs", "seed"}
REPORT_KEYS = {"layout", "unit", "groups", "kind"}
KINDS = ("table", "sensitivity")
LAYOUTS = ("k_by_method", "method_by_k")
UNITS = ("percent", "fraction")
METRICS = ("ac", "nmi")
_PM = re.compile(r"^\s*(-?[\d.]+)\s*(?:(?:±|\+-|\+/-)\s*([\d.]+))?\s*$")


@dataclass(frozen=True)
class Config:
    name: str
    title: str
    view: object  # a view name, a data path or an inline view mapping
    weighting: str
    weight_on: str
    k: tuple
    runs: int
    seed: int
    methods: tuple  # of Method
    layout: str
    unit: str
    groups: tuple  # ((heading or None, (method names...)), ...): the table's sections
    kind: str  # "table": a paper's table; "sensitivity": a variant of one, reported apart
    published: dict  # metric -> method -> {k or "avg": (mean, std or None)}; source under "source"
    check: dict  # the reduced protocol of `docfact check`: pairs, margin, against_own
    notes: str
    raw: dict  # the YAML mapping as read, saved beside the results

    def protocol_hash(self) -> str:
        """Identifies what a run record depends on: data, seed and methods (not k or runs)."""
        key = {"view": self.view, "weighting": self.weighting, "weight_on": self.weight_on,
               "seed": self.seed,
               "methods": [[m.name, m.algorithm, m.params, m.labels] for m in self.methods]}
        return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def scale(self) -> float:
        """Published values' unit as a multiple of a fraction: 100 for percent."""
        return 100.0 if self.unit == "percent" else 1.0

    def published_average(self, metric: str, method: str, ks) -> tuple:
        """(value, partial) of the published average over the k values `ks`, in the paper's
        unit: its Avg. when `ks` cover every k it prints (partial False), else the mean of its
        per-k values over `ks` (partial True); (None, False) when it lacks some of them."""
        row = self.published.get(metric, {}).get(method, {}) if self.published else {}
        printed = {key for key in row if key != "avg"}
        if "avg" in row and set(ks) >= printed:
            return row["avg"][0], False
        if row and all(k in row for k in ks):
            return float(sum(row[k][0] for k in ks) / len(ks)), True
        return None, False

    def with_overrides(self, k=None, runs=None) -> "Config":
        """The same config with k values or the number of runs replaced (command-line options)."""
        fields = dict(self.__dict__)
        if k is not None:
            fields["k"] = tuple(k)
        if runs is not None:
            fields["runs"] = runs
        return Config(**fields)


def load_config(path) -> Config:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{path}: invalid YAML{where}: {problem}") from None
    try:
        return parse_config(raw, str(path), default_name=path.stem)
    except ConfigError as e:
        raise ConfigError(_with_line(str(e), str(path), text)) from None


def _with_line(message: str, where: str, text: str) -> str:
    """'file: a.b.c: reason' -> 'file, line N (a.b.c): reason', N the line of the deepest key
    of a.b.c found in the YAML text (messages without a key path are left as they are)."""
    head = f"{where}: "
    if not message.startswith(head):
        return message
    keys, sep, reason = message[len(head):].partition(": ")
    if not sep:
        return message
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return message
    line = None
    for key in keys.replace("[", ".[").split("."):
        if isinstance(node, yaml.MappingNode):
            match = [(k, v) for k, v in node.value if str(k.value) == key]
            if not match:
                break
            line, node = match[0][0].start_mark.line + 1, match[0][1]
        elif isinstance(node, yaml.SequenceNode) and re.fullmatch(r"\[\d+\]", key):
            index = int(key[1:-1])
            if index >= len(node.value):
                break
            node = node.value[index]
            line = node.start_mark.line + 1
        else:
            break
    return message if line is None else f"{where}, line {line} ({keys}): {reason}"


def parse_config(raw, where: str, default_name: str = "experiment") -> Config:
    """Validate a config mapping (as read from YAML); `where` names it in error messages."""
    _mapping(raw, where, TOP_KEYS, required={"data", "protocol", "methods"})
    name = raw.get("name", default_name)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ConfigError(f"{where}: name: must be letters, digits, '_', '-' or '.', got {name!r}")

    data = _mapping(raw["data"], f"{where}: data", DATA_KEYS, required={"view"})
    view = _view(data["view"], f"{where}: data.view")
    weighting = _option(data.get("weighting", "tfidf"), SCHEMES, f"{where}: data.weighting")
    weight_on = _option(data.get("weight_on", "subset"), ("subset", "corpus"),
                        f"{where}: data.weight_on")

    protocol = _mapping(raw["protocol"], f"{where}: protocol", PROTOCOL_KEYS,
                        required={"k", "runs"})
    k = _k_values(protocol["k"], f"{where}: protocol.k")
    runs = _int(protocol["runs"], f"{where}: protocol.runs", low=1)
    classes = _view_classes(view)
    if classes is not None and max(k) > classes:
        raise ConfigError(f"{where}: protocol.k: k={max(k)} exceeds the {classes} classes of "
                          f"view {view if isinstance(view, str) else view.get('dataset')!r}")
    seed = _int(protocol.get("seed", 0), f"{where}: protocol.seed", low=0)

    default_labels = _labels(raw.get("labels", {"rule": "kmeans", "replicates": 20}),
                             f"{where}: labels")
    methods_raw = raw["methods"]
    if not isinstance(methods_raw, dict) or not methods_raw:
        raise ConfigError(f"{where}: methods: must be a non-empty mapping of name -> settings")
    methods = []
    for mname, spec in methods_raw.items():
        mwhere = f"{where}: methods.{mname}"
        if not isinstance(spec, dict) or "algorithm" not in spec:
            raise ConfigError(f"{mwhere}: must be a mapping with an 'algorithm' key")
        params = {key: v for key, v in spec.items() if key not in ("algorithm", "labels")}
        labels = _labels(spec["labels"], f"{mwhere}.labels") if "labels" in spec else default_labels
        m = Method(str(mname), spec["algorithm"], params, labels)
        m.validate(mwhere)
        methods.append(m)

    report = _mapping(raw.get("report", {}), f"{where}: report", REPORT_KEYS)
    layout = _option(report.get("layout", "k_by_method"), LAYOUTS, f"{where}: report.layout")
    unit = _option(report.get("unit", "percent"), UNITS, f"{where}: report.unit")
    groups = _groups(report.get("groups"), f"{where}: report.groups", [m.name for m in methods])
    kind = _option(report.get("kind", "table"), KINDS, f"{where}: report.kind")
    published = _published(raw.get("published"), f"{where}: published",
                           [m.name for m in methods], k)
    check = _check(raw.get("check"), f"{where}: check", [m.name for m in methods], k)
    notes = raw.get("notes", "")
    if not isinstance(notes, str):
        raise ConfigError(f"{where}: notes: must be text")
    return Config(name, str(raw.get("title", name)), view, weighting, weight_on, k, runs, seed,
                  tuple(methods), layout, unit, groups, kind, published, check, notes, raw)


def _mapping(value, where, allowed, required=()):
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a mapping, got {type(value).__name__}")
    unknown = sorted(set(map(str, value)) - set(allowed))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; allowed: "
                          f"{', '.join(sorted(allowed))}")
    missing = sorted(set(required) - set(value))
    if missing:
        raise ConfigError(f"{where}: missing key {missing[0]!r}")
    return value


def _groups(value, where, names):
    """Sections of the table: a list of {heading, methods}; by default one untitled section."""
    if value is None:
        return ((None, tuple(names)),)
    if not isinstance(value, list) or not all(isinstance(g, dict) for g in value):
        raise ConfigError(f"{where}: must be a list of {{heading, methods}} mappings")
    groups, seen = [], []
    for i, g in enumerate(value):
        _mapping(g, f"{where}[{i}]", {"heading", "methods"}, required={"methods"})
        members = g["methods"]
        unknown = [m for m in members if m not in names] if isinstance(members, list) else None
        if unknown is None or unknown:
            raise ConfigError(f"{where}[{i}].methods: must list methods of this config; "
                              f"unknown: {unknown}")
        groups.append((g.get("heading"), tuple(members)))
        seen += members
    if sorted(seen) != sorted(names):
        raise ConfigError(f"{where}: every method must appear in exactly one group")
    return tuple(groups)


def _check(value, where, names, ks):
    """(k, run) pairs recomputed by `docfact check`, the margin of its band around the published
    averages, and the methods checked against our own committed results instead."""
    value = _mapping(value if value is not None else {}, where, CHECK_KEYS)
    pairs = value.get("pairs", [[ks[0], 0], [ks[0], 1], [ks[min(1, len(ks) - 1)], 0]])
    if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, int) for x in p)
            and p[0] in ks and p[1] >= 0 for p in pairs):
        raise ConfigError(f"{where}.pairs: a list of [k, run] with k among protocol.k")
    margin = value.get("margin", 0.05)
    if not isinstance(margin, (int, float)) or isinstance(margin, bool) or margin < 0:
        raise ConfigError(f"{where}.margin: must be a number >= 0")
    own = value.get("against_own", [])
    if not isinstance(own, list) or any(m not in names for m in own):
        raise ConfigError(f"{where}.against_own: must list methods of this config")
    return {"pairs": [tuple(p) for p in pairs], "margin": float(margin), "against_own": own}


def _option(value, options, where):
    if value not in options:
        raise ConfigError(f"{where}: must be one of {', '.join(options)}; got {value!r}")
    return value


def _int(value, where, low):
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ConfigError(f"{where}: must be an integer >= {low}, got {value!r}")
    return value


def _k_values(value, where):
    """A list of integers, or a range written 'a..b'."""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+)\s*\.\.\s*(\d+)\s*", value)
        if not m:
            raise ConfigError(f"{where}: write a list of integers or a range 'a..b', got {value!r}")
        value = list(range(int(m[1]), int(m[2]) + 1))
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{where}: must be a non-empty list of integers")
    ks = [_int(k, where, low=2) for k in value]
    if len(set(ks)) != len(ks):
        raise ConfigError(f"{where}: repeated k value")
    return tuple(ks)


def _labels(value, where):
    if isinstance(value, str):
        value = {"rule": value}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be 'kmeans', 'argmax' or a mapping with 'rule'")
    value = dict(value)
    if value.get("rule") == "kmeans":
        value.setdefault("replicates", 20)
    return value


def _view(value, where):
    from docfact.datasets.views import resolve_view

    if not isinstance(value, (str, dict)):
        raise ConfigError(f"{where}: must be a view name, a data path or a mapping")
    try:
        resolve_view(value)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None
    return value


def _view_classes(view):
    """The number of classes a view is known to give (its `expect`), else None."""
    from docfact.datasets.views import resolve_view

    return resolve_view(view).get("expect", {}).get("classes")


def parse_value(value, where):
    """'97.6±6.7' / '97.6 +- 6.7' / 97.6 -> (mean, std or None)."""
    m = _PM.match(str(value))
    if not m:
        raise ConfigError(f"{where}: expected a number or 'mean±std', got {value!r}")
    return float(m[1]), (float(m[2]) if m[2] else None)


def _published(value, where, method_names, ks):
    if value is None:
        return {}
    _mapping(value, where, {"source", *METRICS}, required={"source"})
    out = {"source": str(value["source"])}
    for metric in METRICS:
        table = value.get(metric, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{where}.{metric}: must be a mapping of method -> values")
        out[metric] = {}
        for mname, cells in table.items():
            if mname not in method_names:
                raise ConfigError(f"{where}.{metric}: {mname!r} is not a method of this config; "
                                  f"methods: {', '.join(method_names)}")
            if not isinstance(cells, dict):
                raise ConfigError(f"{where}.{metric}.{mname}: must map k (and 'avg') to values")
            row = {}
            for key, v in cells.items():
                if key != "avg" and not isinstance(key, int):
                    raise ConfigError(f"{where}.{metric}.{mname}: keys are k values or 'avg', "
                                      f"got {key!r}")
                row[key] = parse_value(v, f"{where}.{metric}.{mname}.{key}")
            out[metric][mname] = row
    return out
