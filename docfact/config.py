"""Experiment configs: the YAML schema, validation and defaults. Nothing else reads YAML configs.

A config is one table of a paper:

    name: gnmf_tdt2
    title: GNMF report, Table 2 - clustering performance on TDT2
    data: {view: gnmf_tdt2, weighting: tfidf, weight_on: subset}
    protocol: {k: [2, 3, ..., 10], runs: 50, seed: 2008}   # best_of: N, see Config.best_of;
                                               # best_by: ac or objective, Config.best_by;
                                               # labelled: t, see Config.labelled;
                                               # constraints: pairs, Config.constraints;
                                               # nmi: max (default), sqrt or arithmetic;
                                               # classes: random (default) or largest
    labels: {rule: kmeans, replicates: 20}     # default label reader of factorizations
    numerics: {precision: float32, products: auto}   # how factorizations compute
    methods:
      GNMF: {algorithm: gnmf, lambda: 10, p: 5}   # display name -> algorithm + parameters
    report: {layout: k_by_method, unit: percent}
    published: {source: ..., ac: {GNMF: {2: 99.9±0.3, ..., avg: 97.6}}, nmi: {...},
                claims: [{method: GNMF, over: all, source: "the paper's words"}]}
    notes: free text shown under the tables

Methods are plain data (MethodSpec): whether an algorithm exists and takes those parameters is
checked by the experiment layer when a run is planned (experiment/plan.py), never when results
are read. Every error is a ConfigError naming the file, the key and the reason.
"""

import functools
import hashlib
import inspect
import json
import re
import reprlib
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import yaml

from docfact import limits
from docfact.algorithms.engine import Numerics
from docfact.algorithms.registry import clusters, estimator_class, own
from docfact.datasets.preprocess import SCHEMES
from docfact.errors import ConfigError, ConfigNote

# Parameters the papers call lambda: written so in configs, sweeps and figures; the estimators
# take them as `lam` (lambda is a Python keyword). `lam` is still read in configs, with a note.
PAPER_NAMES = {"lam": "lambda", "lam_h": "lambda_h"}
KEYWORDS = {paper: keyword for keyword, paper in PAPER_NAMES.items()}


def keyword(name: str) -> str:
    """The estimator's keyword for a parameter named as the papers do ('lambda' -> 'lam')."""
    return KEYWORDS.get(name, name)


def paper_name(name: str) -> str:
    """The papers' name of an estimator keyword ('lam' -> 'lambda')."""
    return PAPER_NAMES.get(name, name)


def paper_words(text: str) -> str:
    """An estimator's message with its keywords named as the papers do."""
    for name, paper in PAPER_NAMES.items():
        text = re.sub(rf"\b{name}\b", paper, text)
    return text


def source_digest(name) -> str | None:
    """sha256 of the file that defines the estimator "module:Class" (None for a registered
    name): a record of a user's estimator depends on its code, which the name alone does not
    fix."""
    if not own(name):
        return None
    try:
        path = inspect.getsourcefile(estimator_class(name))
    except TypeError:  # defined where no file holds it
        return None
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else None


METRICS = ("ac", "nmi")
TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "text", "integer": "an integer",
              "number": "a number", "boolean": "true or false"}  # JSON Schema types in words
FOLDER_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")  # as the schema's `name`
MAX_DEPTH = 32  # nested collections in a config (a paper's table needs 5)
MAX_CONFIG_BYTES = 1 << 20
_NUMBER = r"\d+(?:\.\d*)?|\.\d+"
_PM = re.compile(rf"^\s*(-?(?:{_NUMBER}))\s*(?:(?:±|\+-|\+/-)\s*({_NUMBER}))?\s*$")


