"""NMF (Lee & Seung; GNMF report Eqs. 2-3) and GNMF (GNMF report Eqs. 15-16).

Objective (GNMF report Eq. 8), X (n, m) one document per row (the report's X^T), U (m, k),
V (n, k), W (n, n) the p-NN graph:
    O = ||X - V U^T||_F^2 + lambda tr(V^T L V),   L = D - W,
NMF being lambda = 0. Every iteration updates V, then U (GNMF.m):
    V <- V * (X U + lambda W V) / (V U^T U + lambda D V)            (16)
    U <- U * (X^T V) / (U V^T V)                                     (15)
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from docfact.algorithms import engine
from docfact.algorithms.base import TRIALS, MultiplicativeFactorization, check_data
from docfact.algorithms.graphs import (
    GRAPH_CONSTRAINTS,
    NegativeWeights,
    check_graph,
    degrees,
    signed_parts,
)
from docfact.algorithms.kernels import LastProduct, affinity, sparse_products


class Samples:
    """Products with X (n, m) or X^T: X Y, and X [Y_1 ... Y_R] in one product when `batch`
    (engine.dot_all), else one Y at a time."""

    def __init__(self, X, batch: bool):
        self.X, self.batch = X, batch

    def dot(self, Y: np.ndarray) -> np.ndarray:
        return np.asarray(self.X @ Y)

    def dot_all(self, Ys: list) -> list:
        return engine.dot_all(self.X, Ys) if self.batch else [self.dot(Y) for Y in Ys]


class GNMFRule:
    """Update rule of GNMF (NMF when W is None). X: (n, m), the samples as rows.
    The starts' products with sparse X and W are taken in one product each (engine.dot_all,
    the digits of one at a time); dense X is batched only with products "auto". The operators
    are in the context's dtype (engine.numerics)."""

    loop_normalize = None

    def __init__(self, X, n_components: int, W=None, lam: float = 0.0):
        self.dtype = engine.dtype()
        self.sq_norm_X = engine.sq_norm(X)
        X = X.astype(self.dtype) if X.dtype != self.dtype else X
        self.X = X  # (n, m)
        self.Xt = sp.csr_matrix(X.T) if sp.issparse(X) else np.ascontiguousarray(X.T)
        self.k = n_components
        self.batch = sp.issparse(X) or engine.fast_products()
        X, Xt = sparse_products(self.X, self.Xt)
        self.XU = Samples(X, self.batch)
        self.XtV = LastProduct(Samples(Xt, self.batch))  # X^T V, kept for the objective
        self.lam = lam if W is not None else 0.0
        self.neg = None  # NegativeWeights of a graph with negative weights
        if self.lam > 0:  # lambda W, as GNMF.m scales W before D; W = W+ - W- if signed
            W, W_neg = signed_parts(self.lam * sp.csr_matrix(W))
            self.W, self.d = W.astype(self.dtype), degrees(W).astype(self.dtype, copy=False)
            if W_neg is not None:
                self.neg = NegativeWeights(W_neg, degrees(W_neg)).astype(self.dtype)

    def init(self, rng):
        n, m = self.X.shape
        return rng.random((m, self.k)), rng.random((n, self.k))

    def update(self, F):
        self.update_all([F])

    def update_all(self, Fs):
        """One iteration of each start (U, V) in Fs: every V (Eq. 16), then every U (Eq. 15)."""
        Us, Vs = [U for U, _ in Fs], [V for _, V in Fs]
        XUs = self.XU.dot_all(Us)
        WVs = engine.dot_all(self.W, Vs) if self.lam > 0 else Vs
        for U, V, XU, WV in zip(Us, Vs, XUs, WVs, strict=True):
            VUtU = V @ (U.T @ U)
            if self.lam > 0:
                XU += WV
                VUtU += self.d[:, None] * V
            if self.neg is not None:  # L = (D+ + W-) - (W+ + D-)
                self.neg.split(V, XU, VUtU)
            engine.mu_step(V, XU, VUtU)  # Eq. (16)
        for U, V, XtV in zip(Us, Vs, self.XtV.dot_all(Vs), strict=True):
            engine.mu_step(U, XtV, U @ (V.T @ V))  # Eq. (15)

    def objective(self, F):
        U, V = F
        obj = self.sq_norm_X - 2 * np.sum(U * self.XtV.dot(V)) + np.sum((U.T @ U) * (V.T @ V))
        if self.lam > 0:
            obj += engine.graph_term(V, self.W, self.d)
        if self.neg is not None:
            obj -= self.neg.value(V)
        return float(obj)

    def normalize(self, F):
        """Columns of U to unit L2 norm, V rescaled so that U V^T is unchanged (NormalizeUV)."""
        U, V = F
        engine.rescale(U, V, np.linalg.norm(U, axis=0))


