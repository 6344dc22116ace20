"""Semi-supervised concept factorizations, as the RCF paper (Yan et al., KBS 2017) compares them:
CCF, SemiLCCF, CNPCF, GDCF and RCF itself.

Each is CF's reconstruction ||X - V U^T X||^2 (cf.py: K = X X^T (N, N), U (N, k) associations,
V (N, k) the representation; V updated first, then U) plus a use of partial labels y (N,), -1 for
the unlabelled samples: `fit_transform(X, y)`, must-link pairs being labelled pairs of one class,
cannot-link pairs labelled pairs of two classes. Or of given pairwise constraints:
`fit_transform(X, constraints=Z)`, Z (N, N) sparse symmetric, +1 must-link, -1 cannot-link
(graphs.check_constraints); CCF and GDCF, which take labels, then read the must-link graph's
connected components as classes (graphs.must_link_labels). The rules' `y` is either.
"""

import numpy as np
import scipy.sparse as sp

from docfact.algorithms._validation import number, options
from docfact.algorithms.cf import CF, LCCF, LCCFRule
from docfact.algorithms.engine import fast_products, graph_term, mu_step, rescale
from docfact.algorithms.graphs import (
    LINKS,
    ClassCannotLinks,
    ConstrainedGraph,
    constrained_weights,
    degrees,
    labelled_classes,
    labelled_graph,
    pair_constraints,
    partial_labels,
    propagate_constraints,
    propagation_factors,
)


def label_matrix(y: np.ndarray) -> sp.csr_matrix:
    """CCF's A (N, c + N - l): a labelled sample's row is the one-hot of its class among the c
    labelled classes, each of the N - l unlabelled samples has a column of its own."""
    n = len(y)
    idx, codes = labelled_classes(y)
    c, unlabelled = codes.max() + 1, y < 0
    cols = np.empty(n, dtype=int)
    cols[idx] = codes
    cols[unlabelled] = c + np.arange(unlabelled.sum())
    return sp.csr_matrix((np.ones(n), (np.arange(n), cols)), shape=(n, c + unlabelled.sum()))


class CCFRule(LCCFRule):
    """CCF (Liu, Yang, Wu, Cai 2014): V = A Z with A = label_matrix(y), so that samples labelled
    alike share one row of Z; factors (U, Z), Z (c + N - l, k). Updates, Z then U:
        Z <- Z * (A^T K U) / (A^T A Z U^T K U),   U <- U * (K A Z) / (K U Z^T A^T A Z).
    """

    def __init__(self, K, n_components: int, A: sp.csr_matrix, loop_normalize: bool = True):
        super().__init__(K, n_components, loop_normalize=loop_normalize)
        self.A = A.astype(self.dtype)
        self.At = sp.csr_matrix(self.A.T)
        self.AtA = np.asarray(self.A.sum(axis=0)).ravel()  # A^T A is diagonal: class sizes

    def init(self, rng):
        return rng.random((self.K.n, self.k)), rng.random((self.A.shape[1], self.k))

    def update_all(self, Fs):
        KUs = self.K.dot_all([U for U, _ in Fs])
        for (U, Z), KU in zip(Fs, KUs, strict=True):
            mu_step(Z, self.At @ KU, self.AtA[:, None] * Z @ (U.T @ KU))
        Vs = [self.A @ Z for _, Z in Fs]
        for (U, _), KU, V, KV in zip(Fs, KUs, Vs, self.K.dot_all(Vs), strict=True):
            mu_step(U, KV, KU @ (V.T @ V))

    def objective(self, F):
        U, Z = F
        return super().objective((U, self.A @ Z))

    def loop_normalize(self, F):
        """Columns of V = A Z to unit L2 norm, U rescaled (CF's in-loop normalisation)."""
        U, Z = F
        rescale(Z, U, np.linalg.norm(self.A @ Z, axis=0))


