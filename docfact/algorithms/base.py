"""The thin estimator layer over the engine: scikit-learn conventions, validated parameters.

Data come as scikit-learn does, one sample per row: X of shape (n_samples, n_features) is the
papers' X^T (they put one document per column). `fit_transform` returns the papers' V, shape
(n_samples, n_components), the new representation of the documents.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin

from docfact.algorithms import engine
from docfact.algorithms._validation import check_float, check_int


class MultiplicativeFactorization(TransformerMixin, BaseEstimator):
    """Shared parameters of every multiplicative-update factorization.

    Parameters
    ----------
    n_components : int, K, the number of factors (clusters).
    n_restarts : int, random starts run for `min_iter` + 1 iterations; the best is continued.
    min_iter : int, iterations of each start before selection.
    max_iter : int or None, total iterations; None stops on the running-mean rule with `tol`.
    tol : float, tolerance of the running-mean stopping rule (only when max_iter is None).
    random_state : int, RandomState or None.

    Attributes
    ----------
    n_iter_ : int, iterations run by the chosen start.
    objective_ : list of float, objective of the chosen start (see `engine.minimize`).
    """

    def __init__(self, n_components, *, n_restarts=10, min_iter=30, max_iter=100, tol=1e-5,
                 random_state=None):
        self.n_components = n_components
        self.n_restarts = n_restarts
        self.min_iter = min_iter
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _validate_params(self) -> None:
        """Raise ValueError naming the first invalid parameter."""
        check_int("n_components", self.n_components, 1)
        check_int("n_restarts", self.n_restarts, 1)
        check_int("min_iter", self.min_iter, 0)
        check_int("max_iter", self.max_iter, 1, allow_none=True)
        check_float("tol", self.tol)

    def _check_n_samples(self, n_samples: int) -> None:
        self._validate_params()
        if self.n_components > n_samples:
            raise ValueError(f"n_components={self.n_components} exceeds n_samples={n_samples}")

    def _minimize(self, rule, track_objective: bool = False) -> engine.Fit:
        fit = engine.minimize(
            rule,
            n_restarts=self.n_restarts,
            min_iter=self.min_iter,
            max_iter=self.max_iter,
            tol=self.tol,
            random_state=self.random_state,
            track_objective=track_objective,
        )
        if not all(np.isfinite(f).all() for f in fit.factors):
            raise FloatingPointError("the factors contain NaN or Inf")
        self.n_iter_ = fit.n_iter
        self.objective_ = fit.objective
        return fit

    def fit(self, X, y=None, **fit_params):
        self.fit_transform(X, y, **fit_params)
        return self


def check_data(X, nonnegative: bool = True):
    """X as float64 CSR (sparse input) or array; finite and, if asked, nonnegative."""
    X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    data = X.data if sp.issparse(X) else X
    if not np.isfinite(data).all():
        raise ValueError("X contains NaN or Inf")
    if nonnegative and (data < 0).any():
        raise ValueError("X has negative entries; this factorization needs X >= 0")
    return X

