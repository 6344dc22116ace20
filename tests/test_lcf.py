"""LCF and SparseNMF: monotone updates, objectives against brute force, constraints held."""

import numpy as np
import pytest
from scipy.optimize import minimize as scipy_minimize

from docfact.algorithms import CF, LCF, SparseNMF, polynomial_kernel
from docfact.algorithms.cf import LCCFRule
from docfact.algorithms.engine import mu_step
from docfact.algorithms.kernels import DenseKernel, LinearKernel
from docfact.algorithms.lcf import LCFRule
from docfact.algorithms.sparse_nmf import SparseNMFRule, l1_for, project
from tests.synthetic import Counted, objective_history, products_per_iteration


@pytest.fixture(scope="module")
def faces():
    """Three groups of nonnegative 'images' (rows), scaled to unit norm, and their labels."""
    rng = np.random.default_rng(11)
    centers = rng.random((3, 40))
    X = np.vstack([c + 0.4 * rng.random((12, 40)) for c in centers])
    return X / np.linalg.norm(X, axis=1, keepdims=True), np.repeat([0, 1, 2], 12)


def sparseness(x):
    """Hoyer's Eq. (1)."""
    n = len(x)
    return (np.sqrt(n) - np.abs(x).sum() / np.linalg.norm(x)) / (np.sqrt(n) - 1)


def brute_lcf_objective(X, W, V, lam):
    """Eq. (2) written out: X (N, m) samples as rows, anchors u_k = sum_j w_jk x_j."""
    U = W.T @ X  # (K, m), the anchors as rows
    error = np.sum((X - V @ U) ** 2)
    locality = sum(V[i, k] * np.sum((U[k] - X[i]) ** 2)
                   for i in range(X.shape[0]) for k in range(U.shape[0]))
    return error + lam * locality


@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
@pytest.mark.parametrize("lam", [0.0, 0.3, 5.0])
def test_lcf_objective_never_increases_under_each_update(faces, kernel, lam):
    X, _ = faces
    K = LinearKernel(X) if kernel == "linear" else DenseKernel(polynomial_kernel(X))
    rule = LCFRule(K, 3, lam)
    U, V = rule.init(np.random.default_rng(0))
    last = rule.objective((U, V))
    for _ in range(60):
        KU = K.dot(U)
        rule.update_V(U, V, KU)  # Eq. (5)
        after_V = rule.objective((U, V))
        rule.update_U(U, V, KU, K.dot(V))  # Eq. (4)
        after_W = rule.objective((U, V))
        assert after_V <= last * (1 + 1e-12) and after_W <= after_V * (1 + 1e-12)
        last = after_W


def test_lcf_objective_is_eq_2(faces):
    X, _ = faces
    rule = LCFRule(LinearKernel(X), 3, 0.7)
    W, V = rule.init(np.random.default_rng(1))
    assert rule.objective((W, V)) == pytest.approx(brute_lcf_objective(X, W, V, 0.7), rel=1e-10)


def test_lcf_with_zero_lambda_is_cf(faces):
    X, _ = faces
    lcf, cf = LCF(3, lam=0.0, random_state=4), CF(3, loop_normalize=False, random_state=4)
    V_lcf, V_cf = lcf.fit_transform(X), cf.fit_transform(X)
    # the same factorization; CF then scales its concepts to unit norm, LCF keeps its anchors
    np.testing.assert_allclose(V_lcf @ lcf.association_.T, V_cf @ cf.association_.T,
                               rtol=1e-10, atol=1e-12)
    assert lcf.objective_ == pytest.approx(cf.objective_, rel=1e-12)


def test_locality_term_pulls_anchors_to_the_samples_they_code(faces):
    """The coding-weighted mean squared distance of samples to their anchors falls as lambda
    grows: what the locality constraint is for."""
    X, _ = faces

    def spread(lam):
        est = LCF(3, lam=lam, n_restarts=1, max_iter=200, random_state=2)
        V = est.fit_transform(X)
        U = est.association_.T @ X
        d = ((X[:, None, :] - U[None, :, :]) ** 2).sum(axis=2)
        return np.sum(V * d) / np.sum(V)

    assert spread(10.0) < spread(1.0) < spread(0.0)


