"""k-means with litekmeans-style starts, and LSI + k-means."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from docfact.algorithms import KMeans, LSIKMeans
from docfact.algorithms.kernels import kernel_operator
from docfact.algorithms.kmeans import (
    NCutAffinity,
    _indicator,
    _lloyd_cosine,
    _lloyd_weighted,
    _lloyd_weighted_from,
    _reseeded,
    _weighted_step,
    cut_indicators,
)
from docfact.metrics import accuracy
from tests.synthetic import three_topics


def blobs(seed=0):
    rng = np.random.default_rng(seed)
    centers = 5 * np.eye(3, 8)
    return np.vstack([c + rng.normal(0, 0.4, (30, 8)) for c in centers]), np.repeat([0, 1, 2], 30)


def test_keeps_the_replicate_with_the_smallest_sum_of_distances():
    """The replicates replayed from the same random state (litekmeans' starts, Lloyd in the
    input space): the fit keeps the one of smallest sum of distances, here the sixth of eight
    whose sums all differ, and that sum is the distances to its clusters' means."""
    from sklearn.utils import check_random_state

    from docfact.algorithms.kmeans import _lloyd_input_space

    X, _ = blobs()
    best = KMeans(5, n_replicates=8, random_state=4).fit(X)
    rng = check_random_state(4)
    replicates = [_lloyd_input_space(X, rng.choice(len(X), 5, replace=False), best.max_iter)
                  for _ in range(8)]
    sums = [s for _, s in replicates]
    assert len(set(sums)) == 8 and int(np.argmin(sums)) == 5
    assert best.inertia_ == sums[5]
    np.testing.assert_array_equal(best.labels_, replicates[5][0])
    centers = np.array([X[best.labels_ == c].mean(axis=0) for c in range(5)])
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


# KM-NCW as weighted kernel k-means (Dhillon, Guan, Kulis 2004): weights d = A 1 in the centres


def small_docs(seed=0, n=12, m=6):
    return np.random.default_rng(seed).random((n, m)) * (
        np.random.default_rng(seed + 1).random((n, m)) < 0.7) + 0.01


def features(X, kernel):
    """Explicit feature map of the kernel: x (linear) or x (x) x (degree-2 polynomial)."""
    return X if kernel == "linear" else np.einsum("ni,nj->nij", X, X).reshape(len(X), -1)


@pytest.mark.parametrize("form", ["ncut", "ncut_hollow"])
@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
def test_ncut_objective_is_the_normalized_cut(form, kernel):
    """sum_i d_i dist(i, c_i) = sum_i A_ii / d_i - K + NCut, on random partitions."""
    X = small_docs()
    F = features(X, kernel)
    A = F @ F.T
    if form == "ncut_hollow":
        np.fill_diagonal(A, 0.0)
    d = A.sum(axis=1)
    op = NCutAffinity(kernel_operator(X, kernel), self_loops=form == "ncut")
    rng = np.random.default_rng(3)
    for _ in range(5):
        labels = rng.permutation(np.arange(len(X)) % 3)
        E = np.eye(3)[labels]
        dist = op.distances(E)
        obj = d @ dist[np.arange(len(X)), labels]
        ncut = sum(A[np.ix_(labels == c, labels != c)].sum() / d[labels == c].sum()
                   for c in range(3))
        assert obj == pytest.approx(np.sum(np.diag(A) / d) - 3 + ncut, rel=1e-10)


@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
def test_ncut_form_is_weighted_kmeans_in_feature_space(kernel):
    """Same assignments, step by step, as weighted k-means written out on phi_i = f(x_i) / d_i
    with weights d_i and centres sum_c d_j phi_j / sum_c d_j."""
    X = small_docs(4, n=20)
    F = features(X, kernel)
    d = F @ F.sum(axis=0)
    phi = F / d[:, None]
    start = np.array([0, 7, 13])
    C = phi[start]
    labels = None
    for _ in range(50):
        new = ((phi[:, None, :] - C[None]) ** 2).sum(axis=2).argmin(axis=1)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        C = np.array([(d[labels == c, None] * phi[labels == c]).sum(axis=0)
                      / d[labels == c].sum() for c in range(3)])
    obj = sum(d[i] * np.sum((phi[i] - C[labels[i]]) ** 2) for i in range(len(X)))
    ours, ours_obj = _lloyd_weighted(NCutAffinity(kernel_operator(X, kernel)), start, 50)
    np.testing.assert_array_equal(ours, labels)
    assert ours_obj == pytest.approx(obj, rel=1e-9)


@pytest.mark.parametrize("form", ["ncut", "ncut_hollow"])
def test_ncut_objective_never_increases(form):
    X, _ = three_topics(5, n_terms=40, per_class=30, noise=0.6)
    op = NCutAffinity(kernel_operator(X), self_loops=form == "ncut")
    for seed in range(5):
        history = []
        start = np.random.default_rng(seed).choice(X.shape[0], 3, replace=False)
        _lloyd_weighted(op, start, 100, history)
        assert len(history) > 1 and np.all(np.diff(history) <= 1e-12 * np.abs(history[:-1]))


