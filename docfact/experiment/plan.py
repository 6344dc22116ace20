"""A protocol plan: a config's methods resolved to estimators, its (k, run) tasks, and what each
task draws from the master seed (classes, documents, partial labels, method seeds).

A run is plan -> tasks -> records -> tables: the runner executes a plan's tasks (runner.py),
the store keeps their records (store.py), results.py reads them back and aggregate.py
summarises them; check, sweeps, readings and convergence curves build their plans here.
"""

from dataclasses import dataclass, replace

import numpy as np

from docfact.config import Config, digest, load_config
from docfact.datasets import preprocess
from docfact.errors import ConfigError
from docfact.experiment.methods import Artefacts, Method
from docfact.experiment.sampling import (
    largest_classes,
    method_seed,
    sample_classes,
    sample_labelled,
    sample_pairs,
)


def method(spec) -> Method:
    """The experiment's method of a config's MethodSpec; the numerics only for factorizations."""
    m = Method(spec.name, spec.algorithm, spec.params, spec.labels, spec.numerics)
    return m if m.factorizes or not m.numerics else replace(m, numerics={})


def method_problems(methods, where: str) -> list:
    """One line per method whose algorithm is unknown or refuses its parameters or numerics."""
    found = []
    for spec in methods:
        try:
            Method(spec.name, spec.algorithm, spec.params).validate(
                f"{where}: methods.{spec.name}")
        except ConfigError as e:
            found.append(str(e))
            continue
        m = method(spec)
        if m.numerics.get("precision") == "mixed" and not m.takes_mixed:
            found.append(f"{where}: methods.{spec.name}: numerics precision mixed is for the "
                         f"factorizations of a kernel or affinity (CF and the methods built "
                         f"on it, HHt, PSPt), not {spec.algorithm}: use float32 or float64")
    return found


def problems(methods, raw: dict, where: str) -> list:
    """The problems of a config file's methods (method_problems), else its protocol's:
    protocol.labelled is required by (and protocol.constraints allowed for) only the configs
    with semi-supervised methods, or a sweep's part (report.kind: sweep) keeping its table's.
    For config.parse_config's `check`; `raw` the config mapping."""
    protocol = raw["protocol"]
    labelled = protocol.get("labelled")
    found = method_problems(methods, where)
    if found:
        return found
    if "best_by" in protocol:
        if protocol.get("best_of", 1) < 2:
            return [f"{where}: protocol.best_by: only with best_of > 1 (sub-runs to choose from)"]
        if protocol["best_by"] == "objective":
            bad = [spec.name for spec in methods
                   if not method(spec).factorizes and spec.algorithm != "kmeans"]
            if bad:
                return [f"{where}: protocol.best_by: objective: {', '.join(bad)} report(s) no "
                        "objective (factorizations and k-means do)"]
    semi = [spec.name for spec in methods if method(spec).semi_supervised]
    if semi and labelled is None:
        return [f"{where}: protocol.labelled: the semi-supervised method(s) {', '.join(semi)} "
                "need the fraction of each class to label, e.g. labelled: 0.02"]
    if semi or raw.get("report", {}).get("kind") == "sweep":
        return []
    if labelled is not None:
        return [f"{where}: protocol.labelled: no method of this config uses labels"]
    if "constraints" in protocol:
        return [f"{where}: protocol.constraints: no method of this config uses constraints"]
    return []


def load(path) -> Config:
    """The config of the file `path`, its methods checked and resolved (ConfigError naming the
    file and line otherwise)."""
    return resolve(load_config(path, check=problems))


def resolve(config: Config) -> Config:
    """The config with its methods as the experiment's Method objects, checked (a config
    resolved already is returned as it is)."""
    if all(isinstance(m, Method) for m in config.methods):
        return config
    found = method_problems(config.methods, config.name)
    if found:
        raise ConfigError(found[0])
    return replace(config, methods=tuple(method(m) for m in config.methods))


def row_key(config: Config, m: Method) -> str:
    """Identifies what one method's records depend on: the data, seed and best_of, the method
    itself (every estimator parameter, defaults included), and the labelled fraction if it
    uses labels (and the constraints' sampling, when not "labelled"). Two tables with equal
    keys for a method have the same rows for it at every (k, run)."""
    key = {**config.inputs(), "best_of": config.best_of, "method": m.key(effective=True),
           "labelled": config.labelled if m.semi_supervised else None}
    if config.best_of > 1 and config.best_by != "ac":
        key["best_by"] = config.best_by
        if config.best_by == "objective" and m.fixed_length:
            key["objective"] = "final"
    if m.semi_supervised and config.constraints != "labelled":
        key["constraints"] = config.constraints
    return digest(key)


