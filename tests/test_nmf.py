"""NMF and GNMF: objectives never increase, identities between variants, determinism."""

import numpy as np
import pytest
import scipy.sparse as sp

from docfact.algorithms import GNMF, NMF, KMeans, knn_graph
from docfact.algorithms.engine import _lowest, minimize
from docfact.algorithms.kernels import LinearKernel, ncw_scaling
from docfact.algorithms.nmf import GNMFRule, Samples
from tests.synthetic import (
    CountedProducts,
    products_per_iteration,
    replayed_starts,
    three_topics,
)


@pytest.fixture(scope="module")
def data():
    """Three noisy nonnegative clusters of 'documents' (rows), sparse, unit rows."""
    return three_topics(1, n_terms=40, per_class=20, noise=0.2)


def dense_objective(X, U, V, lam=0.0, W=None):
    """||X - U V^T||^2 + lam tr(V^T L V) computed densely, papers' orientation X (m, n)."""
    X = X.toarray().T
    obj = np.sum((X - U @ V.T) ** 2)
    if lam:
        L = np.diag(W.sum(1).A1) - W.toarray()
        obj += lam * np.trace(V.T @ L @ V)
    return obj


@pytest.mark.parametrize("lam", [0.0, 10.0, 1000.0])
@pytest.mark.parametrize("seed", range(3))
def test_objective_never_increases(data, lam, seed):
    X, _ = data
    W = knn_graph(X, 5)
    est = GNMF(3, lam=lam, n_restarts=1, max_iter=200, random_state=seed, track_objective=True)
    est.fit_transform(X, W=W)
    h = np.array(est.objective_)
    assert len(h) == 201
    assert np.all(np.diff(h) <= 1e-9 * h[:-1]), np.diff(h).max()
    assert h[-1] < h[0]


def test_a_graph_with_negative_weights_keeps_the_updates_monotone(data):
    """A given graph with negative weights (cosine weights of signed points) is split as
    graphs.signed_parts says: V stays nonnegative and Eq. 8, the signed L's objective, never
    increases (unsplit, W V in the numerator turned V negative and the fit into NaN)."""
    X, _ = data
    points = np.random.default_rng(3).normal(size=(X.shape[0], 2))
    W = knn_graph(points, 5, "cosine")
    assert W.min() < 0
    est = GNMF(3, lam=10.0, n_restarts=1, max_iter=200, random_state=0, track_objective=True)
    V = est.fit_transform(X, W=W)
    h = np.array(est.objective_)
    assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1])), np.diff(h).max()
    assert h[-1] < h[0] and V.min() >= 0
    rule = GNMFRule(X, 3, W, lam=10.0)
    U, V = rule.init(np.random.default_rng(0))
    assert rule.objective((U, V)) == pytest.approx(dense_objective(X, U, V, 10.0, W), rel=1e-10)


def test_objective_formula_matches_dense(data):
    X, _ = data
    W = knn_graph(X, 5)
    rule = GNMFRule(X, 3, W, lam=7.0)
    U, V = rule.init(np.random.default_rng(0))
    assert rule.objective((U, V)) == pytest.approx(dense_objective(X, U, V, 7.0, W), rel=1e-10)


def test_restart_selection_keeps_the_best_start(data):
    X, _ = data
    rule = GNMFRule(X, 3)
    fit = minimize(rule, n_restarts=6, min_iter=5, max_iter=6, random_state=3)
    objs = replayed_starts(rule, 6, 6, 3)  # each start alone, the same draws, 6 iterations
    assert fit.restart == int(np.argmin(objs))
    assert fit.objective[0] == pytest.approx(objs.min(), rel=1e-12)


@pytest.mark.parametrize("max_iter", [1, 4, 6])
def test_max_iter_below_the_restart_phase_caps_it(data, max_iter):
    """max_iter counts iterations in all: with min_iter + 1 = 6 > max_iter the starts run
    max_iter iterations, the best by its objective then is kept, and no iteration follows."""
    X, _ = data
    rule = GNMFRule(X, 3)
    fit = minimize(rule, n_restarts=6, min_iter=5, max_iter=max_iter, random_state=3)
    objs = replayed_starts(rule, 6, max_iter, 3)
    assert fit.n_iter == max_iter and fit.restart == int(np.argmin(objs))
    assert fit.objective == [pytest.approx(objs.min(), rel=1e-12)]