@dataclass(frozen=True)
class MethodSpec:
    """A row of a paper's table as its config writes it: display name, algorithm name, the
    parameters (by the estimator's keywords: `lam` for the papers' lambda), the label reader
    and the numerics that differ from the defaults (engine.Numerics)."""

    name: str
    algorithm: str
    params: dict = field(default_factory=dict)
    labels: dict = field(default_factory=lambda: {"rule": "kmeans", "replicates": 20})
    numerics: dict = field(default_factory=dict)

    @property
    def own_code(self) -> bool:
        """True for an estimator of the user's own ("module:Class")."""
        return own(self.algorithm)

    @property
    def fixed_length(self) -> bool:
        """True for a factorization of docfact's that stops at a fixed max_iter: under best_by
        objective its sub-runs are compared by their final objectives (earlier docfact
        compared the objectives kept at the choice of each start: another record)."""
        if self.own_code:
            return False
        cls = estimator_class(self.algorithm)
        default = inspect.signature(cls).parameters.get("max_iter")
        return (not clusters(cls) and default is not None
                and self.params.get("max_iter", default.default) is not None)

    def key(self, params=None) -> list:
        """What the method's records depend on (the protocol hash), with its `params` (the
        config's when None); the numerics only when set, so that the committed tables keep
        their hashes."""
        key = [self.name, self.algorithm, self.params if params is None else params, self.labels]
        key = key + [self.numerics] if self.numerics else key
        if self.numerics.get("precision") == "float32" and self.algorithm in ("hht", "pspt", "lcf"):
            key.append({"loop": "float32"})  # they looped in float64 before they honoured it
        # an estimator of one's own: its code too, so that a folder computed with other code
        # is refused rather than resumed
        return key + [{"source": source_digest(self.algorithm)}] if self.own_code else key


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
    best_of: int  # each run of a method is the best (see best_by) of this many sub-runs
    labelled: float | None  # fraction of each class labelled for the semi-supervised methods
    methods: tuple  # of MethodSpec (experiment.plan.resolve: of Method)
    layout: str
    unit: str
    groups: tuple  # ((heading or None, (method names...)), ...): the table's sections
    # "table": a paper's table; "sensitivity": a variant of one, reported apart; "sweep": a
    # sweep's part keeping its table's protocol.labelled for methods that use no labels
    kind: str
    published: dict  # metric -> method -> {k or "avg": (mean, std or None)}; "source"; "claims"
    check: dict  # the reduced protocol of `docfact check`: pairs, margin, against_own
    notes: str
    raw: dict  # the YAML mapping as read, saved beside the results
    shares: str | None = None  # a table whose rows of identical methods this one takes (runner)
    nmi: str = "max"  # NMI's normalisation of MI: max, sqrt or arithmetic of the two entropies
    # how the semi-supervised methods' constraints are drawn, with t = labelled: "labelled", t of
    # each class's samples labelled, every pair among them; "pairs", t of all n (n - 1) / 2 pairs
    constraints: str = "labelled"
    # which of best_of sub-runs a run keeps: "ac", the highest AC (the LCF paper's "chose the
    # best result"); "objective", the lowest objective of the method's own fit
    best_by: str = "ac"
    # which k classes a run clusters: "random", drawn uniformly per run; "largest", the k
    # classes with the most documents, the same in every run
    classes: str = "random"

    def protocol_hash(self) -> str:
        """Identifies what a run record depends on: data, seed, methods and best_of (not k or
        runs)."""
        key = {**self.inputs(), "methods": [m.key() for m in self.methods]}
        if self.best_of > 1:
            key["best_of"] = self.best_of
            if self.best_by != "ac":
                key["best_by"] = self.best_by
            if self.best_by == "objective" and any(m.fixed_length for m in self.methods):
                key["objective"] = "final"
        if self.labelled is not None:
            key["labelled"] = self.labelled
        if self.constraints != "labelled":
            key["constraints"] = self.constraints
        return digest(key)

    def inputs(self) -> dict:
        """What every record depends on: the documents, their weighting, the master seed and
        (when not the papers' max) NMI's normalisation."""
        key = {"view": self.view, "weighting": self.weighting, "weight_on": self.weight_on,
               "seed": self.seed}
        if self.nmi != "max":
            key["nmi"] = self.nmi
        if self.classes != "random":
            key["classes"] = self.classes
        return key

    @property
    def scale(self) -> float:
        """Published values' unit as a multiple of a fraction: 100 for percent."""
        return unit_scale(self.unit)

    def published_value(self, metric: str, method: str, k: int):
        """The published value at k in the paper's unit, None where the paper prints none."""
        row = self.published.get(metric, {}).get(method, {}) if self.published else {}
        return row.get(k, (None,))[0]

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
        _check_sizes(fields["k"], fields["runs"], self.best_of, "--k and --runs")
        return Config(**fields)


