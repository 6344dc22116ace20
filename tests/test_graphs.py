"""The p-NN graphs against a brute-force computation from every pairwise distance."""

import numpy as np
import pytest
import scipy.sparse as sp

from docfact.algorithms import knn_graph
from docfact.algorithms.graphs import mean_distance


def brute_force_graph(X, p, weight):
    n = X.shape[0]
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    t = D.mean()  # constructW.m: mean(mean(D)), the diagonal's zeros included
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    W = np.zeros((n, n))
    for i in range(n):
        for j in np.argsort(np.where(np.arange(n) == i, np.inf, D[i]))[:p]:
            W[i, j] = {"binary": 1.0, "cosine": unit[i] @ unit[j],
                       "heat": np.exp(-D[i, j] ** 2 / (2 * t**2))}[weight]
    return np.maximum(W, W.T)


@pytest.mark.parametrize("weight", ["binary", "cosine", "heat"])
@pytest.mark.parametrize("sparse", [False, True])
def test_knn_graph_equals_brute_force(weight, sparse):
    rng = np.random.default_rng(4)
    X = rng.random((30, 6)) * (rng.random((30, 6)) < 0.7)
    X[:, 0] += 0.1  # no empty row
    W = knn_graph(sp.csr_matrix(X) if sparse else X, 4, weight)
    np.testing.assert_allclose(W.toarray(), brute_force_graph(X, 4, weight), atol=1e-12)


def test_mean_distance_counts_every_ordered_pair():
    X = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
    assert mean_distance(X) == pytest.approx((2 * 5 + 2 * 5 + 2 * 10) / 9)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_row_without_terms_has_no_edges_and_is_nobodys_neighbour(sparse):
    """An all-zero row (a document whose every term the tf-idf dropped) lies at distance 1
    from every unit-length row, nearer than most documents are to each other: it would be a
    hub. It gets no edge; the others' graph is the graph of the rows without it."""
    X = np.random.default_rng(5).random((12, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X[5] = 0.0
    live = np.arange(12) != 5
    form = sp.csr_matrix if sparse else np.asarray
    for weight in ("binary", "cosine", "heat"):
        W = knn_graph(form(X), 3, weight).toarray()
        assert not W[5].any() and not W[:, 5].any()
        np.testing.assert_array_equal(W[np.ix_(live, live)],
                                      knn_graph(form(X[live]), 3, weight).toarray())


@pytest.mark.parametrize("change, words", [
    (lambda W: W.multiply(np.nan), "NaN or infinite"),
    (lambda W: sp.triu(W).tocsr(), "must be symmetric"),
])
def test_a_given_graph_is_checked(change, words):
    """W handed to a fit (fit_transform(X, W=...)) that is not a finite symmetric graph: a
    ValueError naming what is wrong, not NaN factors after the iterations."""
    from docfact.algorithms import GNMF

    X = np.random.default_rng(6).random((12, 5))
    W = knn_graph(X, 3)
    GNMF(2, random_state=0, max_iter=5).fit_transform(X, W=W)  # the graph itself passes
    with pytest.raises(ValueError, match=words):
        GNMF(2, random_state=0, max_iter=5).fit_transform(X, W=sp.csr_matrix(change(W)))
