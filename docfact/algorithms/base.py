"""The thin estimator layer over the engine: scikit-learn conventions, validated parameters.

Data come as scikit-learn does, one sample per row: X of shape (n_samples, n_features) is the
papers' X^T (they put one document per column). `fit_transform` returns the papers' V, shape
(n_samples, n_components), the new representation of the documents.
"""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils.validation import check_non_negative, validate_data

from docfact.algorithms import engine
from docfact.algorithms._validation import integer, number

# A parameter of the estimators whose papers run every start to its end (NMF, HHt, PSPt):
# trials : bool, run every start to its stop (max_iter, or the running-mean rule) and keep the
#     one of lowest final objective, instead of selecting after min_iter + 1 iterations
#     (`engine.minimize`).
TRIALS = {"trials": ["boolean"]}


class MultiplicativeFactorization(TransformerMixin, BaseEstimator):
    """Shared parameters of every multiplicative-update factorization.

    Parameters
    ----------
    n_components : int, k, the number of factors (clusters).
    n_restarts : int, random starts run for `min_iter` + 1 iterations; the best is continued.
    min_iter : int, iterations of each start before selection.
    max_iter : int or None, total iterations; None stops on the running-mean rule with `tol`.
    tol : float, tolerance of the running-mean stopping rule (only when max_iter is None).
    random_state : int, RandomState or None.
    track_objective : bool, record the objective after every iteration (else only after the
        selection of the start, and at every iteration when max_iter is None).

    Attributes
    ----------
    n_iter_ : int, iterations run by the chosen start.
    objective_ : list of float, objective of the chosen start (see `engine.minimize`); without
        track_objective and with a fixed max_iter it holds the value taken at the selection
        (a single start: before its first iteration), and with `trials` the final value after
        it; otherwise every iteration's.
    """

    _parameter_constraints = {
        "n_components": [integer(1)],
        "n_restarts": [integer(1)],
        "min_iter": [integer(0)],
        "max_iter": [integer(1), None],
        "tol": [number()],
        "random_state": ["random_state"],
        "track_objective": ["boolean"],
    }
    semi_supervised = False  # the contract (docfact/algorithms/__init__.py)
    uses_graph = False
    uses_kernel = False

    def __init__(self, n_components, *, n_restarts=10, min_iter=30, max_iter=100, tol=1e-5,
                 random_state=None, track_objective=False):
        self.n_components = n_components
        self.n_restarts = n_restarts
        self.min_iter = min_iter
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.track_objective = track_objective

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.target_tags.required = self.semi_supervised
        return tags

    def _check_n_samples(self, n_samples: int) -> None:
        if self.n_components > n_samples:
            raise ValueError(f"n_components={self.n_components} exceeds n_samples={n_samples}")

    def _minimize(self, rule) -> engine.Fit:
        fit = engine.minimize(
            rule,
            n_restarts=self.n_restarts,
            min_iter=self.min_iter,
            max_iter=self.max_iter,
            tol=self.tol,
            random_state=self.random_state,
            track_objective=self.track_objective,
            trials=getattr(self, "trials", False),  # a parameter of some (TRIALS)
        )
        if not all(np.isfinite(f).all() for f in fit.factors):
            raise FloatingPointError("the factors contain NaN or Inf")
        self.n_iter_ = fit.n_iter
        self.objective_ = fit.objective
        return fit

    def fit(self, X, y=None, **fit_params):
        self.fit_transform(X, y, **fit_params)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None, **fit_params):
        """Factorize X (n_samples, n_features); return V (n_samples, n_components).
        fit_params: W, the graph, for the estimators that use one (see `uses_graph`)."""
        return self._fit_transform(X, y, **fit_params)


def check_data(estimator, X, reset: bool = True):
    """X as float64 CSR (sparse input) or array, finite, and nonnegative for the estimators
    whose tags say so (scikit-learn's validate_data: sets n_features_in_; no copy of float64
    CSR or C-ordered input; reset=False: X must have the fitted n_features_in_)."""
    X = validate_data(estimator, X, accept_sparse="csr", dtype=np.float64, reset=reset)
    if estimator.__sklearn_tags__().input_tags.positive_only:
        check_non_negative(X, type(estimator).__name__)
    return X