class _Replay:
    """A rule whose one start is the given factors (a copy): a start of the engine run alone."""

    def __init__(self, rule, F):
        self.rule, self.F = rule, F
        self.loop_normalize = rule.loop_normalize

    def init(self, rng):
        return tuple(a.copy() for a in self.F)

    def update(self, F):
        self.rule.update(F)

    def objective(self, F):
        return self.rule.objective(F)

    def normalize(self, F):
        self.rule.normalize(F)


def test_trials_run_every_start_to_its_stop_and_keep_the_lowest(data):
    """trials: each start runs by the stopping rule on its own (the engine's draws replayed
    one at a time), and the start of lowest final objective is returned, its factors and
    iterations those of its run alone; with a fixed length, the trials equal the selection
    after max_iter iterations side by side."""
    X, _ = data
    rule = GNMFRule(X, 3)
    fit = minimize(rule, n_restarts=4, min_iter=5, max_iter=None, random_state=3, trials=True)
    rng = np.random.default_rng(np.random.RandomState(3).randint(2**31))
    alone = [minimize(_Replay(rule, rule.init(rng)), n_restarts=1, min_iter=5, max_iter=None)
             for _ in range(4)]
    finals = [a.objective[-1] for a in alone]
    assert len({a.n_iter for a in alone}) > 1  # the starts stop at different iterations
    best = int(np.argmin(finals))
    assert fit.restart == best and fit.n_iter == alone[best].n_iter
    assert fit.objective[-1] == finals[best]
    for a, b in zip(fit.factors, alone[best].factors, strict=True):
        np.testing.assert_array_equal(a, b)
    side_by_side = minimize(rule, n_restarts=4, min_iter=39, max_iter=40, random_state=3)
    fixed = minimize(rule, n_restarts=4, min_iter=0, max_iter=40, random_state=3, trials=True)
    assert fixed.restart == side_by_side.restart
    for a, b in zip(fixed.factors, side_by_side.factors, strict=True):
        np.testing.assert_array_equal(a, b)


def test_gnmf_with_zero_lambda_is_nmf(data):
    X, _ = data
    V1 = NMF(3, random_state=5).fit_transform(X)
    V2 = GNMF(3, lam=0.0, random_state=5).fit_transform(X)
    np.testing.assert_allclose(V1, V2, rtol=1e-12, atol=1e-14)


def test_ncw_is_nmf_on_weighted_data(data):
    """NMF(ncw=True) on X equals NMF on D^-1/2 X^T with d = X^T X 1 (Xu et al.)."""
    X, _ = data
    Xd = X.toarray()
    d = Xd @ (Xd.T @ np.ones(X.shape[0]))
    np.testing.assert_allclose(ncw_scaling(LinearKernel(X)), d ** -0.5)
    V1 = NMF(3, ncw=True, random_state=2).fit_transform(X)
    V2 = NMF(3, random_state=2).fit_transform(sp.csr_matrix(Xd / np.sqrt(d)[:, None]))
    np.testing.assert_allclose(V1, V2, rtol=1e-10, atol=1e-12)


def test_sparse_and_dense_input_agree(data):
    X, _ = data
    V1 = GNMF(3, random_state=0).fit_transform(X)
    V2 = GNMF(3, random_state=0).fit_transform(X.toarray())
    np.testing.assert_allclose(V1, V2, rtol=1e-9, atol=1e-12)


def test_fixed_seed_is_deterministic_and_normalised(data):
    X, _ = data
    a, b = GNMF(3, random_state=11), GNMF(3, random_state=11)
    Va, Vb = a.fit_transform(X), b.fit_transform(X)
    np.testing.assert_array_equal(Va, Vb)
    np.testing.assert_allclose(np.linalg.norm(a.components_, axis=1), 1.0)
    assert not np.array_equal(Va, GNMF(3, random_state=12).fit_transform(X))


