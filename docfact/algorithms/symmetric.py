"""Factorizations of the document affinity W (N, N): NMF-HHt and NMF-PSPt (Bao et al. 2008).

W = X X^T on unit-length documents is their cosine similarity (the AA affinity); with NC
weighting it is W~ = D^-1/2 W D^-1/2, D = diag(W 1) (the NC affinity). W is a kernel operator
(kernels.py): for the linear kernel the updates never form it, W Y = X (X^T Y); the
objective's constant ||W||^2 is taken once, from the sparse X X^T. With numerics products
"auto" W is formed (N x N) where the cost model finds it cheaper for the fit's schedule (one
product per iteration, the starts one at a time: kernels.formed_if_cheaper); with precision
"mixed" its products are taken in float32 (kernels.Float32Products), the factors and updates
in float64.

HHt (Ding, He, Simon 2005; PSPt paper Eq. 2): min ||W - H H^T||^2 over H >= 0 (N, k),
    H <- H * (1/2 + W H / (2 H H^T H)).
PSPt (PSPt paper Eqs. 3-4, 6, 8): min alpha ||W - P S P^T||^2 + beta ||P^T P - I||^2 over
P >= 0 (N, k) and diagonal S >= 0, alpha = eta / N^2, beta = (1 - eta) / k^2,
    P <- P * ((alpha W P S + beta P) / (alpha P S P^T P S + beta P P^T P))^(1/4)      (6)
    S_kk <- S_kk (P^T W P)_kk / (P^T P S P^T P)_kk                                    (8)
(Eq. 6 prints beta [P^T P]_ik in the denominator; its auxiliary function, Eq. 7, gives
[P P^T P]_ik, used here.) Either factor's row argmax is the cluster of a document.

Readings of what the paper leaves open (settings; the defaults are the literal text):
scale of the two terms: "literal" (alpha = eta / N^2, beta = (1 - eta) / k^2), "sums" (alpha =
eta, beta = 1 - eta) or "relative" (alpha = eta / ||W||^2, beta = (1 - eta) / ||I_k||^2, both
terms relative errors); W's diagonal: "keep" (unit self-similarity) or "zero"; S: "diagonal"
(Eq. 3, Eq. 8) or "full" (S <- S * P^T W P / (P^T P S P^T P), the tri-factorization update).
"""

import numpy as np

from docfact.algorithms._validation import number, options
from docfact.algorithms.base import TRIALS, MultiplicativeFactorization, check_data
from docfact.algorithms.engine import (
    EPS,
    dtype,
    in_loop,
    mu_step,
    sq_norm,
)
from docfact.algorithms.kernels import (
    LastProduct,
    LinearKernel,
    affinity,
    formed_if_cheaper,
    in_products,
    kernel_operator,
    ncw_scaling,
)


class Hollow:
    """W - diag(W) (n, n) of a kernel operator W: the affinity without self-similarity."""

    def __init__(self, W):
        self.W, self.a, self.n = W, W.diag(), W.n

    def dot(self, Y: np.ndarray) -> np.ndarray:
        """(W - diag(W)) Y for Y >= 0 (the factors): >= 0, so the subtraction's rounding, which
        leaves entries of order -1e-17 where a document has no other neighbour, is clipped (a
        negative numerator would make the fourth root of Eq. 6 NaN)."""
        WY = self.W.dot(Y) - self.a[:, None] * Y
        return np.maximum(WY, 0.0, out=WY)

    def row_sums(self) -> np.ndarray:
        return self.W.row_sums() - self.a

    def scaled(self, s: np.ndarray) -> "Hollow":
        return Hollow(self.W.scaled(s))

    def astype(self, dtype) -> "Hollow":
        return Hollow(self.W.astype(dtype))

    def dense(self) -> np.ndarray:
        D = self.W.dense().copy()
        np.fill_diagonal(D, 0.0)
        return D


def affinity_sq_norm(W) -> float:
    """||W||_F^2 of a kernel operator (for the linear kernel from the sparse product X X^T)."""
    if isinstance(W, Hollow):
        return affinity_sq_norm(W.W) - float(np.sum(W.a**2))
    if isinstance(W, LinearKernel):
        return sq_norm(W.X @ W.Xt)
    return sq_norm(W.dense())


