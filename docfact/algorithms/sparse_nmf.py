"""NMF with sparseness constraints, SparseNMF (Hoyer, JMLR 2004, Section 3; nmfsc).

X (n, m) one sample per row (Hoyer's data V^T), U (m, k) the basis, V (n, k) the
coefficients (Hoyer's W and H^T). Minimise ||X - V U^T||^2 subject to fixed sparseness of
U's columns and/or of V's columns (Hoyer's rows of H), where for a vector x of length N
    sparseness(x) = (sqrt(N) - ||x||_1 / ||x||_2) / (sqrt(N) - 1)                        (1)
A constrained factor takes a projected gradient step whose size is halved until the objective
does not increase, then grown by 1.2 for the next iteration; an unconstrained factor takes the
multiplicative update. V's columns keep unit L2 norm (the scale lives in U), as in nmfsc.
"""

import numpy as np

from docfact.algorithms import engine
from docfact.algorithms._validation import number
from docfact.algorithms.base import MultiplicativeFactorization, check_data
from docfact.algorithms.nmf import GNMFRule

MIN_STEP = 1e-200  # nmfsc's "converged" step size: the factor is left as it is


def project(s: np.ndarray, L1: float, L2: float) -> np.ndarray:
    """The nonnegative vector closest to s with ||v||_1 = L1 and ||v||_2 = L2 (Hoyer Sec. 3.2).

    Project on the hyperplane sum v = L1, then move from the centre of the free coordinates
    along v - centre to the L2 sphere; coordinates that go negative are fixed at zero and the
    rest re-centred, until v >= 0. Needs L2 <= L1 <= sqrt(N) L2.
    """
    N = len(s)
    v = s + (L1 - s.sum()) / N
    zero = np.zeros(N, dtype=bool)
    while True:
        midpoint = np.where(zero, 0.0, L1 / (N - zero.sum()))
        w = v - midpoint
        a, b, c = w @ w, 2 * w @ v, v @ v - L2**2
        v = v + (-b + np.sqrt(max(b * b - 4 * a * c, 0.0))) / max(2 * a, engine.EPS) * w
        if (v >= 0).all():
            return v
        zero |= v <= 0
        v[zero] = 0.0
        v[~zero] += (L1 - v.sum()) / (N - zero.sum())


def l1_for(sparseness: float, N: int) -> float:
    """||x||_1 of a unit-L2 vector of length N with the given sparseness (Eq. 1 solved)."""
    return np.sqrt(N) - (np.sqrt(N) - 1) * sparseness


class SparseNMFRule(GNMFRule):
    """Hoyer's nmfsc iteration: V (H) first, then U (W). A start is (U, V, steps), steps a
    (1, 2) array of the current step sizes of U and V."""

    def __init__(self, X, n_components: int, sparseness_U=None, sparseness_V=None):
        super().__init__(X, n_components)
        n, m = self.X.shape
        self.L1_U = None if sparseness_U is None else l1_for(sparseness_U, m)
        self.L1_V = None if sparseness_V is None else l1_for(sparseness_V, n)

    def init(self, rng):
        U, V = super().init(rng)
        V /= np.linalg.norm(V, axis=0)
        if self.L1_U is not None:
            U[:] = self._project(U, self.L1_U, keep_norm=False)
        if self.L1_V is not None:
            V[:] = self._project(V, self.L1_V, keep_norm=False)
        return U, V, np.ones((1, 2))

    def update_all(self, Fs):
        """One start at a time: a projected step evaluates its own start's objective."""
        for F in Fs:
            self.update(F)

    def update(self, F):
        U, V, _ = F
        if self.L1_V is None:
            engine.mu_step(V, self.X @ U, V @ (U.T @ U))
            self.normalize(F)
        else:
            self._descend(F, 1, V @ (U.T @ U) - self.X @ U, self.L1_V)
        if self.L1_U is None:
            engine.mu_step(U, self.XtV.dot(V), U @ (V.T @ V))
        else:
            self._descend(F, 0, U @ (V.T @ V) - self.XtV.dot(V), self.L1_U)

    def _project(self, A, L1, keep_norm):
        """A's columns projected to sparseness L1 (for unit norm): at unit L2 norm (V's), or
        at their current L2 norm, L1 scaled with it (U's, whose scale is free)."""
        norms = np.linalg.norm(A, axis=0) if keep_norm else np.ones(self.k)
        return np.column_stack([project(A[:, j], L1 * norms[j], norms[j])
                                for j in range(self.k)])

    def _descend(self, F, which, grad, L1):
        """A projected gradient step on F[which] (0: U, 1: V), in place: the step size
        steps[0, which] is halved until the objective does not increase, then grown by 1.2."""
        U, V, steps = F
        before = self.objective(F)
        while steps[0, which] >= MIN_STEP:
            new = self._project(F[which] - steps[0, which] * grad, L1, keep_norm=which == 0)
            if self.objective((new, V) if which == 0 else (U, new)) <= before:
                F[which][:] = new
                steps[0, which] *= 1.2
                return
            steps[0, which] /= 2

    def objective(self, F):
        """||X - U V^T||^2."""
        return super().objective(F[:2])

    def normalize(self, F):
        """Columns of V to unit L2 norm, U rescaled (nmfsc's constant energy of H's rows)."""
        engine.unit_columns_of_V(F)


class SparseNMF(MultiplicativeFactorization):
    """Nonnegative matrix factorization with sparseness constraints (Hoyer 2004), X ~ V U^T.

    sparseness_U : float in [0, 1] or None, the sparseness of every basis vector (Hoyer's sW).
    sparseness_V : float in [0, 1] or None, the sparseness of every coefficient vector over the
        samples (Hoyer's sH, the rows of H); at least one of the two is set.
    See `MultiplicativeFactorization` for the engine's parameters (restarts, iterations).

    Attributes: components_ (k, n_features) = U^T; n_iter_; objective_.
    """

    _parameter_constraints = {**MultiplicativeFactorization._parameter_constraints,
                              "sparseness_U": [number(0.0, 1.0, closed="both"), None],
                              "sparseness_V": [number(0.0, 1.0, closed="both"), None]}

    def __init__(self, n_components, *, sparseness_U=None, sparseness_V=0.5, n_restarts=10,
                 min_iter=30, max_iter=100, tol=1e-5, random_state=None, track_objective=False):
        super().__init__(n_components, n_restarts=n_restarts, min_iter=min_iter,
                         max_iter=max_iter, tol=tol, random_state=random_state,
                         track_objective=track_objective)
        self.sparseness_U = sparseness_U
        self.sparseness_V = sparseness_V

    def _validate_params(self):
        super()._validate_params()
        if self.sparseness_U is None and self.sparseness_V is None:
            raise ValueError("set sparseness_U or sparseness_V (else this is NMF)")

    def _fit_transform(self, X, y=None):
        X = check_data(self, X)
        self._check_n_samples(X.shape[0])
        rule = SparseNMFRule(X, self.n_components, self.sparseness_U, self.sparseness_V)
        U, V, _ = self._minimize(rule).factors
        self.components_ = U.T
        return V