@dataclass(frozen=True)
class Task:
    """Run `run` of k: the k classes drawn for it, its documents X (rows of the base matrix)
    and their labels y."""

    k: int
    run: int
    X: object
    y: np.ndarray
    classes: np.ndarray


@dataclass(frozen=True)
class Plan:
    """A config (methods resolved) and the (k, run) pairs to compute, round by round by default
    (run 0 of every k, then run 1, ...): a table cut short holds the same number of runs for
    every k, so its averages over k are already comparable. Each round starts with its largest
    k, whose draws hold the most documents: the longest runs are dealt first and the last ones
    dealt are short, so no worker waits long on another at the end of a table."""

    config: Config
    pairs: tuple

    @classmethod
    def of(cls, config: Config, pairs=None) -> "Plan":
        config = resolve(config)
        if pairs is None:
            pairs = [(k, r) for r in range(config.runs) for k in sorted(config.k, reverse=True)]
        return cls(config, tuple((int(k), int(r)) for k, r in pairs))

    def corpus(self):
        """The corpus restricted to the config's view (classes), as raw counts; ConfigError
        when a k exceeds its classes."""
        from docfact.datasets import apply_view, load, resolve_view

        view = resolve_view(self.config.view)
        corpus = apply_view(load(view["dataset"]), view)
        k = max(k for k, _ in self.pairs) if self.pairs else 0
        if k > corpus.n_classes:
            raise ConfigError(f"protocol.k: k={k} exceeds the {corpus.n_classes} classes of "
                              f"view {view.get('name', view['dataset'])!r}")
        return corpus

    def base_matrix(self, corpus):
        """What runs draw their documents from: counts, or the corpus weighted once."""
        if self.config.weight_on == "corpus":
            return preprocess.weight(corpus.X, self.config.weighting)
        return corpus.X

    def task(self, X, y, k: int, r: int) -> Task:
        """Run r of k on the base matrix X (labels y): its classes (drawn, or the k largest)
        and their documents."""
        if self.config.classes == "largest":
            picked = largest_classes(y, k)
        else:
            picked = sample_classes(np.unique(y), k, self.config.seed, r)
        rows = np.flatnonzero(np.isin(y, picked))
        return Task(k, r, X[rows], y[rows], picked)

    def prepare(self, X):
        """A task's documents as the methods see them: weighted (on the subset) or, when the
        corpus was weighted once, with the terms absent from the subset dropped."""
        if self.config.weight_on == "subset":
            return preprocess.weight(X, self.config.weighting)
        return X[:, np.flatnonzero(X.getnnz(axis=0))]

    def artefacts(self, task: Task, X) -> Artefacts:
        """What the methods of the task share: its prepared documents X and, when the protocol
        labels some, the task's partial labels or (protocol.constraints: pairs) its pairwise
        constraints."""
        c = self.config
        if c.labelled is None:
            return Artefacts(X)
        if c.constraints == "pairs":
            return Artefacts(X, constraints=sample_pairs(task.y, c.labelled, c.seed, task.k,
                                                         task.run))
        return Artefacts(X, sample_labelled(task.y, c.labelled, c.seed, task.k, task.run))

    def draws(self):
        """(task, artefacts) of each pair in turn, the corpus loaded and weighted once: the
        documents and shared inputs `docfact run` gives the methods of each run."""
        corpus = self.corpus()
        X = self.base_matrix(corpus)
        for k, r in self.pairs:
            task = self.task(X, corpus.y, k, r)
            yield task, self.artefacts(task, self.prepare(task.X))

    def seed(self, task: Task, name: str) -> np.random.SeedSequence:
        """The seed of method `name` on the task."""
        return method_seed(self.config.seed, task.k, task.run, name)

    def data_hash(self):
        """For a user's data file or folder, a hash of its contents; None for registered data."""
        from docfact.datasets import resolve_view
        from docfact.datasets.user import content_hash, is_path

        dataset = resolve_view(self.config.view)["dataset"]
        return content_hash(dataset) if is_path(dataset) else None
