"""CF and LCCF: monotone updates, sparse form = dense form, Appendix B, kernel identities."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import check_random_state

from docfact.algorithms import CF, LCCF, KMeans, SpectralClustering, knn_graph, polynomial_kernel
from docfact.algorithms.cf import LCCFRule
from docfact.algorithms.engine import minimize
from docfact.algorithms.graphs import degrees
from docfact.algorithms.kernels import DenseKernel, LinearKernel, ncw_scaling
from docfact.algorithms.spectral import top_eigenvectors
from docfact.metrics import accuracy
from tests.synthetic import replayed_starts, three_topics


@pytest.fixture(scope="module")
def data():
    return three_topics(3, n_terms=30, per_class=15, noise=0.3)


def history(est, X, **fit):
    est.set_params(n_restarts=1, max_iter=150, loop_normalize=False, track_objective=True)
    est.fit_transform(X, **fit)
    return np.array(est.objective_)


@pytest.mark.parametrize("make", [
    lambda: CF(3, random_state=0),
    lambda: CF(3, ncw=True, random_state=1),
    lambda: CF(3, kernel="polynomial", random_state=2),
    lambda: LCCF(3, lam=100, random_state=0),
    lambda: LCCF(3, lam=100, ncw=True, random_state=1),
    lambda: LCCF(3, lam=10, kernel="polynomial", ncw=True, random_state=2),
    lambda: LCCF(3, lam=100, start_norm="V", random_state=3),
], ids=["CF", "CF-NCW", "CF-poly", "LCCF", "LCCF-NCW", "LCCF-poly-NCW", "LCCF-start-V"])
def test_objective_never_increases(data, make):
    X, _ = data
    h = history(make(), X)
    assert np.all(np.diff(h) <= 1e-9 * h[:-1]), np.diff(h).max()
    assert h[-1] < h[0]


def test_signed_kernel_updates_never_increase_the_objective():
    """Section 3.5: data with negative entries give K with negative entries."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 6))
    K = X @ X.T
    assert K.min() < 0
    for lam, W in [(0.0, None), (5.0, knn_graph(X, 4))]:
        est = LCCF(3, lam=lam, kernel="precomputed", random_state=0) if W is not None else CF(
            3, kernel="precomputed", random_state=0)
        h = history(est, K, **({"W": W} if W is not None else {}))
        assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1])), np.diff(h).max()


