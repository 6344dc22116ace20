"""The runner's only door to the algorithms: a config's method fitted on a run's artefacts, and
its labels read out. Which estimator a name means is docfact/algorithms/registry.py's; what a
run hands over (graph, kernel, partial labels) the estimator's contract says."""

import inspect
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from docfact import algorithms as alg
from docfact.algorithms.engine import EPS, Numerics, numerics
from docfact.algorithms.registry import UnknownAlgorithm, clusters, estimator_class
from docfact.config import MethodSpec, paper_name, paper_words
from docfact.errors import ConfigError, DocfactError

RESERVED = ("n_clusters", "n_components", "random_state")  # set by the protocol
# what a method may raise on a run it cannot cluster (p above the documents, a singular
# system): recorded as that run's failure, the table going on
RUN_FAILURES = (ValueError, ArithmeticError, np.linalg.LinAlgError)

DENSE_ABOVE = 0.5  # fill above which the data go to the methods dense (images, not text)


class Artefacts:
    """What one run builds once and hands to every method: the weighted data, its graphs and
    its kernel matrices, and what the semi-supervised methods are given: the partial labels y
    (-1 for the unlabelled samples) or the pairwise constraints Z (sparse (n, n), +1 must-link,
    -1 cannot-link), as the protocol samples them (None when it labels none). Data with few
    zeros (face images) are handed over as a dense array: BLAS products are several times
    faster on them than sparse ones."""

    def __init__(self, X: sp.csr_matrix, y_partial=None, constraints=None):
        # read-only, as all it shares: every method of the run sees the same X. scipy
        # canonicalises a csr matrix in place (abs(X), sum_duplicates): the sorted indices would
        # sum the next methods' products in another order, and their records would depend on
        # the methods before (one of docfact's that tries stops the table: Method.cluster)
        self.X = read_only(X.toarray() if X.nnz > DENSE_ABOVE * X.shape[0] * X.shape[1] else X)
        self.y_partial = read_only(y_partial)
        self.constraints = read_only(constraints)
        self._cache = {}

    def _get(self, key, build):
        if key not in self._cache:
            self._cache[key] = read_only(build())
        return self._cache[key]

    def graph(self, p: int, weight: str) -> sp.csr_matrix:
        return self._get(("graph", p, weight), lambda: alg.knn_graph(self.X, p, weight))

    def kernel(self, name: str, degree: int) -> np.ndarray:
        if name != "polynomial":
            raise ValueError(f"no shared kernel {name!r}")
        return self._get(("kernel", name, degree), lambda: alg.polynomial_kernel(self.X, degree))


def read_only(A):
    """A (an array, a sparse matrix or None) with its arrays made read-only."""
    for a in (A.data, A.indices, A.indptr) if sp.issparse(A) else (() if A is None else (A,)):
        a.flags.writeable = False
    return A


def split_seed(seed: np.random.SeedSequence) -> tuple:
    """(fit seed, label seed): the integers a method's seed on a run gives its fit and its
    label reader (Method.cluster)."""
    return tuple(int(s.generate_state(1)[0]) for s in seed.spawn(2))