def test_lcf_is_deterministic_and_clusters_separated_data(faces):
    from docfact.algorithms import KMeans
    from docfact.metrics import accuracy

    X, y = faces
    V1 = LCF(3, random_state=5).fit_transform(X)
    V2 = LCF(3, random_state=5).fit_transform(X)
    assert np.array_equal(V1, V2)
    assert accuracy(y, KMeans(3, n_replicates=10, random_state=0).fit(V1).labels_) > 0.9


def test_lcf_refuses_a_kernel_with_negative_entries():
    X = np.array([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.2]])
    with pytest.raises(ValueError, match="Negative values"):
        LCF(2, kernel="precomputed").fit_transform(X @ X.T)


@pytest.mark.parametrize("seed", range(5))
def test_projection_is_the_closest_point_with_the_norms(seed):
    """Hoyer's projection against a general constrained solver (SLSQP, several starts)."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=6)
    L1, L2 = 1.6, 1.0
    v = project(s, L1, L2)
    assert (v >= 0).all()
    assert v.sum() == pytest.approx(L1) and np.linalg.norm(v) == pytest.approx(L2)
    cons = [{"type": "eq", "fun": lambda x: x.sum() - L1},
            {"type": "eq", "fun": lambda x: x @ x - L2**2}]
    best = min(scipy_minimize(lambda x: np.sum((x - s) ** 2), x0, method="SLSQP",
                              bounds=[(0, None)] * 6, constraints=cons).fun
               for x0 in rng.random((20, 6)))
    assert np.sum((v - s) ** 2) <= best + 1e-6


@pytest.mark.parametrize("s_U,s_V", [(None, 0.5), (0.6, None), (0.3, 0.7)])
def test_sparse_nmf_never_increases_and_holds_the_sparseness(faces, s_U, s_V):
    X, _ = faces
    rule = SparseNMFRule(X, 3, s_U, s_V)
    F = rule.init(np.random.default_rng(3))
    history = objective_history(rule, F, 80)
    assert np.all(np.diff(history) <= 1e-12 * np.abs(history[:-1]))
    assert history[-1] < 0.8 * history[0]  # and it makes progress
    U, V, _ = F
    np.testing.assert_allclose(np.linalg.norm(V, axis=0), 1.0)
    for target, A in ((s_U, U), (s_V, V)):
        if target is not None:
            assert [sparseness(A[:, j]) for j in range(3)] == pytest.approx([target] * 3)


def test_l1_of_a_sparseness_inverts_eq_1():
    v = project(np.random.default_rng(0).random(50), l1_for(0.4, 50), 1.0)
    assert sparseness(v) == pytest.approx(0.4)


def test_sparse_nmf_estimator_is_deterministic(faces):
    X, _ = faces
    a = SparseNMF(3, sparseness_U=0.5, sparseness_V=None, random_state=1).fit_transform(X)
    b = SparseNMF(3, sparseness_U=0.5, sparseness_V=None, random_state=1).fit_transform(X)
    assert np.array_equal(a, b) and a.shape == (36, 3)


@pytest.mark.parametrize("params,message", [
    ({"sparseness_V": 1.5}, "'sparseness_V' parameter of SparseNMF must be"),
    ({"sparseness_U": "high"}, "'sparseness_U' parameter of SparseNMF must be"),
    ({"sparseness_V": None}, "set sparseness_U or sparseness_V"),
])
def test_sparse_nmf_invalid_parameters_are_named(faces, params, message):
    with pytest.raises(ValueError, match=message):
        SparseNMF(3, **params).fit_transform(faces[0])


def test_lcf_invalid_lambda_is_named(faces):
    with pytest.raises(ValueError, match="'lam' parameter of LCF must be"):
        LCF(3, lam=-1).fit_transform(faces[0])


def forward_gradient(f, F, h=1e-7):
    """The gradient of f at F by forward differences: an independent computation, and the
    one-sided derivative the KKT conditions of F >= 0 ask for at F = 0."""
    G, f0 = np.zeros_like(F), f(F)
    for idx in np.ndindex(F.shape):
        E = np.zeros_like(F)
        E[idx] = h
        G[idx] = (f(F + E) - f0) / h
    return G


def assert_kkt(F, G, slack=1e-3, complementarity=1e-3):
    """KKT of min f over F >= 0 at a limit: G >= 0 (up to `slack` of the largest |G|) and
    F * G = 0 (up to `complementarity`, relative to max F and max |G|). At a random start
    G.min() is about +0.5 of max |G| and max |F * G| about 0.9: the second check fails there."""
    scale = np.abs(G).max()
    assert G.min() >= -slack * scale, G.min() / scale
    assert np.abs(F * G).max() <= complementarity * np.abs(F).max() * scale


class _MisweightedU(LCFRule):
    """A wrong U update (the locality term's weights averaged over concepts), for the check."""

    def update_U(self, U, V, KU, KV):
        mu_step(U, (1 + self.lam) * KV, KU @ (V.T @ V) + self.lam * KU * V.sum(axis=0).mean())


@pytest.mark.parametrize("rule_class,holds", [(LCFRule, True), (_MisweightedU, False)])
def test_lcf_limit_satisfies_the_kkt_conditions_of_eq_2(rule_class, holds):
    """20000 iterations of Eqs. (5), (4) on 15 samples: the gradient of Eq. (2) itself (forward
    differences of brute_lcf_objective, not the updates' algebra) is >= 0 and vanishes where U
    and V are positive; a wrong U update fails the same check. V's conditions hold within 1e-3;
    U's anchor weights converge slowly at the boundary (one of them, 1.6e-4, still rises with a
    gradient of -0.027 of the largest, -0.022 after 40000 iterations; Eq. (4) alone from this
    point, V held, takes it to 4.1e-3 and -0.0009 in 200000 more: slow, not a wrong fixed
    point), so U's sign check allows 0.03 of the largest gradient, against -0.53 for the wrong
    update."""
    rng = np.random.default_rng(11)
    X = np.vstack([c + 0.4 * rng.random((5, 8)) for c in rng.random((3, 8))])
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    rule = rule_class(LinearKernel(X), 3, 0.3)
    U, V = rule.init(np.random.default_rng(0))
    for _ in range(20000):
        rule.update((U, V))
    assert rule.objective((U, V)) < 0.1 * rule.trace_K  # not the trivial KKT point U = V = 0
    if not holds:
        with pytest.raises(AssertionError):
            assert_kkt(U, forward_gradient(lambda A: brute_lcf_objective(X, A, V, 0.3), U),
                       slack=0.03)
        return
    assert_kkt(U, forward_gradient(lambda A: brute_lcf_objective(X, A, V, 0.3), U), slack=0.03)
    assert_kkt(V, forward_gradient(lambda A: brute_lcf_objective(X, U, A, 0.3), V))


def test_lcf_cf_start_begins_where_cf_stops(faces):
    """init="cf": a start is CF's fit from a random start (lambda = 0, its running-mean rule):
    one more CF update barely moves CF's objective there, while from a random start it does."""
    from docfact.algorithms.cf import LCCFRule

    X, _ = faces
    K = LinearKernel(X)
    cf = LCCFRule(K, 3, loop_normalize=False)

    def cf_progress(F):
        before = cf.objective(F)
        cf.update(F)
        return (before - cf.objective(F)) / before

    assert cf_progress(LCFRule(K, 3, 0.3, init="cf").init(np.random.default_rng(0))) < 1e-4
    assert cf_progress(LCFRule(K, 3, 0.3).init(np.random.default_rng(0))) > 1e-2
    with pytest.raises(ValueError, match="'init' parameter of LCF must be"):
        LCF(3, init="nmf").fit_transform(X)


def test_cf_and_lcf_share_k_u_between_objective_and_next_update(faces):
    """Stopped by the objective (LCF's tables), CF and LCF take K U and K V per iteration: the
    objective's K U of the updated U is the next iteration's (kernels.LastProduct)."""
    K = faces[0] @ faces[0].T
    for make in (lambda op: LCCFRule(op, 3, loop_normalize=False),
                 lambda op: LCFRule(op, 3, 0.3)):
        op = Counted(K)
        assert products_per_iteration(make(op), op) == 2
