"""Readings of the settings a paper leaves unstated, declared as data, run on a sub-protocol.

A readings file (configs/readings/<paper>.yaml) names the paper's tables (configs sharing one
reading), each unstated setting with its values (what each value sets in a config, and the
sentence of the paper, the reference code or the convention it rests on), and a handful of
readings, each one value per setting:

    paper: GNMF
    tables: [gnmf_tdt2, gnmf_reuters]
    settings:
      weighting:
        subset: {set: {data: {weight_on: subset}}, grounds: "code: tfidf.m on the subset"}
        corpus: {set: {data: {weight_on: corpus}}, grounds: "paper, Sec. 4.1: ..."}
    readings:
      reference: {weighting: subset}
      corpus: {weighting: corpus}
    fixed: {graph weight: "paper, Eq. 6: 0-1 weights"}   # not varied, and why
    runs: 10                     # runs per k of the sub-protocol (default 10)
    numerics: {precision: float32, products: auto}   # how every reading's factorizations
                                 # compute (engine.Numerics; not a reading: default float64)
    notes: free text shown in readings.md

Every reading applies its settings to the table's config; once a table's primary config carries
the chosen reading, the readings start from the reference config it replaced, named beside the
table (`tables: {gnmf_tdt2: gnmf_tdt2_reference, ...}`), so that a value that sets nothing means
the reference code's.

A fixed setting may also carry a `set` of `methods` (method -> parameters) applied in every
reading: how a method must be computed whatever the reading, e.g. an audit's correction of a
method (`{set: {methods: {KM-NCW: {form: ncut_hollow}}}, grounds: "..."}`).

A value's `set` may hold `data` (weight_on, weighting), `protocol` (nmi), `labels` (the label
reader of every factorization), `algorithms` (algorithm -> parameters, for every method of
that algorithm) and `methods` (method -> parameters, for the methods named; applied after every
setting's `algorithms`; two settings, or a setting and a fixed one, giving one parameter of a
method different values are refused). Settings a paper states (lambda, p, eta, alpha, k, runs,
t...) cannot be set.

Each reading's runs go to results/<paper>_readings/<reading>/<table>/, a results folder like any
other; rows of methods the reading leaves unchanged are taken from the committed tables and from
the other readings' folders (runner.shared_rows), so a reading costs only the methods it changes;
a taken row keeps the seconds recorded where it was computed, so that a reading's folder can give
a primary table its rows and their cost (`docfact run --donors`).
"""

import copy
import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path

from docfact.algorithms.engine import Numerics
from docfact.algorithms.registry import ALGORITHMS
from docfact.config import Config, keyword, parse_config, parse_yaml, read_config_text
from docfact.errors import ConfigError
from docfact.experiment import plan
from docfact.experiment.runner import run

# what a reading may set, and what it may never vary (settings the papers state)
SETTABLE = {"data": {"weight_on", "weighting"}, "protocol": {"nmi", "constraints", "best_by"}}
STATED = {"lam", "p", "eta", "alpha", "beta", "lam_h", "kernel", "degree", "ncw", "links", "k",
          "runs", "labelled", "best_of", "seed"}  # estimator keywords (lambda is lam)
RUNS = 10  # runs per k of the sub-protocol
KEYS = {"paper", "tables", "settings", "readings", "fixed", "runs", "numerics", "notes"}
READING_NAME = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]{0,99}")  # a folder name: no path


@dataclass(frozen=True)
class Readings:
    paper: str  # the key of results/<paper>_readings (the file's stem)
    title: str
    tables: tuple  # config names
    bases: dict  # table -> the config its readings start from (the reference config)
    settings: dict  # setting -> value -> {"set": patch, "grounds": text}
    readings: dict  # reading -> {setting: value}, in declared order
    fixed: dict  # setting -> grounds, or {set: {methods: ...}, grounds}: not varied
    notes: str = ""  # what a reader of the landscape should know (shown in readings.md)
    runs: int = RUNS  # runs per k of the sub-protocol
    numerics: dict = field(default_factory=dict)  # of every reading's factorizations

    def folder(self, results: Path) -> Path:
        return Path(results) / f"{self.paper}_readings"