class CNPCFRule(LCCFRule):
    """CNPCF (Lu, Zhang, Zhao, Li 2016) in a form that fits the RCF paper's parameters (its text
    was not available): LCCF's graph term (lambda = lambda_S on a p-NN graph) plus lambda_H
    times the pairwise-constraint penalty of PCCF (He, Lu, Xie 2014), must-linked samples pulled
    together, cannot-linked ones kept apart:
        sum_{(i,j) must} ||v_i - v_j||^2 / 2 + sum_{(i,j) cannot} v_i^T v_j
            = tr(V^T (D_M - M) V) + tr(V^T C V),
    split as the graph term is:
        V <- V * (K U + lambda_S W V + lambda_H M V)
                 / (V U^T K U + lambda_S D V + lambda_H (D_M + C) V).
    (Must-links as -tr(V^T M V) alone would leave the objective unbounded below: it falls
    without end as V grows and U shrinks.)
    """

    def __init__(self, K, n_components: int, W, lam: float, y, lam_h: float,
                 loop_normalize: bool | str = True, start_norm: str = "concepts"):
        super().__init__(K, n_components, W, lam, loop_normalize=loop_normalize,
                         start_norm=start_norm)
        M, C = pair_constraints(y)
        self.M, self.C = lam_h * M, lam_h * C
        self.d_M = degrees(self.M)
        self.M, self.C = self.M.astype(self.dtype), self.C.astype(self.dtype)
        self.d_M = self.d_M.astype(self.dtype, copy=False)
        if not sp.issparse(y) and lam_h == 1:  # links from labels: C V by class, same digits
            self.C = ClassCannotLinks(self.C, y)

    def penalize(self, V, num, den, WV):
        num, den = super().penalize(V, num, den, WV)
        return num + self.M @ V, den + self.d_M[:, None] * V + self.C @ V

    def penalty(self, V):
        return (super().penalty(V) + graph_term(V, self.M, self.d_M)
                + float(np.sum(V * (self.C @ V))))


class GDCFRule(LCCFRule):
    """GDCF (Li, Zhang, Hu, Zhang, Liu 2017), in the form of discriminative NMF (its text was
    not available): LCCF's graph term (lambda = beta_2) plus the label fit
        beta ||Q - A V_l^T||^2,   Q (c, l) the one-hot classes of the l labelled samples,
    V_l (l, k) their rows of V, A (c, k) of any sign in closed form, A = Q V_l (V_l^T V_l)^+,
    recomputed from V before each V update. The label term's gradient is split by sign:
        V_l <- V_l * (num + beta ((Q^T A)+ + V_l (A^T A)-)) / (den + beta ((Q^T A)- + V_l (A^T A)+))
    with num, den those of LCCF's Eq. (18) on V_l's rows.
    The objective (A eliminated) is not guaranteed to decrease under this update.
    """

    def __init__(self, K, n_components: int, W, lam: float, y, beta: float,
                 loop_normalize: bool | str = True, start_norm: str = "concepts"):
        super().__init__(K, n_components, W, lam, loop_normalize=loop_normalize,
                         start_norm=start_norm)
        self.idx, codes = labelled_classes(y)
        self.Qt = np.eye(codes.max() + 1)[codes]  # Q^T, (l, c)
        self.beta = beta

    def _A(self, Vl):
        """The closed-form A^T (k, c): the least-squares fit of Q^T by V_l."""
        return np.linalg.lstsq(Vl, self.Qt, rcond=None)[0]

    def penalize(self, V, num, den, WV):
        num, den = super().penalize(V, num, den, WV)
        Vl = V[self.idx]
        At = self._A(Vl)
        R, P = self.Qt @ At.T, At @ At.T  # Q^T A (l, k), A^T A (k, k)
        num, den = num.copy(), den.copy()
        num[self.idx] += self.beta * (np.maximum(R, 0) + Vl @ np.maximum(-P, 0))
        den[self.idx] += self.beta * (np.maximum(-R, 0) + Vl @ np.maximum(P, 0))
        return num, den

    def penalty(self, V):
        Vl = V[self.idx]
        fit = float(np.sum((self.Qt - Vl @ self._A(Vl)) ** 2))
        return super().penalty(V) + self.beta * fit