def test_gnmf_clusters_separated_data(data):
    X, y = data
    V = GNMF(3, random_state=0).fit_transform(X)
    labels = KMeans(3, n_replicates=10, random_state=0).fit(V).labels_
    from docfact.metrics import accuracy
    assert accuracy(y, labels) == 1.0


def test_running_mean_stopping_rule(data):
    X, _ = data
    est = NMF(3, max_iter=None, tol=1e-5, n_restarts=1, random_state=0)
    est.fit_transform(X)
    h = est.objective_
    assert len(h) == est.n_iter_ + 1
    # replay the rule: mean <- 0.1 mean + 0.9 obj from 10 obj_0, past min_iter = 30
    # iterations; it stops at the first iteration where (mean - obj) / mean < tol, and not before
    mean, gaps = 10 * h[0], []
    for obj in h[31:]:
        mean = 0.1 * mean + 0.9 * obj
        gaps.append((mean - obj) / mean)
    assert gaps[-1] < 1e-5 and all(g >= 1e-5 for g in gaps[:-1])


def test_running_mean_rule_waits_for_min_iter(data):
    """The rule is not applied before min_iter iterations, also with a single start."""
    X, _ = data
    free = NMF(3, max_iter=None, n_restarts=1, min_iter=0, random_state=0)
    free.fit_transform(X)
    gated = NMF(3, max_iter=None, n_restarts=1, min_iter=free.n_iter_ + 20, random_state=0)
    gated.fit_transform(X)
    assert gated.n_iter_ > free.n_iter_ + 20


@pytest.mark.parametrize("bad", [{"lam": -1.0}, {"p": 0}, {"weight": "gauss"}, {"n_restarts": 0},
                                 {"max_iter": 0}])
def test_invalid_parameters_are_named(data, bad):
    X, _ = data
    with pytest.raises(ValueError, match=next(iter(bad))):
        GNMF(3, **bad).fit_transform(X)


def test_negative_input_is_refused():
    with pytest.raises(ValueError, match="Negative values"):
        NMF(2).fit_transform(-np.ones((4, 3)))



@pytest.mark.parametrize("ncw", [False, True])
def test_transform_solves_the_projection_on_the_fitted_basis(data, ncw):
    """transform: V >= 0 minimising ||X - U V^T||^2 for the fitted U (on the NC-weighted
    samples D^-1/2 X, d = X X^T 1, with ncw), at its KKT point: the gradient V U^T U - X^T U is
    >= 0 and vanishes where V > 0. On the fitted samples it clusters them as the fit does."""
    from docfact.metrics import accuracy

    X, _ = data
    est = NMF(3, ncw=ncw, random_state=0)
    V = est.fit_transform(X)
    P = est.set_params(max_iter=3000).transform(X)
    Xs = X.toarray()
    if ncw:
        Xs /= np.sqrt(X @ (X.T @ np.ones(X.shape[0])))[:, None]
    U = est.components_.T
    G = P @ (U.T @ U) - Xs @ U
    scale = np.abs(G).max()
    assert G.min() >= -1e-3 * scale
    assert np.abs(P * G).max() <= 1e-3 * np.abs(P).max() * scale
    assert accuracy(V.argmax(axis=1), P.argmax(axis=1)) == 1.0


def test_the_lowest_objective_wins_and_a_nan_never_does():
    """Both restart protocols choose by this: a start whose objective is NaN (start 0
    included) loses to any finite one; ties go to the first start."""
    nan = float("nan")
    assert _lowest([3.0, 1.0, 2.0, 1.0]) == 1
    assert _lowest([nan, 2.0, 1.5]) == 2
    assert _lowest([1.0, nan]) == 0
    assert _lowest([nan, nan]) == 0


def test_nmf_objective_shares_xt_v_with_the_update_before_it(data):
    """Stopped by the objective (PSPt's and LCF's tables), NMF takes X^T V once per iteration:
    Eq. (15)'s X^T V of the updated V is the objective's (kernels.LastProduct)."""

    class CountedSamples(CountedProducts, Samples):
        """X^T's products, counted."""

    rule = GNMFRule(data[0], 3)
    op = rule.XtV.op = CountedSamples(rule.Xt, rule.batch)
    assert products_per_iteration(rule, op) == 1