def test_fewer_distinct_points_than_clusters_is_silent():
    """Duplicate rows (a factor V with repeated rows) leave k-means fewer distinct points than
    clusters: the labels show it, and no library warning reaches a table's output."""
    X = np.repeat(np.eye(3, 4), 5, axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        labels = KMeans(4, random_state=0).fit(X).labels_
    assert len(np.unique(labels)) == 3


def _lloyd_weighted_computed(A, start, max_iter, history):
    """The weighted kernel k-means loop with every iteration computed (no replay of cycles)."""
    dist = A.distances(np.eye(A.n)[:, start])
    labels = dist.argmin(axis=1)
    for _ in range(max_iter):
        labels, dist = _weighted_step(A, labels, dist)
        history.append(float(A.d @ dist[np.arange(A.n), labels]))
        if np.array_equal(dist.argmin(axis=1), labels):
            break
        labels = dist.argmin(axis=1)
    return labels, float(A.d @ dist[np.arange(A.n), labels])


@pytest.mark.parametrize("max_iter", [100, 57, 8])
def test_a_cycling_run_replays_to_the_computed_result(max_iter):
    """Sparse documents under the squared kernel without self-loops: clusters empty and are
    re-seeded in turn, a cycle that never converges. Reading the iterations left from the cycle
    gives the labels, objective and history of computing them, bit for bit, with fewer
    distance evaluations."""
    X = sp.random(60, 200, density=0.03, random_state=39, format="csr")
    X = sp.csr_matrix(X / np.sqrt(np.asarray(X.multiply(X).sum(axis=1))))
    A = NCutAffinity(kernel_operator(X, "polynomial", 2), self_loops=False)
    calls = []
    distances = A.distances
    A.distances = lambda E: calls.append(1) or distances(E)
    for seed in range(3):
        start = np.random.default_rng(seed).choice(A.n, 5, replace=False)
        computed, replayed = [], []
        labels, obj = _lloyd_weighted_computed(A, start, max_iter, computed)
        assert len(computed) == max_iter  # no convergence: the case cycles
        calls.clear()
        ours, ours_obj = _lloyd_weighted(A, start, max_iter, replayed)
        np.testing.assert_array_equal(ours, labels)
        assert ours_obj == obj and replayed == computed
        if max_iter == 100:
            assert len(calls) < 50


def test_ncut_replicates_reach_the_brute_force_minimum():
    """On 10 documents of two topics, the best of 20 starts has the smallest normalized cut of
    all 511 two-way partitions."""
    X, y = two_topics(10)
    A = X @ X.T
    d = A.sum(axis=1)
    best = min(
        (sum(A[np.ix_(lab == c, lab != c)].sum() / d[lab == c].sum() for c in (0, 1)), tuple(lab))
        for bits in range(1, 2**9)
        for lab in [np.array([0] + [(bits >> i) & 1 for i in range(9)])])
    labels = KMeans(2, ncw=True, form="ncut", n_replicates=20, random_state=0).fit(X).labels_
    assert accuracy(np.array(best[1]), labels) == 1.0


def two_topics(n, seed=0):
    """n dense 'documents' (unit rows), two topics on disjoint halves of 20 terms plus a few
    shared common words, and their labels."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = 0.05 * rng.random((n, 24))
    for i, c in enumerate(y):
        X[i, 12 * c: 12 * c + 10] += rng.random(10) * (rng.random(10) < 0.6)
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


@pytest.mark.parametrize("form", ["ncut", "ncut_hollow"])
@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
def test_km_ncw_separates_two_document_classes(form, kernel):
    """The LCCF paper's premise for KM-NCW: two well-separated classes of unequal size (25
    against 75) have the smallest normalized cut and come out exactly from the best of 10
    starts; without self-loops from every single start. (With self-loops and the polynomial
    kernel, 2 of 10 single starts stop in a local minimum of larger cut.)"""
    X, y = two_topics(150)
    keep = np.r_[np.flatnonzero(y == 0)[:25], np.flatnonzero(y == 1)]
    X, y = X[keep], y[keep]
    op = NCutAffinity(kernel_operator(X, kernel), self_loops=form == "ncut")
    truth = op.d @ op.distances(np.eye(2)[y])[np.arange(len(y)), y]
    best = KMeans(2, ncw=True, form=form, kernel=kernel, n_replicates=10, random_state=0).fit(X)
    assert accuracy(y, best.labels_) == 1.0 and best.inertia_ == pytest.approx(truth)
    singles = [KMeans(2, ncw=True, form=form, kernel=kernel, random_state=s).fit(X)
               for s in range(10)]
    assert all(km.inertia_ >= truth - 1e-12 * abs(truth) for km in singles)
    if form == "ncut_hollow":
        assert all(accuracy(y, km.labels_) == 1.0 for km in singles)
@pytest.mark.parametrize("form", ["ncut", "ncut_hollow"])
@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
def test_cut_indicators_are_the_generalized_eigenvectors_of_the_affinity(form, kernel):
    """The spectral start's points span the top-k generalized eigenvectors of A z = mu D z,
    A written out from the features (diagonal zeroed for ncut_hollow), solved by scipy."""
    from scipy.linalg import eigh, subspace_angles

    X = small_docs()
    F = features(X, kernel)
    A = F @ F.T
    if form == "ncut_hollow":
        np.fill_diagonal(A, 0.0)
    _, Z = eigh(A, np.diag(A.sum(axis=1)), subset_by_index=[len(A) - 3, len(A) - 1])
    op = NCutAffinity(kernel_operator(X, kernel), self_loops=form == "ncut")
    assert subspace_angles(cut_indicators(op, 3), Z).max() < 1e-6


@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
def test_spectral_start_refines_the_spectral_partition(kernel):
    """init="spectral": the weighted iterations start from the partition k-means finds on the
    cut indicators (the same replicates, the same generator) and move points from it (3 noisy
    topics: 7 and 5 of 90); on two well-separated classes of unequal size the classes come
    out exactly. (Without self-loops the affinity is not positive semidefinite and the
    iterations need not lower the objective: here they cycle between two partitions.)"""
    X, _ = three_topics(3, n_terms=40, per_class=30, noise=2.5)
    op = NCutAffinity(kernel_operator(X, kernel), self_loops=False)
    fits = [KMeans(3, ncw=True, form="ncut_hollow", kernel=kernel, init="spectral",
                   n_replicates=4, random_state=seed).fit(X)
            for seed in (5, np.random.RandomState(5))]
    start = KMeans(3, n_replicates=4, random_state=np.random.RandomState(5)).fit(
        cut_indicators(op, 3)).labels_
    history = []
    labels, objective = _lloyd_weighted_from(op, np.eye(3)[start], 100, history)
    for km in fits:
        np.testing.assert_array_equal(km.labels_, labels)
        assert km.inertia_ == objective
    assert (labels != start).sum() >= 5 and len(history) == 100
    X, y = two_topics(150)
    keep = np.r_[np.flatnonzero(y == 0)[:25], np.flatnonzero(y == 1)]
    labels = KMeans(2, ncw=True, form="ncut_hollow", kernel=kernel, init="spectral",
                    random_state=0).fit(X[keep]).labels_
    assert accuracy(y[keep], labels) == 1.0


def test_cut_indicators_beyond_lanczos_and_an_emptied_start():
    """k >= n - 1 takes the dense decomposition (the same subspace as scipy's generalized
    eigensolver); a start with an empty cluster gets no point at the first assignment and is
    re-seeded, as the iterations re-seed any emptied cluster (no NaN)."""
    from scipy.linalg import eigh, subspace_angles

    X = small_docs()[:6]
    A = X @ X.T
    np.fill_diagonal(A, 0.0)
    op = NCutAffinity(kernel_operator(X), self_loops=False)
    _, Z = eigh(A, np.diag(A.sum(axis=1)), subset_by_index=[1, 5])
    assert subspace_angles(cut_indicators(op, 5), Z).max() < 1e-6
    X, _ = three_topics(3, n_terms=40, per_class=30, noise=2.5)
    op = NCutAffinity(kernel_operator(X), self_loops=False)
    E = np.eye(3)[np.arange(90) % 2]  # cluster 2 empty
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        labels, objective = _lloyd_weighted_from(op, E, 100)
    assert set(labels) == {0, 1, 2} and np.isfinite(objective)


def test_spectral_start_needs_a_cut_form():
    """Only the weighted kernel k-means starts from a partition; the k-means steps of AA, NC
    and LSI start from points."""
    from docfact.algorithms import SpectralClustering

    with pytest.raises(ValueError, match="init='spectral' needs form"):
        KMeans(2, ncw=True, init="spectral").fit(np.eye(4))
    for estimator in (SpectralClustering, LSIKMeans):
        with pytest.raises(ValueError, match="'init' parameter"):
            estimator(2, init="spectral").fit(np.eye(4) + 0.1)


def test_kmeans_plusplus_starts_are_distinct_and_spread():
    """k-means++ draws distinct start points; on three far blobs its starts fall in three
    different blobs far more often than uniform starts do."""
    from docfact.algorithms.kmeans import _sq_distances, plusplus

    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(c, 0.1, (30, 2)) for c in ((0, 0), (10, 0), (0, 10))])
    blob = np.repeat([0, 1, 2], 30)
    spread = {"random": 0, "k-means++": 0}
    for seed in range(40):
        r = np.random.RandomState(seed)
        pp = plusplus(_sq_distances(X, "euclidean", "linear"), len(X), 3, r)
        assert len(set(pp)) == 3
        spread["k-means++"] += len(set(blob[pp])) == 3
        spread["random"] += len(set(blob[r.choice(len(X), 3, replace=False)])) == 3
    assert spread["k-means++"] >= 38 and spread["random"] < 20
    # the estimator with either start rule, dense or sparse, kernel or not
    for kernel in ("linear", "polynomial"):
        labels = KMeans(3, init="k-means++", kernel=kernel, random_state=1).fit(
            np.abs(X) + 0.1).labels_
        assert len(set(labels)) == 3
    sparse = KMeans(3, init="k-means++", random_state=1).fit(sp.csr_matrix(np.abs(X))).labels_
    dense = KMeans(3, init="k-means++", random_state=1).fit(np.abs(X)).labels_
    assert np.array_equal(sparse, dense)


def test_lsi_scalings_differ_only_in_the_coordinates():
    rng = np.random.RandomState(2)
    X = np.abs(rng.normal(size=(40, 12)))
    emb = {s: LSIKMeans(3, scaling=s, random_state=0).fit(X).embedding_
           for s in ("singular", "none", "unit")}
    assert np.allclose(np.linalg.norm(emb["unit"], axis=1), 1)
    assert np.allclose(emb["none"].T @ emb["none"], np.eye(3))
    assert np.allclose(emb["unit"], emb["singular"] / np.linalg.norm(emb["singular"], axis=1,
                                                                     keepdims=True))


def test_lsi_dimension_is_k_unless_given():
    """The latent space has k dimensions by default, d when dimension = d; its first k
    coordinates are the same either way (the leading singular triplets of X)."""
    rng = np.random.RandomState(3)
    X = np.abs(rng.normal(size=(40, 12)))
    default = LSIKMeans(3, random_state=0).fit(X)
    wide = LSIKMeans(3, dimension=6, random_state=0).fit(X)
    assert default.embedding_.shape == (40, 3) and wide.embedding_.shape == (40, 6)
    assert np.allclose(np.abs(wide.embedding_[:, :3]), np.abs(default.embedding_))


@pytest.mark.parametrize("seed", range(8))
def test_kernel_lloyd_is_lloyd_in_the_feature_space(seed):
    """Lloyd on the polynomial kernel (the sums K E updated from the rows of the points that
    moved) takes the steps of Lloyd on the explicit degree-2 features: the same labels and sum
    of distances, from the same start."""
    from docfact.algorithms.kmeans import _lloyd_kernel

    rng = np.random.default_rng(seed)
    X, _ = blobs(seed)
    X = np.abs(X) + rng.random(X.shape)  # overlapping clusters: points move for a few steps
    F = features(X, "polynomial")
    start = rng.choice(len(X), 3, replace=False)
    labels, sum_d = _lloyd_kernel(F @ F.T, start, 100)
    centres, expected = F[start], None
    for _ in range(100):
        d = ((F[:, None, :] - centres[None]) ** 2).sum(axis=2)
        new = d.argmin(axis=1)
        if expected is not None and np.array_equal(new, expected):
            break
        expected = new
        centres = np.array([F[expected == c].mean(axis=0) for c in range(3)])
    np.testing.assert_array_equal(labels, expected)
    d = np.linalg.norm(F - centres[labels], axis=1).sum()
    assert abs(sum_d - d) < 1e-8 * d


def test_an_empty_cluster_takes_the_points_farthest_from_their_centres():
    """_reseeded: each empty cluster takes one of the points of largest spread (distance to
    their own centre), the farthest first."""
    E = _indicator(np.array([0, 0, 1, 1, 1]), 4)  # clusters 2 and 3 empty
    spread = np.array([0.1, 0.5, 0.2, 0.9, 0.3])
    assert _reseeded(E, spread).argmax(axis=1).tolist() == [0, 3, 1, 2, 1]  # 3 -> 2, 1 -> 3
    full = _indicator(np.array([0, 1, 2, 3, 0]), 4)
    assert np.array_equal(_reseeded(full.copy(), spread), full)  # none empty: unchanged


def test_cosine_lloyd_reseeds_an_emptied_cluster_with_the_least_similar_point():
    """Two equal starting centres: every point goes to the first, and the empty second takes
    the point of least cosine to it (85 degrees from the start at 0)."""
    angles = np.radians([0, 10, 20, 80, 85])
    X = np.c_[np.cos(angles), np.sin(angles)]
    labels, _ = _lloyd_cosine(X, np.array([0, 0]), max_iter=0)
    assert labels.tolist() == [0, 0, 0, 0, 1]