class HHtRule:
    """Update rule of NMF-HHt on the affinity operator W. A start is (H,)."""

    loop_normalize = None

    def __init__(self, W, n_components: int):
        self.sq_norm_W = affinity_sq_norm(W)
        self.dtype = dtype()
        self.W, self.k = LastProduct(in_products(in_loop(W))), n_components

    def init(self, rng):
        return (rng.random((self.W.n, self.k)),)

    def update(self, F):
        (H,) = F
        WH = self.W.dot(H)
        den = 2 * H @ (H.T @ H)
        np.maximum(den, EPS, out=den)
        H *= 0.5 + WH / den

    def objective(self, F):
        """||W - H H^T||^2 = ||W||^2 - 2 tr(H^T W H) + ||H^T H||^2."""
        (H,) = F
        HtH = H.T @ H
        return float(self.sq_norm_W - 2 * np.sum(H * self.W.dot(H)) + np.sum(HtH * HtH))

    def normalize(self, F):
        """Nothing: W fixes the scale of H."""


SCALES = ("literal", "sums", "relative")


class PSPtRule:
    """Update rule of NMF-PSPt on the affinity operator W. A start is (P, s): s (1, k) the
    diagonal of S, or S itself (k, k) with s_form="full"."""

    loop_normalize = None

    def __init__(self, W, n_components: int, eta: float, scale: str = "literal",
                 s_form: str = "diagonal"):
        self.sq_norm_W = affinity_sq_norm(W)
        self.k, self.s_form = n_components, s_form
        if scale == "literal":
            self.alpha, self.beta = eta / W.n**2, (1 - eta) / n_components**2
        elif scale == "sums":
            self.alpha, self.beta = eta, 1 - eta
        else:
            self.alpha, self.beta = eta / self.sq_norm_W, (1 - eta) / n_components
        self.dtype = dtype()
        self.W = LastProduct(in_products(in_loop(W)))

    def init(self, rng):
        P = rng.random((self.W.n, self.k))
        if self.s_form == "full":
            S = rng.random((self.k, self.k))
            return P, (S + S.T) / 2
        return P, rng.random((1, self.k))

    def update(self, F):
        self.update_P(*F)
        self.update_S(*F)

    def update_P(self, P, s):
        """Eq. (6), in place."""
        a, b = self.alpha, self.beta
        WP, PtP = self.W.dot(P), P.T @ P
        if self.s_form == "full":
            den = a * P @ (s @ PtP @ s) + b * P @ PtP
            num = a * WP @ s + b * P
        else:
            den = a * (P * s) @ (PtP * s) + b * P @ PtP
            num = a * WP * s + b * P
        np.maximum(den, EPS, out=den)
        P *= np.sqrt(np.sqrt(num / den))

    def update_S(self, P, s):
        """Eq. (8), in place: s_k <- s_k (P^T W P)_kk / (P^T P S P^T P)_kk; for a full S,
        S <- S * (P^T W P) / (P^T P S P^T P)."""
        PtP = P.T @ P
        if self.s_form == "full":
            mu_step(s, P.T @ self.W.dot(P), PtP @ s @ PtP)
            return
        mu_step(s, np.sum(P * self.W.dot(P), axis=0, keepdims=True), s @ (PtP * PtP))

    def terms(self, F) -> tuple:
        """Eq. (4)'s two terms: (alpha ||W - P S P^T||^2, beta ||P^T P - I||^2)."""
        P, s = F
        PtP = P.T @ P
        if self.s_form == "full":
            fit = self.sq_norm_W - 2 * np.sum(s * (P.T @ self.W.dot(P))) + np.sum(
                (PtP @ s) * (s @ PtP))
        else:
            fit = self.sq_norm_W - 2 * np.sum(s * P * self.W.dot(P)) + np.sum(
                (s.T * s) * PtP * PtP)
        return self.alpha * fit, self.beta * np.sum((PtP - np.eye(self.k)) ** 2)

    def objective(self, F):
        """Eq. (4): alpha ||W - P S P^T||^2 + beta ||P^T P - I||^2."""
        fit, orthogonality = self.terms(F)
        return float(fit + orthogonality)

    def normalize(self, F):
        """Nothing: W and the orthogonality term fix the scale of P and S."""


