"""The runner's only door to the algorithms: a registry of names -> estimator + how labels are read.

A new method is one estimator module and one line in ALGORITHMS.
"""

import inspect
import re
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from docfact import algorithms as alg
from docfact.algorithms.engine import EPS, Numerics, numerics
from docfact.errors import ConfigError


@dataclass(frozen=True)
class Algorithm:
    """An estimator class; `clusters` if it predicts labels itself, else it returns V.

    graph: the name of the fit parameter that takes the run's shared p-NN graph, if any.
    Estimators with a `kernel` parameter other than "linear" get the run's shared kernel matrix
    (kernel="precomputed").
    """

    estimator: type
    clusters: bool = False
    graph: str | None = None

    @property
    def semi_supervised(self) -> bool:
        """Fitted with the run's partial labels y (-1 for the unlabelled samples): the
        estimator class says so (CF's family, semisup.py)."""
        return getattr(self.estimator, "semi_supervised", False)


ALGORITHMS = {
    "kmeans": Algorithm(alg.KMeans, clusters=True),
    "spectral": Algorithm(alg.SpectralClustering, clusters=True),
    "lsi_kmeans": Algorithm(alg.LSIKMeans, clusters=True),
    "nmf": Algorithm(alg.NMF),
    "gnmf": Algorithm(alg.GNMF, graph="W"),
    "cf": Algorithm(alg.CF),
    "lccf": Algorithm(alg.LCCF, graph="S"),
    "lcf": Algorithm(alg.LCF),
    "sparse_nmf": Algorithm(alg.SparseNMF),
    "hht": Algorithm(alg.SymmetricNMF),
    "pspt": Algorithm(alg.PSPt),
    "ccf": Algorithm(alg.CCF),
    "semi_lccf": Algorithm(alg.SemiLCCF, graph="S"),
    "cnpcf": Algorithm(alg.CNPCF, graph="S"),
    "gdcf": Algorithm(alg.GDCF, graph="S"),
    "rcf": Algorithm(alg.RCF, graph="S"),
}


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


DENSE_ABOVE = 0.5  # fill above which the data go to the methods dense (images, not text)


class Artefacts:
    """What one run builds once and hands to every method: the weighted data, its graphs and
    its kernel matrices, and what the semi-supervised methods are given: the partial labels y
    (-1 for the unlabelled samples) or the pairwise constraints Z (sparse (n, n), +1 must-link,
    -1 cannot-link), as the protocol samples them (None when it labels none). Data with few
    zeros (face images) are handed over as a dense array: BLAS products are several times
    faster on them than sparse ones."""

    def __init__(self, X: sp.csr_matrix, y_partial=None, constraints=None):
        self.X = X.toarray() if X.nnz > DENSE_ABOVE * X.shape[0] * X.shape[1] else X
        self.y_partial = y_partial
        self.constraints = constraints
        self._cache = {}

    def _get(self, key, build):
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def graph(self, p: int, weight: str) -> sp.csr_matrix:
        return self._get(("graph", p, weight), lambda: alg.knn_graph(self.X, p, weight))

    def kernel(self, name: str, degree: int) -> np.ndarray:
        if name != "polynomial":
            raise ValueError(f"no shared kernel {name!r}")
        return self._get(("kernel", name, degree), lambda: alg.polynomial_kernel(self.X, degree))


