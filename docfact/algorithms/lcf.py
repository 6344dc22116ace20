"""Locality-constrained concept factorization, LCF (Liu, Yang, Wu; IJCAI 2011, Eqs. 2, 4, 5).

With K = X^T X (N, N), W (N, K) the association of samples to concepts u_k = X w_k and V (N, K)
the coordinates (the paper's V^T), LCF adds to CF's error the locality of the coding, each
coordinate weighted by the distance of its anchor to the sample (Eq. 2):
    O = ||X - X W V^T||^2 + lambda sum_i sum_k v_ik ||u_k - x_i||^2,
    ||u_k - x_i||^2 = a_i - 2 (K W)_ik + b_k,   a = diag(K), b = diag(W^T K W).
Multiplicative updates, V then W as in the CF family's code (Eqs. 5, 4, transposed):
    V <- V * 2 (1 + lambda) K W / (2 V W^T K W + lambda (a 1^T + 1 b^T))             (5)
    W <- W * (1 + lambda) K V / (K W V^T V + lambda K W diag(1^T V))                 (4)
(Eq. 4 prints K W V^T in the denominator; its derivation gives K W V V^T, used here.)
The paper does not say how W and V start: at random (init="random") or where CF stops
(init="cf": CF's updates, lambda = 0, from the random start until the running-mean rule).
"""

import numpy as np

from docfact.algorithms._validation import check_float, check_option
from docfact.algorithms.cf import CF, LCCFRule
from docfact.algorithms.engine import minimize, mu_step

INITS = ("random", "cf")


class LCFRule(LCCFRule):
    """Update rule of LCF on a kernel operator K with nonnegative entries; CF's starts."""

    def __init__(self, K, n_components: int, lam: float, loop_normalize: bool = False,
                 init: str = "random"):
        if K.min() < 0:
            raise ValueError("LCF needs a kernel with nonnegative entries")
        self.K, self.k, self.lam, self.start = K, n_components, lam, init
        self.a = K.diag()
        self.trace_K = K.trace()
        if not loop_normalize:
            self.loop_normalize = None

    def init(self, rng):
        """A random (W, V), or CF's fit from one (CF's own stopping rule, min_iter 30)."""
        if self.start == "random":
            return super().init(rng)
        cf = LCCFRule(self.K, self.k, loop_normalize=False)
        return minimize(cf, n_restarts=1, max_iter=None, random_state=int(rng.integers(2**31))
                        ).factors

    def update_all(self, Fs):
        """One iteration of Eqs. (5) then (4) for each start (W, V) in Fs."""
        KWs = self.K.dot_all([W for W, _ in Fs])
        for (W, V), KW in zip(Fs, KWs, strict=True):
            self.update_V(W, V, KW)
        KVs = self.K.dot_all([V for _, V in Fs])
        for (W, V), KW, KV in zip(Fs, KWs, KVs, strict=True):
            self.update_W(W, V, KW, KV)

    def update_V(self, W, V, KW):
        """Eq. (5), in place; KW = K W."""
        WtKW = W.T @ KW
        den = 2 * V @ WtKW + self.lam * (self.a[:, None] + np.diag(WtKW)[None, :])
        mu_step(V, 2 * (1 + self.lam) * KW, den)

    def update_W(self, W, V, KW, KV):
        """Eq. (4), in place; KW = K W, KV = K V."""
        mu_step(W, (1 + self.lam) * KV, KW @ (V.T @ V) + self.lam * KW * V.sum(axis=0))

    def normalize(self, F):
        """Nothing: Eq. (2) is not invariant under W <- W s, V <- V / s, so the fitted scale
        of the anchors is part of the solution (CF's unit concepts would move them)."""

    def objective(self, F):
        """Eq. (2): reconstruction error plus lambda times the locality term."""
        W, V = F
        KW = self.K.dot(W)
        VKW = np.sum(V * KW)
        b = np.sum(W * KW, axis=0)
        error = self.trace_K - 2 * VKW + np.sum((W.T @ KW) * (V.T @ V))
        locality = self.a @ V.sum(axis=1) - 2 * VKW + b @ V.sum(axis=0)
        return float(error + self.lam * locality)


class LCF(CF):
    """Locality-constrained concept factorization X^T ~ V W^T X^T (LCF Eq. 2).

    lam : float >= 0, lambda, the weight of the locality term (the paper uses 0.3).
    loop_normalize : bool, default False: the locality term is not invariant under rescaling
        W and V, so V's columns are not normalised inside the loop (CF's code does it), nor
        the concepts at the end: the anchors u_k = X w_k stay where the fit put them.
    init : "random" (default) or "cf": each start is CF's fit from a random start.
    kernel, degree, ncw and the engine's parameters: see `CF`.

    Attributes: association_ (n, K) = W; n_iter_; objective_.
    """

    def __init__(self, n_components, *, lam=0.3, kernel="linear", degree=2, ncw=False,
                 loop_normalize=False, init="random", n_restarts=10, min_iter=30, max_iter=100,
                 tol=1e-5, random_state=None):
        super().__init__(n_components, kernel=kernel, degree=degree, ncw=ncw,
                         loop_normalize=loop_normalize, n_restarts=n_restarts,
                         min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state)
        self.lam = lam
        self.init = init

    def _validate_params(self):
        super()._validate_params()
        check_float("lam", self.lam)
        check_option("init", self.init, INITS)

    def _rule(self, K, S, lam, gamma, y):
        return LCFRule(K, self.n_components, self.lam, self.loop_normalize, self.init)