def digest(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases (a 2 KB file of `*a` references can stand for
    billions of values), with at most MAX_DEPTH nested collections (deeper ones exhaust
    Python's stack) and without a key given twice in one mapping (PyYAML keeps the last,
    so a method written twice would silently replace the first)."""

    depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, f"alias *{event.anchor} (configs hold no aliases: write the value "
                "out)", event.start_mark)
        if not isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            return super().compose_node(parent, index)
        if self.depth >= MAX_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                continue  # a collection as key is the base class's error; `<<` merges
            key = self.construct_object(key_node)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} given twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def parse_yaml(text: str, where: str):
    """The value of a config's YAML text; ConfigError 'where: invalid YAML at line L, column
    C: problem' for text that is not YAML, holds an alias or nests too deeply."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{where}: invalid YAML{at}: {problem}") from None
    except (ValueError, RecursionError) as e:  # a date out of range, a too long integer
        reason = ("an integer of more than 4300 digits" if "integer string conversion" in str(e)
                  else _short(str(e), 100))
        raise ConfigError(f"{where}: invalid YAML: {reason}") from None


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper writing every value out: a value shared by two methods (a sweep's
    label reader) would otherwise be written as an alias, which the loader refuses."""

    def ignore_aliases(self, data):
        return True


def dump_yaml(raw) -> str:
    """A config mapping as YAML text that parse_yaml reads back (no aliases), keys in order."""
    return yaml.dump(raw, Dumper=_Dumper, sort_keys=False, allow_unicode=True)


def read_config_text(path: Path) -> str:
    """The config file's text: at most MAX_CONFIG_BYTES of UTF-8, else one ConfigError line."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES >> 20} MiB, the most a "
                          "config may hold (a paper's table takes a few KiB)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ConfigError(f"{path}, line {line}: not UTF-8 text (byte 0x{data[e.start]:02x}); "
                          "save the config as UTF-8") from None


def load_config(path, check=None) -> Config:
    """The config of the file `path`; `check` as in parse_config."""
    path = Path(path)
    text = read_config_text(path)
    raw = parse_yaml(text, str(path))
    try:
        return parse_config(raw, str(path), default_name=path.stem, check=check)
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
        node = yaml.compose(text, Loader=_Loader)
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


def parse_config(raw, where: str, default_name: str = "experiment", check=None,
                 check_paths: bool = True) -> Config:
    """Validate a config mapping (as read from YAML); `where` names it in error messages.
    check_paths: False reads a data path that is not there (a results folder's config, whose
    tables need no data; a relative path names a file of the folder the run was started in).

    check: called as check(methods, raw, where) -> problems (lines naming `where`), the
    experiment layer's check of the algorithms, their parameters and the protocol settings
    that only semi-supervised methods use (experiment.plan.problems);
    the first problem is raised. Without it, methods are read as they are written."""
    _check_schema(raw, where)
    name = raw.get("name", default_name)
    if not FOLDER_NAME.fullmatch(name):
        raise ConfigError(f"{where}: the file name gives the table the name {name!r}, which "
                          "is no folder name; add a key name: (letters, digits, '_', '-', '.')")
    view = _view(raw["data"]["view"], f"{where}: data.view", check_paths)
    k = _k_values(raw["protocol"]["k"], f"{where}: protocol.k")
    _check_sizes(k, raw["protocol"]["runs"], raw["protocol"].get("best_of", 1),
                 f"{where}: protocol")
    classes = _view_classes(view, check_paths)
    if classes is not None and max(k) > classes:
        raise ConfigError(f"{where}: protocol.k: k={max(k)} exceeds the {classes} classes of "
                          f"view {view if isinstance(view, str) else view.get('dataset')!r}")
    if raw.get("shares") == name:
        raise ConfigError(f"{where}: shares: names this table itself; name the table whose rows "
                          "it takes")
    methods = method_specs(raw, where)
    labelled = raw["protocol"].get("labelled")
    found = check(methods, raw, where) if check is not None else []
    if found:
        raise ConfigError(found[0])
    names = [m.name for m in methods]
    report = raw.get("report", {})
    return Config(name, raw.get("title", name), view, raw["data"].get("weighting", "tfidf"),
                  raw["data"].get("weight_on", "subset"), k, raw["protocol"]["runs"],
                  raw["protocol"].get("seed", 0), raw["protocol"].get("best_of", 1),
                  labelled, methods,
                  report.get("layout", "k_by_method"), report.get("unit", "percent"),
                  _groups(report.get("groups"), f"{where}: report.groups", names),
                  report.get("kind", "table"),
                  _published(raw.get("published"), f"{where}: published", names,
                             report.get("unit", "percent")),
                  _check(raw.get("check", {}), f"{where}: check", names, k),
                  raw.get("notes", ""), raw, raw.get("shares"),
                  raw["protocol"].get("nmi", "max"),
                  raw["protocol"].get("constraints", "labelled"),
                  raw["protocol"].get("best_by", "ac"),
                  raw["protocol"].get("classes", "random"))