class CCF(CF):
    """Constrained concept factorization (Liu, Yang, Wu, Cai 2014): CF with V = A Z, samples
    labelled alike forced onto one representation; no parameter of its own.

    fit_transform(X, y): y (n,) partial labels, -1 for unlabelled samples (or constraints=Z:
    the must-link components as labels); returns V = A Z.
    Attributes: label_matrix_ A (n, c + n - l); association_ U; n_iter_; objective_.
    """

    _parameter_constraints = {key: c for key, c in CF._parameter_constraints.items()
                              if key != "ncw"}
    semi_supervised = True
    positive_only = True  # the updates need K >= 0 (no Section 3.5 form)

    def __init__(self, n_components, *, kernel="linear", degree=2, loop_normalize=True,
                 n_restarts=10, min_iter=30, max_iter=100, tol=1e-5, random_state=None,
                 track_objective=False):
        super().__init__(n_components, kernel=kernel, degree=degree,
                         loop_normalize=loop_normalize, n_restarts=n_restarts,
                         min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state, track_objective=track_objective)

    def _rule(self, K, W, lam, gamma, y):
        self.label_matrix_ = label_matrix(partial_labels(y))
        return CCFRule(K, self.n_components, self.label_matrix_, self.loop_normalize)

    def _fit_transform(self, X, y=None, W=None, constraints=None):
        Z = super()._fit_transform(X, y, W, constraints)
        return np.asarray(self.label_matrix_ @ Z)


class _SemiSupervisedLCCF(LCCF):
    """LCCF's parameters without NC weighting, for the rules that add labels to its graph
    term; fit_transform(X, y, W=None, constraints=None): y partial labels (-1 unlabelled) or
    constraints Z (module docstring), W the p-NN graph if built (from X's rows otherwise)."""

    _parameter_constraints = {key: c for key, c in LCCF._parameter_constraints.items()
                              if key != "ncw"}
    semi_supervised = True
    positive_only = True  # the added terms have no Section 3.5 form for K with negative entries

    def __init__(self, n_components, *, lam=100.0, p=5, weight="cosine", kernel="linear",
                 degree=2, loop_normalize=True, start_norm="concepts", n_restarts=10,
                 min_iter=30, max_iter=100, tol=1e-5, random_state=None,
                 track_objective=False):
        super().__init__(n_components, lam=lam, p=p, weight=weight, kernel=kernel,
                         degree=degree, loop_normalize=loop_normalize, start_norm=start_norm,
                         n_restarts=n_restarts,
                         min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state, track_objective=track_objective)


class SemiLCCF(_SemiSupervisedLCCF):
    """LCCF on the labelled graph (LCCF paper Section 3.4): the p-NN graph's labelled block set
    to 1 within a class and 0 across classes (graphs.labelled_graph); given constraints Z, its
    must-link pairs set to 1 and cannot-link pairs to 0; lam 100, p 5."""

    def _affinity(self, X, W, y):
        W, lam = super()._affinity(X, W, y)
        return labelled_graph(W, y), lam


