"""LSI + k-means (GNMF report Section 4.3): k-means in the K-dimensional latent semantic space."""

from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.decomposition import TruncatedSVD
from sklearn.utils import check_random_state

from docfact.algorithms.kmeans import KMeans


class LSIKMeans(ClusterMixin, BaseEstimator):
    """Truncated SVD of X (n_samples, n_features) to K dimensions, then k-means on U_K S_K.

    n_replicates and max_iter are those of the k-means step (`docfact.algorithms.KMeans`).
    Attributes: labels_, embedding_ (n_samples, K).
    """

    def __init__(self, n_clusters, *, n_replicates=1, max_iter=100, random_state=None):
        self.n_clusters = n_clusters
        self.n_replicates = n_replicates
        self.max_iter = max_iter
        self.random_state = random_state

    def _validate_params(self):
        KMeans(self.n_clusters, n_replicates=self.n_replicates,
               max_iter=self.max_iter)._validate_params()

    def fit(self, X, y=None):
        self._validate_params()
        rng = check_random_state(self.random_state)
        svd = TruncatedSVD(self.n_clusters, algorithm="arpack", random_state=rng)
        self.embedding_ = svd.fit_transform(X)
        km = KMeans(self.n_clusters, n_replicates=self.n_replicates, max_iter=self.max_iter,
                    random_state=rng).fit(self.embedding_)
        self.labels_ = km.labels_
        return self