def method_specs(raw: dict, where: str) -> tuple:
    """The methods of a schema-valid config, with the config's default label reader and
    numerics where a method sets none."""
    default_labels = _labels(raw.get("labels", "kmeans"))
    default_numerics = raw.get("numerics", {})
    defaults = vars(Numerics())
    methods = []
    for mname, spec in raw["methods"].items():
        params = method_params(spec, f"{where}: methods.{mname}")
        labels = _labels(spec["labels"]) if "labels" in spec else default_labels
        numerics = spec.get("numerics", default_numerics)
        methods.append(MethodSpec(str(mname), spec["algorithm"], params, labels,
                                  {k: v for k, v in numerics.items() if defaults[k] != v}))
    return tuple(methods)


def method_params(spec: dict, where: str) -> dict:
    """A method's parameters by the estimator's keywords: the papers' `lambda` (and
    `lambda_h`) become `lam` (`lam_h`); the former config name `lam` is read too, with a note."""
    params = {}
    for key, value in spec.items():
        if key in ("algorithm", "labels", "numerics"):
            continue
        name = keyword(str(key))
        if name in params:
            raise ConfigError(f"{where}: {paper_name(name)} is given twice (as {key} too)")
        if key in PAPER_NAMES:
            warnings.warn(f"{where}: write {PAPER_NAMES[key]} (as the papers) rather than {key}; "
                          f"{key} is read the same way", ConfigNote, stacklevel=2)
        params[name] = value
    return params


def _check_schema(raw, where: str) -> None:
    """ConfigError 'where: key.path: reason' for the most relevant departure from the schema:
    an unknown key first (a misspelt `protocl:` also leaves `protocol` missing, which says
    less), else jsonschema's best match."""
    errors = list(_validator().iter_errors(raw))
    unknown = [e for e in errors if e.validator == "additionalProperties"]
    error = (min(unknown, key=lambda e: len(e.absolute_path)) if unknown
             else jsonschema.exceptions.best_match(errors))
    if error is not None:
        raise ConfigError(_schema_message(error, raw, where))


def _schema_message(error, raw, where: str) -> str:
    """'where: key.path: reason' for one departure from the schema."""
    path, node = [], raw
    for key in error.absolute_path:
        path.append(f"[{key}]" if isinstance(node, list) else str(key))
        node = node[key]
    keys = ".".join(path).replace(".[", "[")
    reason = _reason(error)
    if "propertyNames" in error.schema_path:  # a key itself, such as a method's name
        keys, reason = f"{keys} name {_short(error.instance)}", reason.rpartition("; got")[0]
    if error.validator == "additionalProperties":  # point at the unknown key itself
        unknown = sorted(set(map(str, error.instance)) - set(error.schema["properties"]))[0]
        keys = f"{keys}.{unknown}" if keys else unknown
        allowed = ", ".join(sorted(error.schema["properties"]))
        reason = f"unknown key {unknown!r}; allowed: {allowed}"
    if not keys and raw is None:  # an empty file
        reason = "empty: a config is a YAML mapping of data, protocol and methods"
    return f"{where}: {keys}: {reason}" if keys else f"{where}: {reason}"