@dataclass(frozen=True)
class Method:
    """A row of a paper's table: display name, algorithm, its parameters (by the estimator's
    keywords: `lam` for the papers' lambda) and its label reader.

    labels: {"rule": "kmeans", "replicates": R} (k-means on the rows of V, as the reference code;
    with "normalize_rows": true on the rows scaled to unit length, which removes the per-document
    scale that NC weighting leaves in V; with "metric": "cosine" k-means with the cosine
    distance, as the RCF paper) or {"rule": "argmax"} (cluster of document i =
    argmax_j V_ij); ignored by clustering methods.
    numerics: how a factorization computes (engine.Numerics: precision, products), only the
    settings that differ from the defaults, which keep the committed digits.
    """

    name: str
    algorithm: str
    params: dict = field(default_factory=dict)
    labels: dict = field(default_factory=lambda: {"rule": "kmeans", "replicates": 20})
    numerics: dict = field(default_factory=dict)

    def key(self, effective: bool = False) -> list:
        """What the method's records depend on (for the hashes of config.py); the numerics
        only when set, so that the committed tables keep their hashes. effective: with every
        estimator parameter, defaults included, integral numbers as integers (p: 5 written or
        left to the default, lam 100 or 100.0: the same records)."""
        params = self.params
        if effective:
            params = {name: int(v) if isinstance(v, float) and v.is_integer() else v
                      for name, v in self.estimator(2).get_params().items()
                      if name not in ("n_clusters", "n_components", "random_state")}
        key = [self.name, self.algorithm, params, self.labels]
        return key + [self.numerics] if self.numerics else key

    def with_numerics(self, numerics: dict) -> "Method":
        """This method computing with `numerics` (validated; defaults dropped)."""
        defaults = vars(Numerics())
        Numerics(**numerics)
        return replace(self, numerics={k: v for k, v in numerics.items() if defaults[k] != v})

    def estimator(self, k: int, random_state=None):
        """A fresh estimator for k clusters; ValueError/TypeError on invalid parameters."""
        a = ALGORITHMS[self.algorithm]
        key = "n_clusters" if a.clusters else "n_components"
        return a.estimator(**{key: k, "random_state": random_state, **self.params})

    def validate(self, where: str) -> None:
        """Raise ConfigError (naming `where`) unless the algorithm and parameters are valid."""
        if not isinstance(self.algorithm, str) or self.algorithm not in ALGORITHMS:
            raise ConfigError(f"{where}: unknown algorithm {self.algorithm!r}; "
                              f"known: {', '.join(sorted(ALGORITHMS))}")
        for reserved in ("n_clusters", "n_components", "random_state"):
            if reserved in self.params:
                raise ConfigError(f"{where}: {reserved!r} is set by the protocol, not the config")
        try:
            self.estimator(2)._validate_params()
        except TypeError:
            accepted = inspect.signature(ALGORITHMS[self.algorithm].estimator).parameters
            known = sorted(set(accepted) - {"n_clusters", "n_components", "random_state"})
            unknown = sorted(map(paper_name, set(self.params) - set(known)))
            raise ConfigError(f"{where}: unknown parameter(s) {', '.join(unknown)}; accepted: "
                              f"{', '.join(sorted(map(paper_name, known)))}") from None
        except ValueError as e:
            raise ConfigError(f"{where}: {paper_words(str(e))}") from None

    @property
    def semi_supervised(self) -> bool:
        """True for the methods fitted with the run's partial labels."""
        return ALGORITHMS[self.algorithm].semi_supervised

    @property
    def factorizes(self) -> bool:
        """True for the methods that return a representation V (and have an objective)."""
        return not ALGORITHMS[self.algorithm].clusters

    def fit(self, artefacts: Artefacts, k: int, random_state: int, track_objective=False,
            **overrides):
        """Fit the estimator on the run's data (with the shared graph and kernel).

        Returns (estimator, V) for factorizations, (estimator, labels) for clustering methods.
        `overrides` replace estimator parameters (e.g. max_iter for a convergence curve).
        """
        a = ALGORITHMS[self.algorithm]
        est = self.estimator(k, random_state=random_state).set_params(**overrides)
        X = artefacts.X
        if getattr(est, "kernel", "linear") not in ("linear", "precomputed"):
            X = artefacts.kernel(est.kernel, est.degree)
            est.set_params(kernel="precomputed")
        if a.clusters:
            return est, est.fit(X).labels_
        fit_params = {a.graph: artefacts.graph(est.p, est.weight)} if a.graph else {}
        if a.semi_supervised and artefacts.constraints is not None:
            fit_params["constraints"] = artefacts.constraints
        elif a.semi_supervised:
            fit_params["y"] = artefacts.y_partial
        with numerics(**self.numerics):
            return est, est.fit_transform(X, track_objective=track_objective, **fit_params)

    def cluster(self, artefacts: Artefacts, k: int, seed: np.random.SeedSequence) -> dict:
        """Cluster the run's documents into k groups: labels and what the fit reports."""
        fit_seed, label_seed = (int(s.generate_state(1)[0]) for s in seed.spawn(2))
        est, out = self.fit(artefacts, k, fit_seed)
        if not self.factorizes:
            return {"labels": out}
        V = out
        if self.labels["rule"] == "argmax":
            labels = V.argmax(axis=1)
        else:
            if self.labels.get("normalize_rows"):
                V = V / np.maximum(np.linalg.norm(V, axis=1, keepdims=True), EPS)
            labels = alg.KMeans(k, n_replicates=self.labels.get("replicates", 20),
                                metric=self.labels.get("metric", "euclidean"),
                                random_state=label_seed).fit(V).labels_
        return {"labels": labels, "n_iter": est.n_iter_, "objective": est.objective_[-1]}
