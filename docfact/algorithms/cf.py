"""Concept factorization: CF (Xu & Gong 2004; LCCF paper Eq. 7) and LCCF (LCCF paper Eqs. 17-18).

Objective (LCCF Eq. 10-11), K = X^T X (N, N) the kernel of the N documents, W (N, K) the
association of documents to concepts (u_k = X w_k), V (N, K) the new representation:
    O = tr(K) - 2 tr(V W^T K) + tr(V W^T K W V^T) + lambda tr(V^T L V),   L = D - S,
CF being lambda = 0. Every iteration updates V, then W (LCCF.m):
    V <- V * (K W + lambda S V) / (V W^T K W + lambda D V)                  (18)
    W <- W * (K V) / (K W V^T V)                                            (17)
For a kernel with negative entries the updates of Section 3.5 (Eqs. 25, 28) are used instead,
with K = K+ - K-.
"""

import numpy as np
import scipy.sparse as sp

from docfact.algorithms._validation import check_option
from docfact.algorithms.base import MultiplicativeFactorization, check_data
from docfact.algorithms.costs import kernel_form
from docfact.algorithms.engine import EPS, dtype, fast_products, graph_term, mu_step, rescale
from docfact.algorithms.graphs import (
    check_constraints,
    check_graph,
    check_graph_params,
    check_partial_labels,
    degrees,
)
from docfact.algorithms.kernels import DenseKernel, affinity, check_kernel_params