def problems(path, check=None) -> list:
    """Every problem of the config file `path`, one line each ([] for a valid config): each
    departure from the schema, else each method's problems by `check` (see parse_config), else
    what parse_config finds first."""
    path, where = Path(path), str(path)
    try:
        text = read_config_text(path)
        raw = parse_yaml(text, where)
    except ConfigError as e:
        return [str(e)]
    found = [_schema_message(jsonschema.exceptions.best_match([e]), raw, where)
             for e in _validator().iter_errors(raw)]
    if not found:
        methods = []
        for mname, spec in raw["methods"].items():
            try:
                methods += method_specs({**raw, "methods": {mname: spec}}, where)
            except ConfigError as e:
                found.append(str(e))
        if check is not None:
            found += check(tuple(methods), raw, where)
    if not found:
        try:
            parse_config(raw, where, default_name=path.stem)
        except ConfigError as e:
            found.append(str(e))
    return list(dict.fromkeys(_with_line(message, where, text) for message in found))


def _reason(error) -> str:
    """A schema error in words, naming the allowed values."""
    got = f"got {_short(error.instance)}"
    described = error.schema.get("description") or (
        error.parent.schema.get("description") if error.parent else None)  # an anyOf branch
    if error.validator == "enum":
        return f"must be one of {', '.join(map(str, error.validator_value))}; {got}"
    if error.validator == "required":
        return f"missing key {next(k for k in error.validator_value if k not in error.instance)!r}"
    if described and error.validator in ("anyOf", "pattern", "type", "minProperties",
                                         "minLength", "maxLength"):
        return f"must be {described}; {got}"
    if error.validator == "type":
        kinds = error.validator_value if isinstance(error.validator_value, list) else [
            error.validator_value]
        return f"must be {' or '.join(TYPE_WORDS[t] for t in kinds)}; {got}"
    if error.validator in ("minimum", "exclusiveMinimum", "exclusiveMaximum", "minItems",
                           "maxItems", "uniqueItems", "minProperties"):
        words = {"minimum": f">= {error.validator_value}",
                 "exclusiveMinimum": f"> {error.validator_value}",
                 "exclusiveMaximum": f"< {error.validator_value}",
                 "minItems": f"a list of at least {error.validator_value} items",
                 "maxItems": f"a list of at most {error.validator_value} items",
                 "uniqueItems": "a list without repeated values",
                 "minProperties": "a non-empty mapping"}
        return f"must be {words[error.validator]}; {got}"
    return _short(error.message, 200)


def _short(value, limit: int = 60) -> str:
    """repr(value), or text, cut to about `limit` characters: an error message never spells
    out a long value."""
    text = value if isinstance(value, str) and limit > 60 else reprlib.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@functools.cache
def _validator():
    schema = yaml.safe_load((Path(__file__).parent / "config.schema.yaml").read_text())
    schema["properties"]["data"]["properties"]["weighting"]["enum"] = list(SCHEMES)
    return jsonschema.Draft202012Validator(schema)


def _groups(value, where, names):
    """Sections of the table: a list of {heading, methods}; by default one untitled section."""
    if value is None:
        return ((None, tuple(names)),)
    seen = []
    for i, g in enumerate(value):
        unknown = [m for m in g["methods"] if m not in names]
        if unknown:
            raise ConfigError(f"{where}[{i}].methods: must list methods of this config; "
                              f"unknown: {unknown}")
        seen += g["methods"]
    if sorted(seen) != sorted(names):
        raise ConfigError(f"{where}: every method must appear in exactly one group")
    return tuple((g.get("heading"), tuple(g["methods"])) for g in value)


def _check(value, where, names, ks):
    """(k, run) pairs recomputed by `docfact check`, the margin of its band around the published
    averages, and the methods checked against our own committed results instead."""
    pairs = value.get("pairs", [[ks[0], 0], [ks[0], 1], [ks[min(1, len(ks) - 1)], 0]])
    if any(k not in ks for k, _ in pairs):
        raise ConfigError(f"{where}.pairs: a list of [k, run] with k among protocol.k")
    own = value.get("against_own", [])
    if any(m not in names for m in own):
        raise ConfigError(f"{where}.against_own: must list methods of this config")
    return {"pairs": [tuple(p) for p in pairs], "margin": float(value.get("margin", 0.05)),
            "against_own": own}