@dataclass(frozen=True)
class Method(MethodSpec):
    """A row of a paper's table (config.MethodSpec: display name, algorithm, its parameters by
    the estimator's keywords, its label reader and numerics) with its estimator.

    labels: {"rule": "kmeans", "replicates": R} (k-means on the rows of V, as the reference code;
    with "normalize_rows": true on the rows scaled to unit length, which removes the per-document
    scale that NC weighting leaves in V; with "metric": "cosine" k-means with the cosine
    distance, as the RCF paper) or {"rule": "argmax"} (cluster of document i =
    argmax_j V_ij); ignored by clustering methods.
    numerics: how a factorization computes (engine.Numerics: precision, products), only the
    settings that differ from the defaults, which keep the committed digits.
    """

    def key(self, effective: bool = False) -> list:
        """What the method's records depend on (for the hashes of config.py); the numerics
        only when set, so that the committed tables keep their hashes. effective: with every
        estimator parameter, defaults included, integral numbers as integers (p: 5 written or
        left to the default, lam 100 or 100.0: the same records)."""
        if not effective:
            return super().key()
        return super().key({name: int(v) if isinstance(v, float) and v.is_integer() else v
                            for name, v in self.estimator(2).get_params().items()
                            if name not in RESERVED})

    def with_numerics(self, numerics: dict) -> "Method":
        """This method computing with `numerics` (validated; defaults dropped)."""
        defaults = vars(Numerics())
        Numerics(**numerics)
        return replace(self, numerics={k: v for k, v in numerics.items() if defaults[k] != v})

    @property
    def _class(self) -> type:
        try:
            return estimator_class(self.algorithm)
        except UnknownAlgorithm as e:  # e.g. a worker that cannot import a user's module
            raise ConfigError(f"methods.{self.name}: {e}") from None

    def estimator(self, k: int, random_state=None):
        """A fresh estimator for k clusters; TypeError on an unknown parameter."""
        rank = "n_clusters" if clusters(self._class) else "n_components"
        return self._class(**{rank: k, "random_state": random_state, **self.params})

    def validate(self, where: str) -> None:
        """Raise ConfigError (naming `where`) unless the algorithm and parameters are valid."""
        try:
            cls = estimator_class(self.algorithm)
        except UnknownAlgorithm as e:
            raise ConfigError(f"{where}: {e}") from None
        for reserved in RESERVED:
            if reserved in self.params:
                raise ConfigError(f"{where}: {reserved!r} is set by the protocol, not the config")
        try:
            est = self.estimator(2)
        except Exception as e:  # the signature refuses the call, or an estimator of one's
            # own refuses its parameters its own way (a TypeError raised in __init__ too)
            problem = self._signature_problem(cls) if isinstance(e, TypeError) else None
            raise ConfigError(f"{where}: " + (problem or f"{cls.__name__}("
                              f"{', '.join(self.params)}) raised {type(e).__name__}: {e}")
                              ) from None
        try:  # declared constraints checked now, not in the first fit (an own class may have none)
            if hasattr(est, "_parameter_constraints"):
                est._validate_params()
        except ValueError as e:
            raise ConfigError(f"{where}: {paper_words(str(e))}") from None

    def _signature_problem(self, cls: type) -> str | None:
        """Why cls(**params) with the protocol's keywords is refused: keywords the protocol
        sets that it does not take, parameters it does not know, or ones it needs unset; None
        when the signature takes the call (a TypeError raised inside __init__)."""
        accepted = inspect.signature(cls).parameters
        if not any(p.kind == p.VAR_KEYWORD for p in accepted.values()):
            rank = "n_clusters" if clusters(cls) else "n_components"
            missing = [name for name in (rank, "random_state") if name not in accepted]
            if missing:
                return (f"{cls.__name__} takes no {' or '.join(missing)}, which the protocol "
                        "sets (docfact/algorithms/__init__.py)")
            known = sorted(set(accepted) - set(RESERVED))
            unknown = sorted(map(paper_name, set(self.params) - set(known)))
            if unknown:
                return (f"unknown parameter(s) {', '.join(unknown)}; accepted: "
                        f"{', '.join(sorted(map(paper_name, known)))}")
        needed = [name for name, p in accepted.items() if p.default is p.empty
                  and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                  and name not in (*RESERVED, *self.params)]
        if needed:
            return f"{cls.__name__} needs parameter(s) {', '.join(map(paper_name, needed))}"
        return None  # the call fits the signature: the TypeError is the estimator's own

    @property
    def takes_mixed(self) -> bool:
        """True for the factorizations of a kernel or affinity (CF and the methods built on
        it, HHt, PSPt), which alone take numerics precision "mixed" (engine.Numerics)."""
        return issubclass(self._class, (alg.CF, alg.SymmetricNMF, alg.PSPt))

    @property
    def semi_supervised(self) -> bool:
        """True for the methods fitted with the run's partial labels."""
        return getattr(self._class, "semi_supervised", False)

    @property
    def factorizes(self) -> bool:
        """True for the methods that return a representation V (and have an objective)."""
        return not clusters(self._class)

    def fit(self, artefacts: Artefacts, k: int, random_state: int, **overrides):
        """Fit the estimator on the run's data, with the graph, kernel and partial labels its
        contract asks for (docfact/algorithms/__init__.py).

        Returns (estimator, V) for factorizations, (estimator, labels) for clustering methods.
        `overrides` replace estimator parameters (e.g. max_iter, track_objective for a
        convergence curve).
        """
        est = self.estimator(k, random_state=random_state).set_params(**overrides)
        # an estimator of one's own gets copies of its own to change (the run's are read-only)
        given = (lambda A: A.copy()) if self.own_code else (lambda A: A)
        X = given(artefacts.X)
        if getattr(est, "uses_kernel", False) and est.kernel not in ("linear", "precomputed"):
            X = given(artefacts.kernel(est.kernel, est.degree))
            est.set_params(kernel="precomputed")
        if not self.factorizes:
            return est, est.fit(X).labels_
        fit_params = {}
        if getattr(est, "uses_graph", False):
            fit_params["W"] = given(artefacts.graph(est.p, est.weight))
        if self.semi_supervised and artefacts.constraints is not None:
            fit_params["constraints"] = given(artefacts.constraints)
        elif self.semi_supervised:
            fit_params["y"] = given(artefacts.y_partial)
        with numerics(**self.numerics):
            return est, est.fit_transform(X, **fit_params)

    def cluster(self, artefacts: Artefacts, k: int, seed: np.random.SeedSequence,
                **overrides) -> dict:
        """Cluster the run's documents into k groups: labels and what the fit reports;
        `overrides` as in `fit`."""
        fit_seed, label_seed = split_seed(seed)
        try:
            est, out = self.fit(artefacts, k, fit_seed, **overrides)
        except ValueError as e:  # numpy's words for a write into a read-only array
            if "read-only" in str(e) and not self.own_code:
                raise DocfactError(f"methods.{self.name} ({self.algorithm}) at k = {k} wrote "
                                   "into the run's documents X, which every method of the run "
                                   f"shares (a defect of docfact's: {e})") from None
            raise
        except RUN_FAILURES:
            raise
        except (Exception, SystemExit) as e:  # a defect of a user's estimator: one line, the
            if not self.own_code:               # table stopped
                raise
            raise DocfactError(f"methods.{self.name} ({self.algorithm}) at k = {k}: "
                               f"{type(e).__name__}: {e}") from None
        if self.own_code:
            out = out.toarray() if sp.issparse(out) else np.asarray(out)
            self._check_output(out, artefacts.X.shape[0], k)
        if not self.factorizes:  # k-means' objective picks among sub-runs, never recorded
            return {"labels": out, "inertia": getattr(est, "inertia_", None)}
        # objective_: the history docfact's estimators keep, or a user's estimator's last value
        # (or none: the contract asks for both, a record does without them)
        objective = getattr(est, "objective_", None)
        return {"labels": self.read_out(np.asarray(out), k, label_seed),
                "n_iter": getattr(est, "n_iter_", None),
                "objective": None if objective is None else float(np.ravel(objective)[-1])}

    def _check_output(self, out: np.ndarray, n: int, k: int) -> None:
        """DocfactError, one line, when a user's estimator returns what the contract does not
        say: V (n, components) of numbers from fit_transform, labels_ (n,) from fit. V with
        NaN or infinite entries (a fit that diverged on this draw) is a ValueError: the run
        is recorded as failed, with the reason, as one of docfact's that cannot fit."""
        where = f"methods.{self.name} ({self.algorithm}) at k = {k}"
        if not self.factorizes:
            if out.shape != (n,):
                raise DocfactError(f"{where}: labels_ of shape {out.shape}, expected ({n},): "
                                   "one label per document")
            return
        if out.ndim != 2 or out.shape[0] != n or out.shape[1] < 1:
            raise DocfactError(f"{where}: fit_transform returned shape {out.shape}, expected V "
                               f"({n}, components): one row per document")
        if not np.issubdtype(out.dtype, np.number):
            raise DocfactError(f"{where}: fit_transform returned V of {out.dtype}, not numbers")
        if not np.isfinite(out).all():
            raise ValueError("fit_transform returned V with NaN or infinite entries")

    def read_out(self, V: np.ndarray, k: int, label_seed: int) -> np.ndarray:
        """The clusters (n,) of a factorization's V (n, k) by the method's label reader: argmax
        of each row, or k-means on the rows (on unit rows with normalize_rows)."""
        if self.labels["rule"] == "argmax":
            return V.argmax(axis=1)
        if self.labels.get("normalize_rows"):
            V = V / np.maximum(np.linalg.norm(V, axis=1, keepdims=True), EPS)
        return alg.KMeans(k, n_replicates=self.labels.get("replicates", 20),
                          metric=self.labels.get("metric", "euclidean"),
                          random_state=label_seed).fit(V).labels_