class LCCFRule:
    """Update rule of LCCF (CF when S is None) on a kernel operator K (see kernels.py).

    gamma : optional (N,) scaling of Appendix B (weighted LCCF), G = diag(gamma) = Gamma^1/2:
        the caller passes K' = G K G, the rule turns L into L' = G^-1 L G^-1, and the factors
        are W' = G^-1 W and V' = G V of the weighted objective.
    The context's numerics (engine.numerics) set the dtype of K and S and, with products
    "auto", take a dense S (RCF's W~) times the V of all starts in one product.
    """

    def __init__(self, K, n_components: int, S=None, lam: float = 0.0, gamma=None,
                 loop_normalize: bool = True):
        self.K = K
        self.k = n_components
        self.lam = lam if S is not None else 0.0
        if self.lam > 0:
            S = S if isinstance(S, np.ndarray) else sp.csr_matrix(S)  # RCF's W~ is dense
            d = degrees(S)
            if gamma is not None:  # L' = G^-1 L G^-1: S' = G^-1 S G^-1, D' = G^-2 D
                inv = sp.diags(1.0 / gamma)
                S, d = sp.csr_matrix(inv @ S @ inv), d / gamma**2
            self.S, self.d = self.lam * S, self.lam * d
        self.trace_K = K.trace()
        self.negative = K.min() < 0
        if self.negative:  # K = K+ - K- (Section 3.5); only dense kernels can be negative
            self.K_pos = DenseKernel(np.maximum(K.dense(), 0))
            self.K_neg = DenseKernel(np.maximum(-K.dense(), 0))
        if not loop_normalize:
            self.loop_normalize = None
        self.batch_graph = self.lam > 0 and isinstance(self.S, np.ndarray) and fast_products()
        self._SV = {}  # id(V) -> lambda S V, taken for all starts at once (batch_graph)
        self.dtype = dtype()
        if self.dtype != np.float64:
            self.K = self.K.astype(self.dtype)
            if self.lam > 0:
                self.S, self.d = self.S.astype(self.dtype), self.d.astype(self.dtype)
            if self.negative:
                self.K_pos, self.K_neg = (self.K_pos.astype(self.dtype),
                                          self.K_neg.astype(self.dtype))

    def init(self, rng):
        return rng.random((self.K.n, self.k)), rng.random((self.K.n, self.k))

    def update(self, F):
        self.update_all([F])

    def update_all(self, Fs):
        """One iteration for each start (W, V) in Fs; the products with K are taken for all
        starts at once (K.dot_all), which reads a dense K once instead of once per start."""
        if self.negative:
            for W, V in Fs:
                self._update_signed(W, V)
            return
        KWs = self.K.dot_all([W for W, _ in Fs])
        if self.batch_graph and len(Fs) > 1:
            Vs = [V for _, V in Fs]
            SVs = np.hsplit(self.S @ np.hstack(Vs), len(Vs))
            self._SV = {id(V): SV for V, SV in zip(Vs, SVs, strict=True)}
        for (W, V), KW in zip(Fs, KWs, strict=True):
            mu_step(V, *self.penalize(V, KW, V @ (W.T @ KW)))  # Eq. (18)
        self._SV = {}
        KVs = self.K.dot_all([V for _, V in Fs])
        for (W, V), KW, KV in zip(Fs, KWs, KVs, strict=True):
            mu_step(W, KV, KW @ (V.T @ V))  # Eq. (17)

    def penalize(self, V, num, den) -> tuple:
        """(num, den) of the V update with the regulariser's parts added: lambda S V to the
        numerator, lambda D V to the denominator (Eq. 18); for the rules that add terms. A dense
        S (RCF's W~) is multiplied one start at a time: taken for all starts at once, as K is,
        OpenBLAS sums some sizes in another order and the committed digits would move."""
        if self.lam > 0:
            num = num + self.S @ V
            den = den + self.d[:, None] * V
        return num, den

    def penalty(self, V) -> float:
        """The regulariser's value: lambda tr(V^T L V)."""
        return graph_term(V, self.S, self.d) if self.lam > 0 else 0.0

    def _update_signed(self, W, V):
        """Eqs. (28) then (25): Theorem 2's update for K with negative entries."""
        KW, KpW, KnW = self.K.dot(W), self.K_pos.dot(W), self.K_neg.dot(W)
        Qp, Qn = V @ (W.T @ KpW), V @ (W.T @ KnW)
        if self.lam > 0:
            Qp += self.d[:, None] * V
            Qn += self.S @ V
        V *= (KW + np.sqrt(KW**2 + 4 * Qp * Qn)) / np.maximum(2 * Qp, EPS)
        VtV = V.T @ V
        KV = self.K.dot(V)
        Pp, Pn = self.K_pos.dot(W) @ VtV, self.K_neg.dot(W) @ VtV
        W *= (KV + np.sqrt(KV**2 + 4 * Pp * Pn)) / np.maximum(2 * Pp, EPS)

    def objective(self, F):
        W, V = F
        KW = self.K.dot(W)
        obj = self.trace_K - 2 * np.sum(V * KW) + np.sum((W.T @ KW) * (V.T @ V))
        return float(obj + self.penalty(V))

    def normalize(self, F):
        """Concepts to unit norm, ||u_k||^2 = w_k^T K w_k = 1, V rescaled (W V^T unchanged)."""
        W, V = F
        rescale(W, V, np.sqrt(np.maximum(np.sum(W * self.K.dot(W), axis=0), 0.0)))

    def loop_normalize(self, F):
        """Columns of V to unit L2 norm, W rescaled (LCCF.m, every iteration past minIter)."""
        W, V = F
        rescale(V, W, np.linalg.norm(V, axis=0))


