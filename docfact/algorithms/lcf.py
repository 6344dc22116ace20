"""Locality-constrained concept factorization, LCF (Liu, Yang, Wu; IJCAI 2011, Eqs. 2, 4, 5).

With K = X X^T (N, N) for X (N, m) a sample per row (the paper's X^T X), U (N, k) the
association of samples to the concepts X^T u_k (the paper's W) and V (N, k) the coordinates (the
paper's V^T), LCF adds to CF's error the locality of the coding, each coordinate weighted by the
distance of its anchor to the sample (Eq. 2):
    O = ||X - V U^T X||^2 + lambda sum_i sum_k v_ik ||X^T u_k - x_i||^2,
    ||X^T u_k - x_i||^2 = a_i - 2 (K U)_ik + b_k,   a = diag(K), b = diag(U^T K U).
Multiplicative updates, V then U as in the CF family's code (Eqs. 5, 4, transposed):
    V <- V * 2 (1 + lambda) K U / (2 V U^T K U + lambda (a 1^T + 1 b^T))             (5)
    U <- U * (1 + lambda) K V / (K U V^T V + lambda K U diag(1^T V))                 (4)
(Eq. 4 prints K U V^T in the denominator; its derivation gives K U V^T V in these shapes,
used here.)
The paper does not say how U and V start: at random (init="random") or where CF stops
(init="cf": CF's updates, lambda = 0, from the random start until the running-mean rule).
"""

import numpy as np

from docfact.algorithms._validation import number, options
from docfact.algorithms.cf import CF, LCCFRule
from docfact.algorithms.engine import dtype, in_loop, minimize, mu_step, unit_columns_of_V
from docfact.algorithms.kernels import LastProduct, in_products

INITS = ("random", "cf")


class LCFRule:
    """Update rule of LCF on a kernel operator K with nonnegative entries; CF's starts (a CF
    rule, LCCFRule without graph, draws them)."""

    def __init__(self, K, n_components: int, lam: float, loop_normalize: bool = False,
                 init: str = "random"):
        if K.min() < 0:
            raise ValueError("LCF needs a kernel with nonnegative entries")
        self.cf = LCCFRule(K, n_components, loop_normalize=False)
        self.trace_K = K.trace()
        self.dtype = dtype()  # the context's (engine.numerics): K and a in it
        K = in_loop(K)
        self.a = K.diag()
        self.K, self.lam, self.start = LastProduct(in_products(K)), lam, init
        self.loop_normalize = unit_columns_of_V if loop_normalize else None

    def init(self, rng):
        """A random (U, V), or CF's fit from one (CF's own stopping rule, min_iter 30)."""
        if self.start == "random":
            return self.cf.init(rng)
        return minimize(self.cf, n_restarts=1, max_iter=None,
                        random_state=int(rng.integers(2**31))).factors

    def update(self, F):
        self.update_all([F])

    def update_all(self, Fs):
        """One iteration of Eqs. (5) then (4) for each start (U, V) in Fs."""
        KUs = self.K.dot_all([U for U, _ in Fs])
        for (U, V), KU in zip(Fs, KUs, strict=True):
            self.update_V(U, V, KU)
        KVs = self.K.dot_all([V for _, V in Fs])
        for (U, V), KU, KV in zip(Fs, KUs, KVs, strict=True):
            self.update_U(U, V, KU, KV)

    def update_V(self, U, V, KU):
        """Eq. (5), in place; KU = K U."""
        UtKU = U.T @ KU
        den = 2 * V @ UtKU + self.lam * (self.a[:, None] + np.diag(UtKU)[None, :])
        mu_step(V, 2 * (1 + self.lam) * KU, den)

    def update_U(self, U, V, KU, KV):
        """Eq. (4), in place; KU = K U, KV = K V."""
        mu_step(U, (1 + self.lam) * KV, KU @ (V.T @ V) + self.lam * KU * V.sum(axis=0))

    def normalize(self, F):
        """Nothing: Eq. (2) is not invariant under U <- U s, V <- V / s, so the fitted scale
        of the anchors is part of the solution (CF's unit concepts would move them)."""

    def objective(self, F):
        """Eq. (2): reconstruction error plus lambda times the locality term."""
        U, V = F
        KU = self.K.dot(U)
        VKU = np.sum(V * KU)
        b = np.sum(U * KU, axis=0)
        error = self.trace_K - 2 * VKU + np.sum((U.T @ KU) * (V.T @ V))
        locality = self.a @ V.sum(axis=1) - 2 * VKU + b @ V.sum(axis=0)
        return float(error + self.lam * locality)


class LCF(CF):
    """Locality-constrained concept factorization X ~ V U^T X (LCF Eq. 2).

    lam : float >= 0, lambda, the weight of the locality term (the paper uses 0.3).
    loop_normalize : bool, default False: the locality term is not invariant under rescaling
        U and V, so V's columns are not normalised inside the loop (CF's code does it), nor
        the concepts at the end: the anchors X^T u_k stay where the fit put them.
    init : "random" (default) or "cf": each start is CF's fit from a random start.
    kernel, degree, ncw and the engine's parameters: see `CF`.

    Attributes: association_ (n, k) = U; n_iter_; objective_.
    """

    _parameter_constraints = {**CF._parameter_constraints, "lam": [number()],
                              "init": [options(*INITS)]}
    positive_only = True  # the updates need K >= 0

    def __init__(self, n_components, *, lam=0.3, kernel="linear", degree=2, ncw=False,
                 loop_normalize=False, init="random", n_restarts=10, min_iter=30, max_iter=100,
                 tol=1e-5, random_state=None, track_objective=False):
        super().__init__(n_components, kernel=kernel, degree=degree, ncw=ncw,
                         loop_normalize=loop_normalize, n_restarts=n_restarts,
                         min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state, track_objective=track_objective)
        self.lam = lam
        self.init = init

    def _rule(self, K, W, lam, gamma, y):
        return LCFRule(K, self.n_components, self.lam, self.loop_normalize, self.init)