class CNPCF(_SemiSupervisedLCCF):
    """Constrained neighborhood preserving CF (CNPCFRule): lam = lambda_S on the p-NN graph
    (10 and p = 3 in the RCF paper), lam_h = lambda_H on the pairwise constraints (1)."""

    _parameter_constraints = {**_SemiSupervisedLCCF._parameter_constraints, "lam_h": [number()]}

    def __init__(self, n_components, *, lam=10.0, lam_h=1.0, p=3, weight="cosine", kernel="linear",
                 degree=2, loop_normalize=True, start_norm="concepts", n_restarts=10,
                 min_iter=30, max_iter=100, tol=1e-5, random_state=None,
                 track_objective=False):
        super().__init__(n_components, lam=lam, p=p, weight=weight, kernel=kernel,
                         degree=degree, loop_normalize=loop_normalize, start_norm=start_norm,
                         n_restarts=n_restarts,
                         min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state, track_objective=track_objective)
        self.lam_h = lam_h

    def _rule(self, K, W, lam, gamma, y):
        return CNPCFRule(K, self.n_components, W, lam, y, self.lam_h, self.loop_normalize,
                         self.start_norm)


class GDCF(_SemiSupervisedLCCF):
    """Graph-regularized discriminative CF (GDCFRule): lam = beta_2 on the p-NN graph (0.1 in
    the RCF paper), beta = beta_1 on the label fit (0.5)."""

    _parameter_constraints = {**_SemiSupervisedLCCF._parameter_constraints, "beta": [number()]}

    def __init__(self, n_components, *, lam=0.1, beta=0.5, p=5, weight="cosine", kernel="linear",
                 degree=2, loop_normalize=True, start_norm="concepts", n_restarts=10,
                 min_iter=30, max_iter=100, tol=1e-5, random_state=None,
                 track_objective=False):
        super().__init__(n_components, lam=lam, p=p, weight=weight, kernel=kernel,
                         degree=degree, loop_normalize=loop_normalize, start_norm=start_norm,
                         n_restarts=n_restarts,
                         min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state, track_objective=track_objective)
        self.beta = beta

    def _rule(self, K, W, lam, gamma, y):
        return GDCFRule(K, self.n_components, W, lam, partial_labels(y), self.beta,
                        self.loop_normalize, self.start_norm)


class RCF(_SemiSupervisedLCCF):
    """Regularized concept factorization (RCF paper Eq. 13): LCCF's update (Eqs. 19-20) on the
    dense graph W~ (Eq. 11) built from the p-NN graph W (Eq. 10) and the constraints
    propagated by E2CP with parameter alpha in [0, 1) (Section 3.1; it diverges at 1). lam
    100; p 5 and alpha 0.5 on TDT2, 4 and 0.3 on Reuters (Section 4.5). links: "both" (the
    method), or only the "must" or only the "cannot" links propagated (Fig. 3)."""

    _parameter_constraints = {**_SemiSupervisedLCCF._parameter_constraints,
                              "alpha": [number(0.0, 1.0, closed="left")],
                              "links": [options(*LINKS)]}

    def __init__(self, n_components, *, lam=100.0, alpha=0.5, links="both", p=5,
                 weight="cosine", kernel="linear", degree=2, loop_normalize=True,
                 start_norm="concepts", n_restarts=10, min_iter=30, max_iter=100, tol=1e-5,
                 random_state=None, track_objective=False):
        super().__init__(n_components, lam=lam, p=p, weight=weight, kernel=kernel,
                         degree=degree, loop_normalize=loop_normalize, start_norm=start_norm,
                         n_restarts=n_restarts,
                         min_iter=min_iter, max_iter=max_iter, tol=tol,
                         random_state=random_state, track_objective=track_objective)
        self.alpha = alpha
        self.links = links

    def _affinity(self, X, W, y):
        """W~ of Eq. (11): with products "auto" and partial labels, held as its sparse part
        and dense diagonal blocks (graphs.ConstrainedGraph: the same matrix, W~ V summed in
        another order, a ninth of the flops on TDT2's 27-class draws); else the dense array
        that made the committed digits."""
        W, lam = super()._affinity(X, W, y)
        a, b = LINKS[self.links]
        if fast_products() and not sp.issparse(y) and 2 * b >= a:
            return ConstrainedGraph(W, propagation_factors(W, y, self.alpha), a, b), lam
        return constrained_weights(W, propagate_constraints(W, y, self.alpha, self.links)), lam
