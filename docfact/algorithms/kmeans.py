"""k-means as the reference code runs it (litekmeans.m), in the input space or a kernel's.

Why not scikit-learn's default: its k-means++ seeding with several inits is a stronger baseline
than the papers used. litekmeans starts each replicate from K distinct data points drawn
uniformly at random, iterates at most 100 times, and keeps the replicate with the smallest sum of
(unsquared) point-to-centre distances. The start rule and the number of replicates are part of
each table's protocol, so both are parameters here. With the linear kernel the Lloyd iterations
are scikit-learn's; with another kernel (the LCCF paper's kernelized KM rows) they run on K.
The RCF paper clusters with k-means "using cosine distance" (MATLAB's kmeans): each centre is
the mean of its points scaled to unit length and points join the centre of largest cosine;
scikit-learn has no such distance, so those iterations are written here.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans as _SKKMeans
from sklearn.preprocessing import normalize
from sklearn.utils import check_random_state

from docfact.algorithms._validation import check_int, check_option
from docfact.algorithms.kernels import affinity, check_kernel_params


class KMeans(ClusterMixin, BaseEstimator):
    """k-means with litekmeans-style starts.

    Parameters
    ----------
    n_clusters : int
    n_replicates : int, random restarts; the best by sum of distances is kept.
    max_iter : int, Lloyd iterations per replicate (100 in litekmeans).
    kernel : "linear" (k-means on the rows of X), "polynomial" ((X X^T)^degree) or
        "precomputed" (X is the kernel K, (n, n)).
    degree : int, of the polynomial kernel.
    metric : "euclidean" (squared distances, litekmeans) or "cosine" (1 - cosine, MATLAB's
        kmeans 'Distance','cosine'; linear kernel only).
    ncw : bool, normalized-cut weighting (KM-NCW): the rows of X scaled by d^-1/2, d = X X^T 1,
        or K <- D^-1/2 K D^-1/2 for a kernel.
    random_state : int, RandomState or None.

    Attributes: labels_ (n_samples,), inertia_ (sum of unsquared distances of the kept replicate;
    of 1 - cosine with metric="cosine").
    """

    def __init__(self, n_clusters, *, n_replicates=1, max_iter=100, kernel="linear", degree=2,
                 metric="euclidean", ncw=False, random_state=None):
        self.n_clusters = n_clusters
        self.n_replicates = n_replicates
        self.max_iter = max_iter
        self.kernel = kernel
        self.degree = degree
        self.metric = metric
        self.ncw = ncw
        self.random_state = random_state

    def _validate_params(self):
        check_int("n_clusters", self.n_clusters, 1)
        check_int("n_replicates", self.n_replicates, 1)
        check_int("max_iter", self.max_iter, 1)
        check_kernel_params(self.kernel, self.degree, self.ncw)
        check_option("metric", self.metric, ("euclidean", "cosine"))
        if self.metric == "cosine" and self.kernel != "linear":
            raise ValueError("metric='cosine' needs kernel='linear'")

    def fit(self, X, y=None):
        self._validate_params()
        X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, np.float64)
        n = X.shape[0]
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} exceeds n_samples={n}")
        K, _ = affinity(X, self.kernel, self.degree, self.ncw)
        if self.metric == "cosine":
            X, lloyd = normalize(K.X), _lloyd_cosine
        elif self.kernel == "linear":  # Lloyd in the input space, on the (weighted) samples
            X, lloyd = K.X, _lloyd_input_space
        else:
            X, lloyd = K.K, _lloyd_kernel
        rng = check_random_state(self.random_state)
        best = None
        for _ in range(self.n_replicates):
            start = rng.choice(n, self.n_clusters, replace=False)
            labels, sum_d = lloyd(X, start, self.max_iter)
            if best is None or sum_d < best[0]:
                best = (sum_d, labels)
        self.inertia_, self.labels_ = best
        return self


def _lloyd_input_space(X, start, max_iter):
    """scikit-learn's Lloyd iterations from the points `start`: (labels, sum of distances)."""
    centers = X[start]
    centers = centers.toarray() if sp.issparse(centers) else centers
    km = _SKKMeans(len(start), init=centers, n_init=1, max_iter=max_iter, tol=0.0).fit(X)
    d = km.transform(X)[np.arange(X.shape[0]), km.labels_]
    return km.labels_, float(d.sum())


def _lloyd_kernel(K, start, max_iter):
    """Lloyd iterations in the kernel's feature space, from the points `start`.

    ||phi_i - m_c||^2 = K_ii - 2 mean_{j in c} K_ij + mean_{j,l in c} K_jl. An emptied cluster
    is re-seeded with the point farthest from its centre.
    """
    n, k = K.shape[0], len(start)
    diag = np.diag(K)
    dist = diag[:, None] - 2 * K[:, start] + diag[start][None, :]
    labels = dist.argmin(axis=1)
    for _ in range(max_iter):
        E = np.zeros((n, k))
        E[np.arange(n), labels] = 1.0
        size = E.sum(axis=0)
        empty = np.flatnonzero(size == 0)
        if len(empty):
            far = np.argsort(dist[np.arange(n), labels])[::-1][: len(empty)]
            E[far] = 0.0
            E[far, empty] = 1.0
            size = E.sum(axis=0)
        E /= size
        KE = K @ E
        dist = diag[:, None] - 2 * KE + np.sum(E * KE, axis=0)[None, :]
        new = dist.argmin(axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
    d = np.sqrt(np.maximum(dist[np.arange(n), labels], 0.0))
    return labels, float(d.sum())


def _lloyd_cosine(X, start, max_iter):
    """Lloyd iterations with the cosine distance on unit rows X, from the points `start`: each
    centre the mean of its points, each point to the centre of largest cosine (MATLAB's kmeans
    'Distance','cosine'). An emptied cluster is re-seeded with the point farthest from its
    centre. Returns (labels, sum of 1 - cosine)."""
    n, k = X.shape[0], len(start)
    C = X[start]
    C = C.toarray() if sp.issparse(C) else np.array(C)
    labels = None
    for _ in range(max_iter + 1):
        cos = np.asarray(X @ normalize(C).T)
        new = cos.argmax(axis=1)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        E = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k, n))
        empty = np.flatnonzero(np.asarray(E.sum(axis=1)).ravel() == 0)
        if len(empty):
            far = np.argsort(cos[np.arange(n), labels])[: len(empty)]
            labels[far] = empty
            E = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k, n))
        C = E @ X
        C = C.toarray() if sp.issparse(C) else np.asarray(C)
    d = 1 - cos[np.arange(n), labels]
    return labels, float(d.sum())
