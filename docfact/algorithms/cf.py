"""Concept factorization: CF (Xu & Gong 2004; LCCF paper Eq. 7) and LCCF (LCCF paper Eqs. 17-18).

Objective (LCCF Eq. 10-11), K = X X^T (N, N) the kernel of the N documents (X (N, m) a document
per row; the papers' X^T X), U (N, k) the association of documents to concepts (the concepts
X^T u_k; the papers' W, the reference code's U),
V (N, k) the new representation, W (N, N) the p-NN graph (the papers' and code's W):
    O = tr(K) - 2 tr(V U^T K) + tr(V U^T K U V^T) + lambda tr(V^T L V),   L = D - W,
CF being lambda = 0. Every iteration updates V, then U (LCCF.m):
    V <- V * (K U + lambda W V) / (V U^T K U + lambda D V)                  (18)
    U <- U * (K V) / (K U V^T V)                                            (17)
For a kernel with negative entries the updates of Section 3.5 (Eqs. 25, 28) are used instead,
with K = K+ - K-; a graph with negative weights (cosine weights of signed data) is split alike,
W = W+ - W- (graphs.signed_parts).
"""

import numpy as np
import scipy.sparse as sp

from docfact.algorithms._validation import options
from docfact.algorithms.base import MultiplicativeFactorization, check_data
from docfact.algorithms.engine import (
    EPS,
    dot_all,
    dtype,
    fast_products,
    graph_term,
    mu_step,
    rescale,
    unit_columns_of_V,
)
from docfact.algorithms.graphs import (
    GRAPH_CONSTRAINTS,
    NegativeWeights,
    check_constraints,
    check_graph,
    check_partial_labels,
    degrees,
    signed_parts,
)
from docfact.algorithms.kernels import (
    KERNEL_CONSTRAINTS,
    DenseKernel,
    LastProduct,
    affinity,
    formed_if_cheaper,
    in_products,
)

START_NORMS = ("concepts", "V")  # LCCF's start_norm


