"""k-means as the reference code runs it (litekmeans.m), on scikit-learn's Lloyd iterations.

Why not scikit-learn's default: its k-means++ seeding with several inits is a stronger baseline
than the papers used. litekmeans starts each replicate from K distinct data points drawn
uniformly at random, iterates at most 100 times, and keeps the replicate with the smallest sum of
(unsquared) point-to-centre distances. The start rule and the number of replicates are part of
each table's protocol, so both are parameters here.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans as _SKKMeans
from sklearn.utils import check_random_state

from docfact.algorithms._validation import check_int


class KMeans(ClusterMixin, BaseEstimator):
    """k-means with litekmeans-style starts.

    Parameters
    ----------
    n_clusters : int
    n_replicates : int, random restarts; the best by sum of distances is kept.
    max_iter : int, Lloyd iterations per replicate (100 in litekmeans).
    random_state : int, RandomState or None.

    Attributes: labels_ (n_samples,), cluster_centers_ (K, n_features), inertia_ (sum of
    unsquared distances of the kept replicate).
    """

    def __init__(self, n_clusters, *, n_replicates=1, max_iter=100, random_state=None):
        self.n_clusters = n_clusters
        self.n_replicates = n_replicates
        self.max_iter = max_iter
        self.random_state = random_state

    def _validate_params(self):
        check_int("n_clusters", self.n_clusters, 1)
        check_int("n_replicates", self.n_replicates, 1)
        check_int("max_iter", self.max_iter, 1)

    def fit(self, X, y=None):
        self._validate_params()
        X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, np.float64)
        n = X.shape[0]
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} exceeds n_samples={n}")
        rng = check_random_state(self.random_state)
        best = None
        for _ in range(self.n_replicates):
            start = X[rng.choice(n, self.n_clusters, replace=False)]
            start = start.toarray() if sp.issparse(start) else start
            km = _SKKMeans(self.n_clusters, init=start, n_init=1, max_iter=self.max_iter, tol=0.0)
            km.fit(X)
            sum_d = float(km.transform(X)[np.arange(n), km.labels_].sum())
            if best is None or sum_d < best[0]:
                best = (sum_d, km)
        self.inertia_, km = best
        self.labels_ = km.labels_
        self.cluster_centers_ = km.cluster_centers_
        return self
