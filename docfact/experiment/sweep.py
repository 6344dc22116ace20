"""Parameter sweeps (LCCF Figs. 1-2, RCF Figs. 1-6): one protocol run per value, then averages
over k. The swept parameter is a method's (METHOD.PARAM) or the protocol's labelled fraction
(protocol.labelled), which varies the labels every semi-supervised method sees; a second one
(`by`) gives one line per value (RCF Fig. 3: the labelled fraction, by the links propagated)."""

import re
import warnings
from dataclasses import replace
from pathlib import Path

import pandas as pd

from docfact.config import Config, keyword, paper_name
from docfact.errors import ConfigError, ConfigNote
from docfact.experiment.aggregate import summarize
from docfact.experiment.plan import Plan, resolve
from docfact.experiment.results import read_runs
from docfact.experiment.runner import run


def parse_param(text: str, option: str = "--param") -> tuple:
    """'lccf.lambda=1,10,100' -> ('lccf', 'lambda', [1, 10, 100]); numbers stay numbers (ints
    ints), true and false booleans, null None, other values stay text
    ('lccf.weight=binary,cosine'), validated by the estimator. Parameters keep the papers'
    names (lambda), also in folder and file names; the former `lam` is read as lambda, with a
    note. `option`: the option the text was given to, named in the errors."""
    m = re.fullmatch(r"\s*([\w.+-]+?)\.(\w+)\s*=\s*([^=]+)", text)
    if not m:
        raise ConfigError(f"{option}: write METHOD.PARAM=V1,V2,..., got {text!r}")
    param = paper_name(m[2])
    if param != m[2]:
        warnings.warn(f"{m[1]}.{m[2]}: write {m[1]}.{param} (as the papers); {m[2]} is read the "
                      "same way", ConfigNote, stacklevel=2)
    values = [_value(v.strip()) for v in m[3].split(",")]
    for i, v in enumerate(values):
        for u in values[:i]:  # equal values (1, 1.0; True is not 1), or one folder (null, None)
            if (u == v and isinstance(u, bool) == isinstance(v, bool)) or str(u) == str(v):
                raise ConfigError(f"{option}: {m[1]}.{param} lists {u!r} twice")
    return m[1], param, values


def _value(text: str):
    named = {"true": True, "false": False, "null": None}
    if text.lower() in named:
        return named[text.lower()]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def restricted(config: Config, methods, name: str) -> Config:
    """The config reduced to `methods` (Method objects), under another name, without published
    values or checks: the protocol (data, k, runs, seed, labelled) is unchanged; report.kind
    "sweep" when none of `methods` uses its labels (plan.problems allows labelled then)."""
    raw = {**config.raw, "name": name,
           "methods": {m.name: {"algorithm": m.algorithm,
                                **{paper_name(key): v for key, v in m.params.items()},
                                "labels": m.labels,
                                **({"numerics": m.numerics} if m.numerics else {})}
                       for m in methods}}
    for key in ("published", "check", "shares"):
        raw.pop(key, None)
    raw["report"] = {"unit": config.unit}
    if config.labelled is not None and not any(m.semi_supervised for m in methods):
        raw["report"]["kind"] = "sweep"
    return replace(config, name=name, methods=tuple(methods), raw=raw, published={},
                   groups=((None, tuple(m.name for m in methods)),), shares=None,
                   kind=raw["report"].get("kind", "table"))


def swept_config(config: Config, target: str, param: str, value,
                 option: str = "--param") -> Config:
    """The config restricted to the methods named `target` (a method, or every method of that
    algorithm), with `param` set to `value`; for target "protocol", to its semi-supervised
    methods with protocol.labelled set to `value`. `option`: --param, or --by for the second
    parameter, set on the config --param made (its methods only)."""
    config = resolve(config)
    if target == "protocol":
        return labelled_config(config, param, value, option)
    chosen = [m for m in config.methods if target in (m.name, m.algorithm)]
    if not chosen:
        names = ", ".join(m.name for m in config.methods)
        among = (f"in {config.name} ({names})" if option == "--param" else
                 f"among the methods --param sweeps ({names})")
        raise ConfigError(f"{option}: no method or algorithm {target!r} {among}")
    methods = tuple(replace(m, params={**m.params, keyword(param): value}) for m in chosen)
    for m in methods:
        m.validate(f"{option} {target}.{param}={value}")
    return restricted(config, methods, f"{config.name}-{param}-{_name_part(value)}")