def test_graph_with_negative_weights_is_split_and_the_updates_stay_monotone():
    """Cosine weights of signed data can be negative: W = W+ - W- is split as K is (Section
    3.5), so the factors stay nonnegative, no square root of a negative number is taken, and
    the objective never increases; with the signed kernel and with a nonnegative one."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    W = knn_graph(X, 5, "cosine")
    assert W.min() < 0
    K_signed = X @ X.T
    K_nonneg = np.abs(K_signed)
    for K in (K_signed, K_nonneg):
        rule = LCCFRule(DenseKernel(K), 3, W, lam=10.0)
        assert rule.W.min() >= 0 and rule.neg.W.min() >= 0
        est = LCCF(3, lam=10.0, kernel="precomputed", random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            h = history(est, K, W=W)
            V = est.fit_transform(K, W=W)
        assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1])), np.diff(h).max()
        assert h[-1] < h[0] and V.min() >= 0


def test_cf_is_lccf_with_zero_lambda(data):
    X, _ = data
    np.testing.assert_allclose(CF(3, random_state=4).fit_transform(X),
                               LCCF(3, lam=0.0, random_state=4).fit_transform(X),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("ncw", [False, True])
def test_sparse_form_equals_dense_kernel(data, ncw):
    X, _ = data
    K = (X @ X.T).toarray()
    W = knn_graph(X, 5, "cosine")
    V_sparse = LCCF(3, ncw=ncw, random_state=9).fit_transform(X, W=W)
    V_dense = LCCF(3, ncw=ncw, kernel="precomputed", random_state=9).fit_transform(K, W=W)
    np.testing.assert_allclose(V_sparse, V_dense, rtol=1e-8, atol=1e-10)


def test_weighted_objective_of_appendix_b(data):
    """sum_j gamma_j ||x_j - X W z_j||^2 + lam tr(V^T L V) equals the transformed objective."""
    X, _ = data
    Xd = X.toarray()  # samples as rows: the papers' X is Xd.T
    lam, S = 50.0, knn_graph(X, 5, "cosine")
    K = LinearKernel(X)
    g = ncw_scaling(K)  # G = Gamma^1/2, gamma_j = 1 / d_j
    rule = LCCFRule(K.scaled(g), 3, S, lam, gamma=g)
    rng = np.random.default_rng(0)
    W1, V1 = rng.random((45, 3)), rng.random((45, 3))  # W', V' of the weighted problem
    W, V = g[:, None] * W1, V1 / g[:, None]  # W = G W', V = G^-1 V'
    R = Xd.T - Xd.T @ W @ V.T  # residuals, one column per document
    L = np.diag(degrees(S)) - S.toarray()
    weighted = np.sum(g**2 * np.sum(R * R, axis=0)) + lam * np.trace(V.T @ L @ V)
    assert rule.objective((W1, V1)) == pytest.approx(weighted, rel=1e-10)


def test_lccf_normalises_concepts(data):
    X, y = data
    est = LCCF(3, random_state=0)
    V = est.fit_transform(X)
    W = est.association_
    np.testing.assert_allclose(np.sum(W * LinearKernel(X).dot(W), axis=0), 1.0)
    labels = KMeans(3, n_replicates=10, random_state=0).fit(V).labels_
    assert accuracy(y, labels) == 1.0


def test_starts_scaled_as_the_reference_code(data):
    """start_norm="V" draws each start with V's columns at unit length (LCCF_Multi.m's
    NormalizeUV with NormV = 1), U V^T the draw's; CF's fit does not depend on the start's
    scale (to rounding), LCCF's graph term does."""
    X, _ = data
    rule = LCCFRule(LinearKernel(X), 3, start_norm="V")
    U, V = rule.init(np.random.default_rng(0))
    product = U @ V.T
    rule.normalize_start((U, V))
    np.testing.assert_allclose(np.linalg.norm(V, axis=0), 1.0)
    np.testing.assert_allclose(U @ V.T, product)
    fits = [LCCF(3, lam=0, start_norm=s, random_state=0).fit_transform(X)  # CF
            for s in ("concepts", "V")]
    np.testing.assert_allclose(fits[0], fits[1], rtol=1e-6)
    fits = [LCCF(3, lam=100, start_norm=s, random_state=0).fit_transform(X)
            for s in ("concepts", "V")]
    assert not np.allclose(fits[0], fits[1], rtol=1e-3)