def load_readings(path) -> Readings:
    """Parse and check a readings file; ConfigError 'file: key: reason' for anything wrong."""
    path = Path(path)
    text = read_config_text(path)
    where = str(path)
    raw = parse_yaml(text, where)
    if not isinstance(raw, dict) or not {"tables", "settings", "readings"} <= set(raw):
        raise ConfigError(f"{where}: needs tables, settings and readings")
    unknown = sorted(map(str, set(raw) - KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; allowed: "
                          f"{', '.join(sorted(KEYS))}")
    settings = raw["settings"]
    if not isinstance(settings, dict) or not settings:
        raise ConfigError(f"{where}: settings: a mapping of setting -> value -> {{set, grounds}}")
    for name, values in settings.items():
        if not isinstance(values, dict) or not values:
            raise ConfigError(f"{where}: settings.{name}: a mapping of value -> {{set, grounds}}")
        for value, spec in values.items():
            at = f"{where}: settings.{name}.{value}"
            if not isinstance(spec, dict) or not str(spec.get("grounds", "")).strip():
                raise ConfigError(f"{at}: every value needs its grounds (paper, code or "
                                  "convention)")
            _check_patch(spec.get("set") or {}, at)
    readings = raw["readings"]
    if not isinstance(readings, dict) or not readings:
        raise ConfigError(f"{where}: readings: a mapping of reading -> {{setting: value}}")
    for name, choice in readings.items():
        at = f"{where}: readings.{name}"
        if not READING_NAME.fullmatch(str(name)):
            raise ConfigError(f"{at}: a reading's name names its folder: letters, digits, '_', "
                              "'-', '+' or '.', not starting with '.'")
        if not isinstance(choice, dict) or set(choice) != set(settings):
            raise ConfigError(f"{at}: give one value for each setting: {', '.join(settings)}")
        for setting, value in choice.items():
            if not isinstance(value, Hashable) or value not in settings[setting]:
                raise ConfigError(f"{at}.{setting}: {value!r} is not a value of that setting; "
                                  f"values: {', '.join(map(str, settings[setting]))}")
    tables = raw["tables"]
    if isinstance(tables, dict) and tables:
        bases = {str(t): str(b) for t, b in tables.items()}
    elif isinstance(tables, list) and tables:
        bases = {str(t): str(t) for t in tables}
    else:
        raise ConfigError(f"{where}: tables: a list of config names, or a mapping of table -> "
                          "the config its readings start from")
    fixed = raw.get("fixed", {}) or {}
    if not isinstance(fixed, dict):
        raise ConfigError(f"{where}: fixed: a mapping of setting -> grounds, or -> {{set, "
                          "grounds}}")
    for name, spec in fixed.items():
        if isinstance(spec, dict):
            _check_fixed(spec, f"{where}: fixed.{name}")
        elif not isinstance(spec, str) or not spec.strip():
            raise ConfigError(f"{where}: fixed.{name}: its grounds (paper, code or convention)")
    runs = raw.get("runs", RUNS)
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 2:
        raise ConfigError(f"{where}: runs: the runs per k of the sub-protocol, an integer >= 2")
    numerics = raw.get("numerics") or {}
    try:
        Numerics(**numerics)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: numerics: a mapping with 'precision' (float64, float32, "
                          "mixed) and 'products' (reference, auto)") from None
    return Readings(path.stem, raw.get("paper", path.stem), tuple(bases), bases, settings,
                    dict(readings), fixed, raw.get("notes", ""), runs, dict(numerics))


def _check_fixed(spec: dict, where: str) -> None:
    if not str(spec.get("grounds", "")).strip():
        raise ConfigError(f"{where}: needs its grounds (paper, code or convention)")
    patch = spec.get("set") or {}
    if not isinstance(patch, dict) or set(patch) - {"methods"}:
        raise ConfigError(f"{where}.set: may set only methods (method -> parameters)")
    _check_unstated(patch, "methods", where)


def _check_unstated(patch: dict, key: str, where: str) -> None:
    """`patch[key]` maps names (methods or algorithms) to parameters, none stated by a paper."""
    if not isinstance(patch.get(key) or {}, dict):
        raise ConfigError(f"{where}.set.{key}: a mapping of name -> parameters")
    for name, params in (patch.get(key) or {}).items():
        if not isinstance(params or {}, dict):
            raise ConfigError(f"{where}.set.{key}.{name}: a mapping of parameter -> value")
        stated = sorted(key for key in params or {} if keyword(key) in STATED)
        if stated:
            raise ConfigError(f"{where}.set.{key}.{name}: {', '.join(stated)} is stated "
                              "by the paper and never varied")


def _check_patch(patch, where: str) -> None:
    if not isinstance(patch, dict):
        raise ConfigError(f"{where}.set: a mapping")
    for key, value in patch.items():
        if key in SETTABLE:
            bad = set(value) - SETTABLE[key] if isinstance(value, dict) else {key}
            if bad:
                raise ConfigError(f"{where}.set.{key}: may set only "
                                  f"{', '.join(sorted(SETTABLE[key]))}")
        elif key in ("algorithms", "methods"):
            _check_unstated(patch, key, where)
            unknown = sorted(set(patch[key] or {}) - set(ALGORITHMS)) if key == "algorithms" else []
            if unknown:
                raise ConfigError(f"{where}.set.algorithms: unknown algorithm {unknown[0]!r}")
        elif key != "labels":
            raise ConfigError(f"{where}.set: unknown key {key!r}; allowed: algorithms, data, "
                              "labels, methods, protocol")


def fixed_methods(readings: Readings) -> dict:
    """{method: parameters} of the fixed settings that set methods, for every reading."""
    out = {}
    for spec in readings.fixed.values():
        if isinstance(spec, dict):
            for method, params in ((spec.get("set") or {}).get("methods") or {}).items():
                out.setdefault(method, {}).update(params or {})
    return out


def _set_methods(raw: dict, table: str, patches: list) -> None:
    """Give the named methods of a raw config the parameters of every patch ({method:
    parameters}: the fixed settings', then each setting's); a parameter two patches give
    different values is refused, as is a method the table does not have."""
    given = {}
    for patch in patches:
        for method, params in patch.items():
            if method not in raw["methods"]:
                raise ConfigError(f"{table}: a setting names method {method!r}, which the "
                                  "table does not have")
            for key, value in (params or {}).items():
                if given.setdefault((method, key), value) != value:
                    raise ConfigError(f"{table}: two settings give {method}'s {key} different "
                                      f"values ({given[(method, key)]!r}, {value!r})")
            raw["methods"][method].update(params or {})


def reading_config(config: Config, readings: Readings, reading: str, name=None) -> Config:
    """The config with the fixed methods' parameters and every setting of `reading` applied,
    named `name` (default: its own)."""
    raw = copy.deepcopy(config.raw)
    if name is not None:
        raw["name"] = name
    raw.pop("notes", None)  # the base table's words, not the reading's
    if raw.get("shares"):  # the table it shares with, by its name among the readings' tables
        raw["shares"] = next((t for t, b in readings.bases.items() if b == raw["shares"]),
                             raw["shares"])
    if readings.numerics:  # every reading's factorizations, whatever the base sets per method
        raw["numerics"] = dict(readings.numerics)
        for spec in raw["methods"].values():
            spec.pop("numerics", None)
    if isinstance(raw.get("report"), dict):
        raw["report"].pop("kind", None)
    methods = [fixed_methods(readings)]
    for setting, value in readings.readings[reading].items():
        patch = readings.settings[setting][value].get("set") or {}
        for key in SETTABLE:
            if key in patch:
                raw.setdefault(key, {}).update(patch[key])
        if "labels" in patch:
            raw["labels"] = patch["labels"]
            for spec in raw["methods"].values():
                spec.pop("labels", None)
        for algorithm, params in (patch.get("algorithms") or {}).items():
            for spec in raw["methods"].values():
                if spec["algorithm"] == algorithm:
                    spec.update(params)
        methods.append(patch.get("methods") or {})
    _set_methods(raw, config.name, methods)
    return plan.resolve(parse_config(raw, f"{config.name} ({readings.paper} reading {reading})",
                                     default_name=raw.get("name", config.name),
                                     check=plan.problems))


def check_readings(readings: Readings, configs: Path, names, tables) -> None:
    """Build the config of each reading of `names` for each of `tables`: ConfigError for a
    value a method refuses before any reading computes (a run of hours would otherwise stop
    at the first reading that carries it)."""
    for name in tables:
        base = plan.load(Path(configs) / f"{readings.bases[name]}.yaml")
        for reading in names:
            reading_config(base, readings, reading, name)


def phase_ks(config: Config, phase: str) -> tuple:
    """The k values of a phase: "select" the odd k, "validate" the held-out even k, "full" all
    of the config's."""
    if phase == "full":
        return config.k
    parity = 1 if phase == "select" else 0
    ks = tuple(k for k in config.k if k % 2 == parity)
    if not ks:
        raise ConfigError(f"{config.name}: no {'odd' if parity else 'even'} k to {phase} on")
    return ks


def phase_config(config: Config, phase: str, runs: int = RUNS,
                 table: Config | None = None) -> Config:
    """The sub-protocol of a phase: `runs` runs at its k; for "full", the k and runs of `table`
    (the primary config: the paper's protocol, where the base may be a sensitivity table of
    fewer runs), else of `config`."""
    if phase == "full":
        table = table or config
        return config.with_overrides(k=table.k, runs=table.runs)
    return config.with_overrides(k=phase_ks(config, phase), runs=min(runs, config.runs))


def donor_folders(results: Path) -> list:
    """Every results folder whose rows a reading may take: the tables and the readings' runs."""
    results = Path(results)
    return sorted({p.parent for p in [*results.glob("*/manifest.json"),
                                      *results.glob("*_readings/*/*/manifest.json")]})


def run_reading(readings: Readings, reading: str, phase: str, configs: Path, results: Path,
                tables=None, jobs: int = 1, progress: bool = True) -> dict:
    """Run (or resume) `reading` on the sub-protocol `phase` for each table; {table: folder}."""
    folders = {}
    for name in tables or readings.tables:
        base = plan.load(Path(configs) / f"{readings.bases[name]}.yaml")
        config = reading_config(base, readings, reading, name)
        out = readings.folder(results) / reading / name
        table = plan.load(Path(configs) / f"{name}.yaml") if phase == "full" else None
        run(plan.Plan.of(phase_config(config, phase, readings.runs, table)), out, jobs=jobs,
            progress=progress, donors=donor_folders(results), named=False)
        folders[name] = out
    return folders

