"""NMF-HHt and NMF-PSPt: monotone updates, objectives against brute force, operator forms."""

import numpy as np
import pytest

from docfact.algorithms import PSPt, SymmetricNMF
from docfact.algorithms.kernels import DenseKernel, affinity
from docfact.algorithms.symmetric import HHtRule, PSPtRule
from docfact.metrics import accuracy
from tests.synthetic import objective_history, three_topics


@pytest.fixture(scope="module")
def docs():
    """Three topics of sparse unit-length 'documents' and their labels."""
    return three_topics(3, n_terms=30, per_class=15, noise=0.3)


def dense_affinity(X, ncw):
    W = (X @ X.T).toarray()
    if ncw:
        g = 1 / np.sqrt(W.sum(axis=1))
        W = g[:, None] * W * g[None, :]
    return W


@pytest.mark.parametrize("ncw", [False, True], ids=["AA", "NC"])
def test_hht_objective_never_increases_and_is_the_frobenius_error(docs, ncw):
    W, _ = affinity(docs[0], ncw=ncw)
    rule = HHtRule(W, 3)
    F = rule.init(np.random.default_rng(0))
    history = objective_history(rule, F, 100)
    assert np.all(np.diff(history) <= 1e-12 * np.abs(history[:-1]))
    (H,) = F
    brute = np.sum((dense_affinity(docs[0], ncw) - H @ H.T) ** 2)
    assert history[-1] == pytest.approx(brute, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("ncw", [False, True], ids=["AA", "NC"])
@pytest.mark.parametrize("eta", [0.8, 0.3])
def test_pspt_objective_never_increases_under_eq_6_and_eq_8(docs, ncw, eta):
    W, _ = affinity(docs[0], ncw=ncw)
    rule = PSPtRule(W, 3, eta)
    P, s = rule.init(np.random.default_rng(1))
    last = rule.objective((P, s))
    for _ in range(100):
        rule.update_P(P, s)  # Eq. (6)
        after_P = rule.objective((P, s))
        rule.update_S(P, s)  # Eq. (8)
        after_S = rule.objective((P, s))
        assert after_P <= last * (1 + 1e-12) and after_S <= after_P * (1 + 1e-12)
        last = after_S
    n, k = P.shape
    brute = (eta / n**2 * np.sum((dense_affinity(docs[0], ncw) - (P * s) @ P.T) ** 2)
             + (1 - eta) / k**2 * np.sum((P.T @ P - np.eye(k)) ** 2))
    assert last == pytest.approx(brute, rel=1e-9)


@pytest.mark.parametrize("make", [SymmetricNMF, PSPt])
@pytest.mark.parametrize("ncw", [False, True], ids=["AA", "NC"])
def test_sparse_operator_equals_precomputed_affinity(docs, make, ncw):
    X = docs[0]
    a = make(3, ncw=ncw, random_state=2).fit_transform(X)
    b = make(3, ncw=ncw, kernel="precomputed", random_state=2).fit_transform(
        (X @ X.T).toarray())
    np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


def test_nc_form_factorizes_the_weighted_affinity(docs):
    a = SymmetricNMF(3, ncw=True, random_state=4).fit_transform(docs[0])
    b = SymmetricNMF(3, kernel="precomputed", random_state=4).fit_transform(
        dense_affinity(docs[0], ncw=True))
    np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


def test_more_weight_on_orthogonality_gives_a_more_orthogonal_p(docs):
    def off_orthogonality(eta):
        P = PSPt(3, eta=eta, n_restarts=1, max_iter=300, random_state=0).fit_transform(docs[0])
        return np.sum((P.T @ P - np.eye(3)) ** 2)

    assert off_orthogonality(0.2) < off_orthogonality(0.8) < off_orthogonality(0.99)


@pytest.mark.parametrize("make", [SymmetricNMF, PSPt])
def test_row_argmax_clusters_separated_topics(docs, make):
    X, y = docs
    H = make(3, random_state=0).fit_transform(X)
    assert accuracy(y, H.argmax(axis=1)) > 0.9
    again = make(3, random_state=0).fit_transform(X)
    assert np.array_equal(H, again)


@pytest.mark.parametrize("params,message", [({"eta": 0.0}, "eta must be in"),
                                            ({"eta": 1.5}, "eta must be in"),
                                            ({"kernel": "polynomial"}, "kernel must be")])
def test_invalid_parameters_are_named(docs, params, message):
    with pytest.raises(ValueError, match=message):
        PSPt(3, **params).fit_transform(docs[0])


def test_dense_kernel_norm_is_used_for_precomputed_affinity():
    W = np.array([[2.0, 1.0], [1.0, 3.0]])
    rule = HHtRule(DenseKernel(W), 1)
    H = np.zeros((2, 1))
    assert rule.objective((H,)) == pytest.approx(np.sum(W**2))