def test_concepts_normalised_in_the_loop(data):
    """loop_normalize="concepts" (RCF's Eqs. 21-22 with every update): each iteration past
    min_iter ends with u_k^T K u_k = 1; the engine's fit equals that loop replayed by hand,
    and differs from the fits with V's columns normalised and with no rescaling."""
    X, _ = data
    K, S = LinearKernel(X), knn_graph(X, 5, "cosine")
    fits = {mode: minimize(LCCFRule(K, 3, S, lam=100, loop_normalize=mode), n_restarts=1,
                           min_iter=0, max_iter=20, random_state=0).factors
            for mode in ("concepts", True, False)}
    rule = LCCFRule(K, 3, S, lam=100)
    F = rule.init(np.random.default_rng(check_random_state(0).randint(2**31)))
    rule.normalize(F)
    for _ in range(20):
        rule.update(F)
        rule.normalize(F)
        np.testing.assert_allclose(np.sum(F[0] * K.dot(F[0]), axis=0), 1.0)
    for a, b in zip(fits["concepts"], F, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert not np.allclose(fits["concepts"][1], fits[True][1], rtol=1e-3)
    assert not np.allclose(fits["concepts"][1], fits[False][1], rtol=1e-3)


def test_kernel_kmeans_with_linear_kernel_is_kmeans(data):
    X, _ = data
    K = (X @ X.T).toarray()
    for seed in range(5):
        a = KMeans(3, n_replicates=2, random_state=seed).fit(X)
        b = KMeans(3, n_replicates=2, kernel="precomputed", random_state=seed).fit(K)
        np.testing.assert_array_equal(a.labels_, b.labels_)
        assert a.inertia_ == pytest.approx(b.inertia_, rel=1e-8)


def test_ncw_kmeans_is_kmeans_on_weighted_rows(data):
    X, _ = data
    Xd = X.toarray()
    d = Xd @ (Xd.T @ np.ones(45))
    a = KMeans(3, ncw=True, random_state=1).fit(X).labels_
    b = KMeans(3, random_state=1).fit(Xd / np.sqrt(d)[:, None]).labels_
    np.testing.assert_array_equal(a, b)


def test_polynomial_kernel_and_its_ncw_form(data):
    X, _ = data
    Xd = X.toarray()
    K = polynomial_kernel(X, 2)
    np.testing.assert_allclose(K, (Xd @ Xd.T) ** 2)
    g = ncw_scaling(DenseKernel(K))
    Kn = DenseKernel(K).scaled(g).K
    D = np.diag(K.sum(1) ** -0.5)
    np.testing.assert_allclose(Kn, D @ K @ D)


@pytest.mark.parametrize("ncw", [False, True])
def test_spectral_sparse_eigenvectors_equal_dense(data, ncw):
    """AA/NC's eigenvectors from the sparse SVD equal those of the dense affinity (up to sign)."""
    X, _ = data
    K = LinearKernel(X)
    if ncw:
        K = K.scaled(ncw_scaling(K))
    rng = np.random.RandomState(0)
    Y1 = top_eigenvectors(K, 3, rng)
    Y2 = top_eigenvectors(DenseKernel(K.dense()), 3, rng)
    np.testing.assert_allclose(np.abs(Y1.T @ Y2), np.eye(3), atol=1e-8)


@pytest.mark.parametrize("n", [4, 60])
def test_dense_kernel_eigenvectors_are_the_leading_ones(n):
    """Lanczos (n = 60) and the full decomposition (k >= n - 1: n = 4) give the k leading
    eigenvectors of a dense kernel, as a full eigendecomposition orders them."""
    rng = np.random.RandomState(1)
    A = rng.rand(n, 8)
    K = (A @ A.T) ** 2
    k = 3
    values, vectors = np.linalg.eigh(K)
    Y = top_eigenvectors(DenseKernel(K), k, np.random.RandomState(0))
    np.testing.assert_allclose(np.abs(Y.T @ vectors[:, ::-1][:, :k]), np.eye(k), atol=1e-8)


def test_dense_kernel_eigenvectors_when_lanczos_does_not_converge(monkeypatch):
    """An ARPACK that does not converge falls back to the full decomposition, not an error."""
    from scipy.sparse.linalg import ArpackNoConvergence

    from docfact.algorithms import kernels

    calls = []

    def fails(*args, **kwargs):
        calls.append(args)
        raise ArpackNoConvergence("no convergence", np.empty(0), np.empty((0, 0)))

    monkeypatch.setattr(kernels, "eigsh", fails)
    A = np.random.RandomState(2).rand(40, 6)
    K = (A @ A.T) ** 2
    values, vectors = np.linalg.eigh(K)
    Y = top_eigenvectors(DenseKernel(K), 3, np.random.RandomState(0))
    assert calls  # Lanczos was tried, and its failure is what the answer survived
    np.testing.assert_allclose(np.abs(Y.T @ vectors[:, ::-1][:, :3]), np.eye(3), atol=1e-8)


def test_spectral_clusters_separated_data(data):
    X, y = data
    for ncw in (False, True):
        labels = SpectralClustering(3, ncw=ncw, n_replicates=5, random_state=0).fit(X).labels_
        assert accuracy(y, labels) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_engine_continues_the_start_of_lowest_objective(data, seed):
    """Each of CF's 4 starts replayed alone from the same draws (min_iter + 1 = 4 iterations,
    the last followed by LCCF.m's normalisation): the engine continues the one of lowest
    objective, for 10 iterations in all."""
    X, _ = data
    rule = LCCFRule(LinearKernel(X), 3)
    fit = minimize(rule, n_restarts=4, min_iter=3, max_iter=10, random_state=seed)
    objectives = replayed_starts(rule, 4, 4, seed)
    assert fit.restart == int(np.argmin(objectives)) and fit.n_iter == 10
    assert fit.objective[0] == pytest.approx(min(objectives), rel=1e-12)


class OneStartAtATime:
    """A rule without update_all: the engine then advances the starts one by one."""

    def __init__(self, rule):
        self.rule = rule
        self.loop_normalize = rule.loop_normalize

    def __getattr__(self, name):
        if name == "update_all":
            raise AttributeError(name)
        return getattr(self.rule, name)


@pytest.mark.parametrize("operator", ["linear", "dense"])
def test_starts_advanced_together_equal_starts_advanced_one_by_one(data, operator):
    """Batching the starts' products (K, and the sparse graph W) changes nothing but rounding:
    the same start wins and the factors agree to 1e-9, bit for bit for the linear kernel of
    sparse X, whose products and the graph's keep the digits of one start at a time."""
    X, _ = data
    K = LinearKernel(X) if operator == "linear" else DenseKernel(polynomial_kernel(X, 2))
    S = knn_graph(X, 5, "cosine")
    fits = [minimize(make(LCCFRule(K, 3, S, lam=10)), n_restarts=6, min_iter=20, max_iter=60,
                     random_state=7) for make in (lambda r: r, OneStartAtATime)]
    assert fits[0].restart == fits[1].restart and fits[0].n_iter == fits[1].n_iter == 60
    for a, b in zip(fits[0].factors, fits[1].factors, strict=True):
        if operator == "linear":
            assert np.array_equal(a, b)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
def test_shi_malik_embedding_is_the_generalized_eigenvectors_of_the_cut(data, kernel):
    """NC's embedding "shi_malik" spans the top-k generalized eigenvectors of K y = mu D y
    (D = diag(K 1)), the relaxed indicators of Shi and Malik's normalized cut, solved here by
    scipy's generalized eigensolver; "eigenvectors" spans D^1/2 of them, and AA (no weighting)
    is the same under both."""
    from scipy.linalg import eigh, subspace_angles

    X, _ = data
    K = polynomial_kernel(X, 2) if kernel == "polynomial" else (X @ X.T).toarray()
    d = K.sum(axis=1)
    _, Z = eigh(K, np.diag(d), subset_by_index=[len(K) - 3, len(K) - 1])
    fits = {e: SpectralClustering(3, kernel=kernel, ncw=True, embedding=e, random_state=0).fit(X)
            for e in ("eigenvectors", "shi_malik")}
    assert subspace_angles(fits["shi_malik"].embedding_, Z).max() < 1e-6
    assert subspace_angles(fits["eigenvectors"].embedding_, np.sqrt(d)[:, None] * Z).max() < 1e-6
    assert subspace_angles(fits["eigenvectors"].embedding_, Z).max() > 1e-3
    aa = [SpectralClustering(3, kernel=kernel, embedding=e, random_state=0).fit(X).embedding_
          for e in ("eigenvectors", "shi_malik")]
    assert np.array_equal(*aa)
    rng = np.random.RandomState(0)  # as the fit draws: the linear kernel's Lanczos start first
    if kernel == "linear":
        rng.uniform(-1, 1, min(X.shape))
    fit = fits["shi_malik"]
    np.testing.assert_array_equal(
        fit.labels_, KMeans(3, random_state=rng).fit(fit.embedding_).labels_)


def test_spectral_refuses_k_beyond_the_rank():
    X = np.array([[1.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 2, 0]])  # rank 2
    for kernel in ("linear", "polynomial"):
        with pytest.raises(ValueError, match="exceeds the rank"):
            SpectralClustering(3, kernel=kernel, random_state=0).fit(sp.csr_matrix(X))
    labels = SpectralClustering(2, random_state=0).fit(sp.csr_matrix(X)).labels_
    assert accuracy([0, 0, 1, 1, 1], labels) == 1.0


def assert_lccf_limit_is_kkt(X, S, lam: float):
    """LCCF's updates (Eqs. 17, 18) iterated to a limit on the graph S (n, n): the gradient of
    ||X - X W V^T||^2 + lam tr(V^T (D - S) V), by forward differences (a brute-force evaluation,
    not the updates' algebra), is >= 0 and vanishes where W and V are positive."""
    from tests.test_lcf import assert_kkt, forward_gradient

    Xt = X.toarray().T
    L = np.diag(S.sum(axis=1)) - S

    def objective(W, V):
        return np.sum((Xt - Xt @ W @ V.T) ** 2) + lam * np.trace(V.T @ L @ V)

    rule = LCCFRule(LinearKernel(X), 3, S, lam, loop_normalize=False)
    W, V = rule.init(np.random.default_rng(0))
    for _ in range(20000):
        rule.update((W, V))
    assert objective(W, V) < 0.5 * np.sum(Xt**2)  # not the trivial KKT point W = V = 0
    assert_kkt(W, forward_gradient(lambda A: objective(A, V), W))
    assert_kkt(V, forward_gradient(lambda A: objective(W, A), V))


def test_lccf_limit_satisfies_the_kkt_conditions_of_eq_10(data):
    """Eq. (10) on the p-NN cosine graph (Eq. 8) of 23 documents."""
    X, _ = data
    X = X[::2]
    assert_lccf_limit_is_kkt(X, knn_graph(X, 3, "cosine").toarray(), lam=2.0)