def _k_values(value, where) -> tuple:
    """The k values of a schema-valid protocol.k: a list, one integer, or a range 'a..b'."""
    if isinstance(value, list):
        if len(set(value)) != len(value):
            raise ConfigError(f"{where}: must be a list without repeated values; got "
                              f"{_short(value)}")
        return tuple(value)
    if not isinstance(value, str):
        return (value,)
    low, high = map(int, value.split(".."))
    if not 2 <= low <= high:
        raise ConfigError(f"{where}: the range 'a..b' needs 2 <= a <= b, got {value!r}")
    limits.check_runs(high - low + 1, where, f"its {high - low + 1} k values (one run each)")
    return tuple(range(low, high + 1))


def _check_sizes(k, runs: int, best_of: int, where: str) -> None:
    """Refuse a protocol of more runs, or runs of more sub-runs, than memory holds."""
    limits.check_runs(len(k) * runs, where, f"{len(k)} k values x {runs} runs")
    limits.check_runs(best_of, where, f"{best_of} sub-runs (best_of) per run")


def _labels(value) -> dict:
    """A schema-valid label rule as a mapping, with k-means' default replicates."""
    value = {"rule": value} if isinstance(value, str) else dict(value)
    if value["rule"] == "kmeans":
        value.setdefault("replicates", 20)
    return value


def _view(value, where, check_paths: bool):
    from docfact.datasets.views import resolve_view

    if not isinstance(value, (str, dict)):
        raise ConfigError(f"{where}: must be a view name, a data path or a mapping")
    try:
        view = resolve_view(value, check_paths)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None
    return view.get("name", value) if isinstance(value, str) else value  # 'GNMF_TDT2' too


def _view_classes(view, check_paths: bool):
    """The number of classes a view is known to give (its `expect`), else None."""
    from docfact.datasets.views import resolve_view

    return resolve_view(view, check_paths).get("expect", {}).get("classes")


def parse_value(value, where):
    """'97.6±6.7' / '97.6 +- 6.7' / 97.6 -> (mean, std or None)."""
    m = _PM.match(str(value))
    if not m:
        raise ConfigError(f"{where}: expected a number or 'mean±std', got {value!r}")
    return float(m[1]), (float(m[2]) if m[2] else None)


def unit_scale(unit: str) -> float:
    """A report unit as a multiple of a fraction: 100 for percent, 1 for fraction."""
    return 100.0 if unit == "percent" else 1.0


def _published(value, where, method_names, unit: str = "percent"):
    """The paper's values by metric, method and k (or avg), each (mean, std or None), every
    mean within the range of the report's unit (a typo, 5000 for 50.00, would otherwise give
    a verdict against a number no paper printed); the headline claims."""
    if value is None:
        return {}
    top = unit_scale(unit)
    out = {"source": value["source"]}
    for metric in METRICS:
        out[metric] = {}
        for mname, cells in value.get(metric, {}).items():
            if mname not in method_names:
                raise ConfigError(f"{where}.{metric}: {mname!r} is not a method of this config; "
                                  f"methods: {', '.join(method_names)}")
            row = {}
            for key, v in cells.items():
                if key != "avg" and not isinstance(key, int):
                    raise ConfigError(f"{where}.{metric}.{mname}: keys are k values or 'avg', "
                                      f"got {key!r}")
                row[key] = parse_value(v, f"{where}.{metric}.{mname}.{key}")
                if not 0 <= row[key][0] <= top:
                    raise ConfigError(f"{where}.{metric}.{mname}.{key}: {row[key][0]:g} is "
                                      f"outside 0 to {top:g} (report.unit {unit})")
            out[metric][mname] = row
    out["claims"] = [_claim(c, f"{where}.claims[{i}]", method_names)
                     for i, c in enumerate(value.get("claims", []))]
    return out


def _claim(value, where, method_names):
    """A headline claim of the paper: {method, over: (methods it leads), source}."""
    over = [n for n in method_names if n != value["method"]] if value["over"] == "all" \
        else value["over"]
    for name in [value["method"], *over]:
        if name not in method_names:
            raise ConfigError(f"{where}: {name!r} is not a method of this config; "
                              f"methods: {', '.join(method_names)}")
    if value["method"] in over:
        raise ConfigError(f"{where}: {value['method']!r} cannot lead itself")
    return {"method": value["method"], "over": tuple(over), "source": value["source"]}