class ProjectionRule:
    """V for a fixed basis U (m, k): min ||X - U V^T||^2 over V >= 0, Eq. (16) with lambda = 0
    and U left as it is. X: (n, m), the samples as rows. A start is (V,)."""

    loop_normalize = None

    def __init__(self, X, U: np.ndarray):
        self.X, self.U, self.UtU = X, U, U.T @ U
        self.sq_norm_X = engine.sq_norm(X)

    def init(self, rng):
        return (rng.random((self.X.shape[0], self.U.shape[1])),)

    def update(self, F):
        (V,) = F
        engine.mu_step(V, np.asarray(self.X @ self.U), V @ self.UtU)

    def objective(self, F):
        (V,) = F
        return float(self.sq_norm_X - 2 * np.sum(V * (self.X @ self.U))
                     + np.sum(self.UtU * (V.T @ V)))

    def normalize(self, F):
        """Nothing: U fixes the scale of V."""


class NMF(MultiplicativeFactorization):
    """Nonnegative matrix factorization X ~ V U^T by multiplicative updates.

    ncw : bool, factorize the normalized-cut weighted data D^-1/2 X instead (Xu et al. 2003;
        the "NMF" rows of the GNMF report and "NMF-NCW" of LCCF), d = X X^T 1 per sample.
    trials : bool, run every start to its stop (max_iter, or the running-mean rule) and keep
        the one of lowest final objective, instead of choosing after min_iter + 1 iterations
        (`engine.minimize`).
    See `MultiplicativeFactorization` for the other parameters.

    Attributes: components_ (k, n_features) = U^T; n_iter_; objective_.
    """

    _parameter_constraints = {**MultiplicativeFactorization._parameter_constraints,
                              "ncw": ["boolean"], **TRIALS}

    def __init__(self, n_components, *, ncw=False, n_restarts=10, min_iter=30, max_iter=100,
                 tol=1e-5, random_state=None, track_objective=False, trials=False):
        super().__init__(n_components, n_restarts=n_restarts, min_iter=min_iter,
                         max_iter=max_iter, tol=tol, random_state=random_state,
                         track_objective=track_objective)
        self.ncw = ncw
        self.trials = trials

    def _affinity(self, X, W):
        """(W, lambda) of the graph regulariser: none for NMF."""
        return None, 0.0

    def _fit_transform(self, X, y=None, W=None):
        X = check_data(self, X)
        self._check_n_samples(X.shape[0])
        W, lam = self._affinity(X, W)  # on the unweighted data, also for the NCW variant
        if self.ncw:  # X <- D^-1/2 X, d = X X^T 1 (Xu et al. 2003)
            X = affinity(X, ncw=True)[0].X
        rule = GNMFRule(X, self.n_components, W, lam)
        U, V = self._minimize(rule).factors
        self.components_ = U.T
        return V

    def transform(self, X):
        """V (n_samples, n_components) of samples X on the fitted basis U (`ProjectionRule`,
        NC-weighted as in the fit): one start, the engine's iterations and stopping rule."""
        check_is_fitted(self)
        X = check_data(self, X, reset=False)
        if self.ncw:
            X = affinity(X, ncw=True)[0].X
        fit = engine.minimize(ProjectionRule(X, self.components_.T), n_restarts=1,
                              min_iter=self.min_iter, max_iter=self.max_iter, tol=self.tol,
                              random_state=self.random_state)
        return fit.factors[0]


class GNMF(NMF):
    """Graph regularized NMF (GNMF report Eq. 8), on a p-nearest-neighbour graph.

    lam : float >= 0, lambda, the weight of the graph regulariser (the report uses 10).
    p : int, neighbours of the graph (5 in the report).
    weight : "binary" (Eq. 6, the report) or "cosine".
    `fit_transform(X, W=...)` accepts a precomputed graph W (n_samples, n_samples), so that one
    graph serves several methods of a run; otherwise it is built from X.
    """

    _parameter_constraints = {**MultiplicativeFactorization._parameter_constraints,
                              "ncw": ["boolean"], **GRAPH_CONSTRAINTS}
    uses_graph = True

    def __init__(self, n_components, *, lam=10.0, p=5, weight="binary", ncw=False, n_restarts=10,
                 min_iter=30, max_iter=100, tol=1e-5, random_state=None, track_objective=False):
        super().__init__(n_components, ncw=ncw, n_restarts=n_restarts, min_iter=min_iter,
                         max_iter=max_iter, tol=tol, random_state=random_state,
                         track_objective=track_objective)
        self.lam = lam
        self.p = p
        self.weight = weight

    def _affinity(self, X, W):
        return check_graph(X, W, self.p, self.weight), self.lam