class CF(MultiplicativeFactorization):
    """Concept factorization X^T ~ V W^T X^T, on a kernel K of the samples.

    kernel : "linear" (K = X X^T, kept in sparse form), "polynomial" (K = (X X^T)^degree,
        element-wise) or "precomputed" (X is K, (n, n)).
    degree : int, of the polynomial kernel.
    ncw : bool, normalized-cut weighting K <- D^-1/2 K D^-1/2, D = diag(K 1) (Xu & Gong 2004).
    loop_normalize : bool, normalise V's columns after every iteration past min_iter, as the
        reference code does (this rescaling changes the graph term of LCCF's objective, so the
        objective is monotone only with False).
    See `MultiplicativeFactorization` for the engine's parameters.

    Attributes: association_ (n, K) = W; n_iter_; objective_.
    """

    semi_supervised = False  # True: fit_transform needs partial labels y (-1 = unlabelled)

    def __init__(self, n_components, *, kernel="linear", degree=2, ncw=False,
                 loop_normalize=True, n_restarts=10, min_iter=30, max_iter=100, tol=1e-5,
                 random_state=None):
        super().__init__(n_components, n_restarts=n_restarts, min_iter=min_iter,
                         max_iter=max_iter, tol=tol, random_state=random_state)
        self.kernel = kernel
        self.degree = degree
        self.ncw = ncw
        self.loop_normalize = loop_normalize

    def _validate_params(self):
        super()._validate_params()
        check_kernel_params(self.kernel, self.degree, self.ncw)
        check_option("loop_normalize", self.loop_normalize, (False, True))

    def _affinity(self, X, S, y):
        """(S, lambda) of the graph regulariser: none for CF. y: labels, for the
        semi-supervised rules."""
        return None, 0.0

    def _rule(self, K, S, lam, gamma, y):
        """The update rule on the (weighted) kernel K; gamma the NC scaling, or None."""
        return LCCFRule(K, self.n_components, S, lam, gamma if lam > 0 else None,
                        self.loop_normalize)

    def fit_transform(self, X, y=None, S=None, track_objective=False, constraints=None):
        """Factorize X (n_samples, n_features), or K (n, n) with kernel="precomputed";
        return V (n_samples, n_components).

        S : optional precomputed graph affinity (n, n) for LCCF (built from X otherwise).
        constraints : for the semi-supervised methods, pairwise constraints Z (n, n) in place
            of the partial labels y (semisup.py).
        """
        X = check_data(X, nonnegative=False)  # kernels with negative entries: Section 3.5
        self._check_n_samples(X.shape[0])
        if self.semi_supervised and constraints is not None:
            if y is not None:
                raise ValueError("pass the partial labels y or the constraints, not both")
            y = check_constraints(constraints, X.shape[0])
        elif self.semi_supervised:
            y = check_partial_labels(y, X.shape[0])
        S, lam = self._affinity(X, S, y)
        K, gamma = affinity(X, self.kernel, self.degree, self.ncw)
        if fast_products() and self.kernel == "linear" and kernel_form(
                K.X, self.n_components, self.n_restarts, self.min_iter, self.max_iter,
                np.dtype(dtype()).itemsize) == "dense":
            K = DenseKernel(K.dense())
        W, V = self._minimize(self._rule(K, S, lam, gamma, y), track_objective).factors
        self.association_ = W
        return V


class LCCF(CF):
    """Locally consistent concept factorization (LCCF paper Eq. 10).

    lam : float >= 0, lambda, weight of the graph regulariser (the paper uses 100).
    p : int, neighbours of the graph (5 in the paper).
    weight : "cosine" (Eq. 8, the paper) or "binary".
    With ncw=True this is LCCF-NCW, Appendix B's weighted LCCF with gamma_j = 1 / d_j.
    The graph is built from X's rows (for kernel="precomputed", pass S to fit_transform).
    """

    def __init__(self, n_components, *, lam=100.0, p=5, weight="cosine", kernel="linear",
                 degree=2, ncw=False, loop_normalize=True, n_restarts=10, min_iter=30,
                 max_iter=100, tol=1e-5, random_state=None):
        super().__init__(n_components, kernel=kernel, degree=degree, ncw=ncw,
                         loop_normalize=loop_normalize, n_restarts=n_restarts,
                         min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state)
        self.lam = lam
        self.p = p
        self.weight = weight

    def _validate_params(self):
        super()._validate_params()
        check_graph_params(self.lam, self.p, self.weight)

    def _affinity(self, X, S, y):
        if S is None and self.kernel == "precomputed":
            raise ValueError("with kernel='precomputed', pass the graph S to fit_transform")
        return check_graph(X, S, self.p, self.weight), self.lam