class LCCFRule:
    """Update rule of LCCF (CF when W is None) on a kernel operator K (see kernels.py).

    gamma : optional (N,) scaling of Appendix B (weighted LCCF), G = diag(gamma) = Gamma^1/2:
        the caller passes K' = G K G, the rule turns L into L' = G^-1 L G^-1, and the factors
        are U' = G^-1 U and V' = G V of the weighted objective.
    loop_normalize, start_norm : how the factors are scaled in the loop and at each random
        start (LCCF's estimator parameters).
    The context's numerics (engine.numerics) set the dtype of K and W.
    """

    def __init__(self, K, n_components: int, W=None, lam: float = 0.0, gamma=None,
                 loop_normalize: bool | str = True, start_norm: str = "concepts"):
        self.K = K
        self.k = n_components
        self.lam = lam if W is not None else 0.0
        self.neg = None  # NegativeWeights of a graph with negative weights
        if self.lam > 0:
            W = sp.csr_matrix(W) if sp.issparse(W) else W  # RCF's W~: dense or structured
            if sp.issparse(W):  # cosine weights of signed data can be negative
                W, W_neg = signed_parts(W)
                if W_neg is not None:
                    self.neg = NegativeWeights(*self._laplacian(W_neg, gamma))
            self.W, self.d = self._laplacian(W, gamma)
        self.trace_K = K.trace()
        self.negative = K.min() < 0
        if self.negative:  # K = K+ - K- (Section 3.5); only dense kernels can be negative
            self.K_pos = DenseKernel(np.maximum(K.dense(), 0))
            self.K_neg = DenseKernel(np.maximum(-K.dense(), 0))
        # the reference code draws each start as its loop normalises (NormalizeUV, NormV = 1)
        self.normalize_start = self.loop_normalize if start_norm == "V" else self.normalize
        if loop_normalize == "concepts":  # RCF's Eqs. 21-22 after every update
            self.loop_normalize = self.normalize
        elif not loop_normalize:
            self.loop_normalize = None
        self.dtype = dtype()
        if self.dtype != np.float64:
            self.K = self.K.astype(self.dtype)
            if self.lam > 0:
                self.W, self.d = self.W.astype(self.dtype), self.d.astype(self.dtype)
            if self.neg is not None:
                self.neg = self.neg.astype(self.dtype)
            if self.negative:
                self.K_pos, self.K_neg = (self.K_pos.astype(self.dtype),
                                          self.K_neg.astype(self.dtype))
        elif not self.negative:  # a kernel with negative entries (Section 3.5's updates take
            self.K = in_products(self.K)  # K+ and K- apart) keeps float64 under "mixed"
        self.K = LastProduct(self.K)

    def _laplacian(self, W, gamma) -> tuple:
        """(lambda W, lambda d) of L = D - W, d = W 1; with gamma, of L' = G^-1 L G^-1:
        W' = G^-1 W G^-1, D' = G^-2 D. Called on each part of a graph with negative weights
        (graphs.signed_parts; self.W, self.d: W+; self.neg: W-)."""
        d = degrees(W)
        if gamma is not None:
            inv = sp.diags(1.0 / gamma)
            W, d = sp.csr_matrix(inv @ W @ inv), d / gamma**2
        return self.lam * W, self.lam * d

    def init(self, rng):
        return rng.random((self.K.n, self.k)), rng.random((self.K.n, self.k))

    def update(self, F):
        self.update_all([F])

    def update_all(self, Fs):
        """One iteration for each start (U, V) in Fs; the products with K are taken for all
        starts at once (K.dot_all), which reads a dense K once instead of once per start."""
        if self.negative:
            for U, V in Fs:
                self._update_signed(U, V)
            return
        KUs = self.K.dot_all([U for U, _ in Fs])
        WVs = self.graph_all([V for _, V in Fs])
        for (U, V), KU, WV in zip(Fs, KUs, WVs, strict=True):
            mu_step(V, *self.penalize(V, KU, V @ (U.T @ KU), WV))  # Eq. (18)
        KVs = self.K.dot_all([V for _, V in Fs])
        for (U, V), KU, KV in zip(Fs, KUs, KVs, strict=True):
            mu_step(U, KV, KU @ (V.T @ V))  # Eq. (17)

    def graph_all(self, Vs: list) -> list:
        """[lambda W V for V in Vs] (None each when lambda = 0), W read once for all starts
        (engine.dot_all). A sparse W gives the digits of one start at a time; a dense W (RCF's
        W~) is taken at once only with products "auto" (OpenBLAS sums some sizes in another
        order), else one start at a time."""
        if not self.lam > 0:
            return [None] * len(Vs)
        if sp.issparse(self.W) or fast_products():
            return dot_all(self.W, Vs)
        return [self.W @ V for V in Vs]

    def penalize(self, V, num, den, WV) -> tuple:
        """(num, den) of the V update with the regulariser's parts added: WV = lambda W V
        (graph_all) to the numerator, lambda D V to the denominator (Eq. 18); for the rules
        that add terms."""
        if self.lam > 0:
            num = num + WV
            den = den + self.d[:, None] * V
        if self.neg is not None:
            self.neg.split(V, num, den)
        return num, den

    def penalty(self, V) -> float:
        """The regulariser's value: lambda tr(V^T L V)."""
        if not self.lam > 0:
            return 0.0
        if self.neg is None:
            return graph_term(V, self.W, self.d)
        return graph_term(V, self.W, self.d) - self.neg.value(V)

    def _update_signed(self, U, V):
        """Eqs. (28) then (25): Theorem 2's update for K with negative entries."""
        KU, KpU, KnU = self.K.dot(U), self.K_pos.dot(U), self.K_neg.dot(U)
        Qp, Qn = V @ (U.T @ KpU), V @ (U.T @ KnU)
        if self.lam > 0:
            Qp += self.d[:, None] * V
            Qn += self.W @ V
        if self.neg is not None:
            self.neg.split(V, Qn, Qp)
        V *= (KU + np.sqrt(KU**2 + 4 * Qp * Qn)) / np.maximum(2 * Qp, EPS)
        VtV = V.T @ V
        KV = self.K.dot(V)
        Pp, Pn = self.K_pos.dot(U) @ VtV, self.K_neg.dot(U) @ VtV
        U *= (KV + np.sqrt(KV**2 + 4 * Pp * Pn)) / np.maximum(2 * Pp, EPS)

    def objective(self, F):
        U, V = F
        KU = self.K.dot(U)
        obj = self.trace_K - 2 * np.sum(V * KU) + np.sum((U.T @ KU) * (V.T @ V))
        return float(obj + self.penalty(V))

    def normalize(self, F):
        """Concepts to unit norm, ||X^T u_k||^2 = u_k^T K u_k = 1, V rescaled (U V^T unchanged)."""
        U, V = F
        rescale(U, V, np.sqrt(np.maximum(np.sum(U * self.K.dot(U), axis=0), 0.0)))

    def loop_normalize(self, F):
        unit_columns_of_V(F)