def _name_part(value) -> str:
    """A swept value as part of a config name, whose characters are letters, digits, '_', '-'
    and '.': any other one (k-means++) written '_' (the value's folder keeps the value)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", str(value))


def labelled_config(config: Config, param: str, value, option: str = "--param") -> Config:
    """The config's semi-supervised methods with the fraction of labelled documents `value`."""
    config = resolve(config)
    semi = [m for m in config.methods if m.semi_supervised]
    if param != "labelled":
        raise ConfigError(f"{option} protocol.{param}: the one protocol setting a sweep varies "
                          "is protocol.labelled (for the others, edit the config)")
    if not semi:
        raise ConfigError(f"{option} protocol.labelled: {config.name} has no semi-supervised "
                          "method to give labels to")
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < 1:
        raise ConfigError(f"{option} protocol.labelled: fractions in (0, 1), got {value!r}")
    c = restricted(config, semi, f"{config.name}-labelled-{value}")
    return replace(c, labelled=value,
                   raw={**c.raw, "protocol": {**c.raw["protocol"], "labelled": value}})


def baseline_config(config: Config, names) -> Config:
    """The config restricted to the methods `names`, run unchanged beside a sweep."""
    config = resolve(config)
    known = {m.name: m for m in config.methods}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(f"--baselines: no method {unknown[0]!r} in {config.name}; "
                          f"methods: {', '.join(known)}")
    return restricted(config, [known[n] for n in names], f"{config.name}-baselines")


def _averages(folder: Path, config: Config) -> pd.DataFrame:
    """(method, ac, nmi): each method's average over k of the runs in `folder`."""
    runs = read_runs(folder / "runs.csv")
    s = summarize(runs, [m.name for m in config.methods], sorted(runs["k"].unique()))
    return s[s.k == "avg"].pivot(index="method", columns="metric", values="mean").reset_index()


def sweep(config: Config, target: str, param: str, values, out: Path, jobs: int,
          baselines=(), by=None, reused=()) -> tuple:
    """Run each value into out/<param>=<value>/ and the `baselines` (methods left unchanged,
    as reference lines) into out/baselines/; return ((param, value, method, ac, nmi), the
    averages over k (value empty for a baseline), and the folders run).

    by : optional (target, param, values) of a second parameter, set within each value of the
        first: one line per value, its runs in out/<param>=<value>/<by param>=<by value>/ and
        its rows' method "METHOD (<by param>=<by value>)" (RCF Fig. 3: the labelled fraction,
        by the links propagated).
    reused : results folders (the tables', other sweeps') whose rows of identical methods are
        taken instead of computed (runner.shared_rows), as are those of the values run before:
        a value equal to a table's setting costs nothing."""
    if by and by[:2] == (target, param):
        text = f"{target}.{param}={','.join(map(str, by[2]))}"
        raise ConfigError(f"--by: {text!r} is the parameter --param already sweeps")
    # every value's config (and the baselines') built, so checked, before any value computes
    lines = [(value, _lines(swept_config(config, target, param, value),
                            out / f"{param}={value}", by)) for value in values]
    base = baseline_config(config, baselines) if baselines else None
    parts, reused, folders = [], list(reused), []
    for value, value_lines in lines:
        for label, folder, line in value_lines:
            table = _averages(run(Plan.of(line), folder, jobs=jobs, progress=True,
                                  reused=reused), line)
            parts.append(table.assign(value=value, method=table["method"] + label))
            reused.append(folder)
            folders.append(folder)
    if base is not None:
        folder = out / "baselines"
        swept = {m.name for _, value_lines in lines for _, _, line in value_lines
                 for m in line.methods}
        line = _averages(run(Plan.of(base), folder, jobs=jobs, progress=True, reused=reused),
                         base)  # a swept method as its own baseline: named apart from its line
        parts.append(line.assign(value=None, method=line["method"].where(
            ~line["method"].isin(swept), line["method"] + " (unchanged)")))
        folders.append(folder)
    table = pd.concat(parts, ignore_index=True).assign(param=param)
    return table[["param", "value", "method", "ac", "nmi"]], folders


def _lines(config: Config, folder: Path, by) -> list:
    """[(label, folder, config)] of one value of a sweep: itself, or one per value of `by`."""
    if by is None:
        return [("", folder, config)]
    target, param, values = by
    return [(f" ({param}={v})", folder / f"{param}={v}",
             swept_config(config, target, param, v, "--by"))
            for v in values]