class _AffinityFactorization(MultiplicativeFactorization):
    """Shared parameters of the factorizations of the document affinity.

    kernel : "linear" (W = X X^T, the cosine similarity of unit-length documents) or
        "precomputed" (X is W, (n, n)).
    ncw : bool, factorize the NC-weighted affinity D^-1/2 W D^-1/2 (the NC-... rows).
    diagonal : "keep" (W_ii as given: 1 for unit documents) or "zero" (W_ii = 0, before D).
    trials : bool, run every start to its stop and keep the one of lowest final objective (the
        PSPt paper's "10 trials", `engine.minimize`).
    See `MultiplicativeFactorization` for the engine's parameters.
    """

    _parameter_constraints = {**MultiplicativeFactorization._parameter_constraints,
                              "kernel": [options("linear", "precomputed")], "ncw": ["boolean"],
                              "diagonal": [options("keep", "zero")], **TRIALS}

    def __init__(self, n_components, *, kernel="linear", ncw=False, diagonal="keep",
                 n_restarts=10, min_iter=30, max_iter=100, tol=1e-5, random_state=None,
                 track_objective=False, trials=False):
        super().__init__(n_components, n_restarts=n_restarts, min_iter=min_iter,
                         max_iter=max_iter, tol=tol, random_state=random_state,
                         track_objective=track_objective)
        self.kernel = kernel
        self.ncw = ncw
        self.diagonal = diagonal
        self.trials = trials

    def _fit_transform(self, X, y=None):
        """Factorize the affinity of X (n_samples, n_features), or X itself (n, n) with
        kernel="precomputed"; return the document factor (n_samples, n_components)."""
        X = check_data(self, X)
        self._check_n_samples(X.shape[0])
        if self.diagonal == "keep":
            W, _ = affinity(X, self.kernel, ncw=self.ncw)
        else:
            W = Hollow(kernel_operator(X, self.kernel))
            W = W.scaled(ncw_scaling(W)) if self.ncw else W
        if self.kernel == "linear":
            W = formed_if_cheaper(W, X, self.n_components, self.n_restarts, self.min_iter,
                                  self.max_iter, per_iteration=1, batched=False,
                                  trials=self.trials)
        return self._minimize(self._rule(W)).factors[0]


class SymmetricNMF(_AffinityFactorization):
    """NMF-HHt (Ding, He, Simon 2005): W ~ H H^T, H >= 0; returns H (n_samples, k).

    AA-HHt with the default affinity, NC-HHt with ncw=True (PSPt paper, Tables 2-3).
    """

    def _rule(self, W):
        return HHtRule(W, self.n_components)


class PSPt(_AffinityFactorization):
    """NMF-PSPt (Bao et al. 2008, Eq. 4): W ~ P S P^T, P >= 0, P^T P ~ I; returns P
    (n_samples, k).

    eta : float in (0, 1], the weight of the fit against the orthogonality term (0.8 in the
        paper). AA-PSPt with the default affinity, NC-PSPt with ncw=True.
    scale : "literal", "sums" or "relative": alpha and beta (module docstring). "literal", the
        default, is the paper's text; on text its orthogonality term outweighs the fit by three
        to four orders at eta = 0.8, P^T P ~ I and the clusters are near chance
        (results/pspt_readings). The PSPt tables read it "relative" (with diagonal "zero" and
        trials).
    s_form : "diagonal" (Eq. 3) or "full" S.
    """

    _parameter_constraints = {**_AffinityFactorization._parameter_constraints,
                              "eta": [number(0.0, 1.0, closed="right")],
                              "scale": [options(*SCALES)], "s_form": [options("diagonal", "full")]}

    def __init__(self, n_components, *, eta=0.8, scale="literal", s_form="diagonal",
                 kernel="linear", ncw=False, diagonal="keep", n_restarts=10, min_iter=30,
                 max_iter=100, tol=1e-5, random_state=None, track_objective=False,
                 trials=False):
        super().__init__(n_components, kernel=kernel, ncw=ncw, diagonal=diagonal,
                         n_restarts=n_restarts, min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state, track_objective=track_objective,
                         trials=trials)
        self.eta = eta
        self.scale = scale
        self.s_form = s_form

    def _rule(self, W):
        return PSPtRule(W, self.n_components, self.eta, self.scale, self.s_form)