class CF(MultiplicativeFactorization):
    """Concept factorization X ~ V U^T X, on a kernel K of the samples.

    kernel : "linear" (K = X X^T, kept in sparse form), "polynomial" (K = (X X^T)^degree,
        element-wise) or "precomputed" (X is K, (n, n)).
    degree : int, of the polynomial kernel.
    ncw : bool, normalized-cut weighting K <- D^-1/2 K D^-1/2, D = diag(K 1) (Xu & Gong 2004).
    loop_normalize : bool, normalise V's columns after every iteration past min_iter, as the
        reference code does (this rescaling changes the graph term of LCCF's objective, so the
        objective is monotone only with False).
    See `MultiplicativeFactorization` for the engine's parameters.

    Attributes: association_ (n, k) = U; n_iter_; objective_.
    """

    _parameter_constraints = {**MultiplicativeFactorization._parameter_constraints,
                              **KERNEL_CONSTRAINTS, "loop_normalize": ["boolean"]}
    uses_kernel = True

    positive_only = False  # kernels with negative entries: Section 3.5's updates

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = self.positive_only
        return tags

    def __init__(self, n_components, *, kernel="linear", degree=2, ncw=False,
                 loop_normalize=True, n_restarts=10, min_iter=30, max_iter=100, tol=1e-5,
                 random_state=None, track_objective=False):
        super().__init__(n_components, n_restarts=n_restarts, min_iter=min_iter,
                         max_iter=max_iter, tol=tol, random_state=random_state,
                         track_objective=track_objective)
        self.kernel = kernel
        self.degree = degree
        self.ncw = ncw
        self.loop_normalize = loop_normalize

    def _affinity(self, X, W, y):
        """(W, lambda) of the graph regulariser: none for CF. y: labels, for the
        semi-supervised rules."""
        return None, 0.0

    def _rule(self, K, W, lam, gamma, y):
        """The update rule on the (weighted) kernel K; gamma the NC scaling, or None."""
        return LCCFRule(K, self.n_components, W, lam, gamma if lam > 0 else None,
                        self.loop_normalize)

    def _fit_transform(self, X, y=None, W=None, constraints=None):
        """X (n_samples, n_features), or K (n, n) with kernel="precomputed"; W the graph of
        LCCF's family (built from X otherwise); constraints, for the semi-supervised methods,
        pairwise constraints Z (n, n) in place of the partial labels y (semisup.py)."""
        X = check_data(self, X)
        self._check_n_samples(X.shape[0])
        if self.semi_supervised and constraints is not None:
            if y is not None:
                raise ValueError("pass the partial labels y or the constraints, not both")
            y = check_constraints(constraints, X.shape[0])
        elif self.semi_supervised:
            y = check_partial_labels(y, X.shape[0])
        W, lam = self._affinity(X, W, y)
        K, gamma = affinity(X, self.kernel, self.degree, self.ncw)
        if self.kernel == "linear":
            K = formed_if_cheaper(K, K.X, self.n_components, self.n_restarts, self.min_iter,
                                  self.max_iter)
        U, V = self._minimize(self._rule(K, W, lam, gamma, y)).factors
        self.association_ = U
        return V


class LCCF(CF):
    """Locally consistent concept factorization (LCCF paper Eq. 10).

    lam : float >= 0, lambda, weight of the graph regulariser (the paper uses 100).
    p : int, neighbours of the graph (5 in the paper).
    weight : "cosine" (Eq. 8, the paper) or "binary".
    With ncw=True this is LCCF-NCW, Appendix B's weighted LCCF with Gamma = D^-1 (the rule's
    gamma = d^-1/2, Gamma^1/2).
    loop_normalize : as CF's (True: V's columns at unit length past min_iter, LCCF.m), or
        "concepts": u_k^T K u_k = 1 after every iteration past min_iter (the RCF paper's
        Eqs. 21-22 read as part of each update).
    start_norm : "concepts", each random start scaled as the result, u_k^T K u_k = 1 (the
        paper's Sec. 3.2), or "V", V's columns at unit length as the loop keeps them
        (LCCF_Multi.m v2.0's NormalizeUV with NormV = 1 on every start). The graph term
        depends on the scale; CF's fit does not (its updates are homogeneous in it).
    The graph is built from X's rows (for kernel="precomputed", pass W to fit_transform).
    """

    _parameter_constraints = {**CF._parameter_constraints, **GRAPH_CONSTRAINTS,
                              "loop_normalize": ["boolean", options("concepts")],
                              "start_norm": [options(*START_NORMS)]}
    uses_graph = True

    def __init__(self, n_components, *, lam=100.0, p=5, weight="cosine", kernel="linear",
                 degree=2, ncw=False, loop_normalize=True, start_norm="concepts", n_restarts=10,
                 min_iter=30, max_iter=100, tol=1e-5, random_state=None,
                 track_objective=False):
        super().__init__(n_components, kernel=kernel, degree=degree, ncw=ncw,
                         loop_normalize=loop_normalize, n_restarts=n_restarts,
                         min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state, track_objective=track_objective)
        self.lam = lam
        self.p = p
        self.weight = weight
        self.start_norm = start_norm

    def _rule(self, K, W, lam, gamma, y):
        return LCCFRule(K, self.n_components, W, lam, gamma if lam > 0 else None,
                        self.loop_normalize, self.start_norm)

    def _affinity(self, X, W, y):
        if W is None and self.kernel == "precomputed":
            raise ValueError("with kernel='precomputed', pass the graph W to fit_transform")
        return check_graph(X, W, self.p, self.weight), self.lam
