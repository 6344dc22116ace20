"""k-means with litekmeans-style starts, and LSI + k-means."""

import numpy as np
import scipy.sparse as sp

from docfact.algorithms import KMeans, LSIKMeans
from docfact.metrics import accuracy


def blobs(seed=0):
    rng = np.random.default_rng(seed)
    centers = 5 * np.eye(3, 8)
    return np.vstack([c + rng.normal(0, 0.4, (30, 8)) for c in centers]), np.repeat([0, 1, 2], 30)


def test_keeps_the_replicate_with_the_smallest_sum_of_distances():
    X, _ = blobs()
    best = KMeans(3, n_replicates=8, random_state=4).fit(X)
    singles = [KMeans(3, random_state=s).fit(X).inertia_ for s in range(30)]
    assert best.inertia_ <= np.median(singles)
    centers = np.array([X[best.labels_ == c].mean(axis=0) for c in range(3)])
    d = np.linalg.norm(X - centers[best.labels_], axis=1).sum()
    assert abs(best.inertia_ - d) < 1e-9 * d


def test_deterministic_and_sparse_equals_dense():
    X, y = blobs(1)
    X = np.abs(X)
    a = KMeans(3, n_replicates=3, random_state=7).fit(X).labels_
    b = KMeans(3, n_replicates=3, random_state=7).fit(sp.csr_matrix(X)).labels_
    np.testing.assert_array_equal(a, b)
    assert accuracy(y, a) > 0.9


def test_lsi_kmeans_finds_separated_clusters():
    X, y = blobs(2)
    labels = LSIKMeans(3, n_replicates=5, random_state=0).fit(np.abs(X)).labels_
    assert accuracy(y, labels) > 0.95
