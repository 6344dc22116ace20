"""Spectral clustering of documents: AA, NC (LCCF paper Section 4.3) and LSI + k-means (GNMF).

AA (average association; Zha et al. 2001): k-means on the top-k eigenvectors of the document
affinity K = X X^T (samples as rows), the spectral relaxation of k-means. NC (normalized cut) is
AA on the NC-weighted affinity D^-1/2 K D^-1/2, D = diag(K 1) (Xu et al. 2003), or k-means on
Shi and Malik's (2000) relaxed cut indicators D^-1/2 Y: with Y the top-k eigenvectors of
D^-1/2 K D^-1/2, its columns are the top-k generalized eigenvectors of K z = lambda D z (the
smallest of (D - K) z = mu D z, mu = 1 - lambda). LSI + k-means
clusters U_k S_k, the documents in the k-dimensional latent semantic space. For the linear kernel
the eigenvectors of K are the left singular vectors of X (computed sparse, K never formed).
"""

import numpy as np
from scipy.sparse.linalg import svds
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.preprocessing import normalize
from sklearn.utils import check_random_state
from sklearn.utils.validation import validate_data

from docfact.algorithms._validation import integer, options
from docfact.algorithms.kernels import (
    KERNEL_CONSTRAINTS,
    LinearKernel,
    affinity,
    leading_eigenpairs,
)
from docfact.algorithms.kmeans import KMeans

# The parameters of the k-means step, checked as `KMeans` checks them (its starts on points).
KMEANS_CONSTRAINTS = {**{key: KMeans._parameter_constraints[key]
                         for key in ("n_clusters", "n_replicates", "max_iter", "random_state")},
                      "init": [options("random", "k-means++")]}


class _Embedding(ClusterMixin, BaseEstimator):
    """k-means on an embedding of the samples (sparse input accepted)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def top_singular(X, k: int, rng) -> tuple:
    """(U_k (n, k), s_k (k,)): the k largest singular triplets of X (n, m), ARPACK from a seeded
    start vector so that the result is reproducible."""
    if k >= min(X.shape):
        U, s, _ = np.linalg.svd(X.toarray() if hasattr(X, "toarray") else X,
                                full_matrices=False)
        return U[:, :k], s[:k]
    v0 = rng.uniform(-1, 1, min(X.shape))
    U, s, _ = svds(X, k=k, v0=v0)
    order = np.argsort(s)[::-1]
    return U[:, order], s[order]


def top_eigenvectors(K, k: int, rng) -> np.ndarray:
    """The k leading eigenvectors (n, k) of a kernel operator (see kernels.py).

    ValueError when the affinity's rank is below k: the missing eigenvectors would be arbitrary
    directions of a null space, and the clustering a silent wrong number.
    """
    if isinstance(K, LinearKernel):
        Y, s = top_singular(K.X, k, rng)
        values = s**2
    else:
        values, Y = leading_eigenpairs(K.K, k)
    if not values[-1] > 1e-10 * values[0]:
        rank = int(np.sum(values > 1e-10 * values[0]))
        raise ValueError(f"k={k} exceeds the rank of the affinity ({rank} of the {k} leading "
                         "eigenvalues are positive)")
    return Y


class SpectralClustering(_Embedding):
    """AA (ncw=False) or NC (ncw=True): k-means on the top-k eigenvectors Y (n, k) of the
    affinity (NC-weighted when ncw).

    kernel : "linear" (K = X X^T), "polynomial" ((X X^T)^degree) or "precomputed" (X is K).
    embedding : NC's points: "eigenvectors" (Y, AA on the NC-weighted data as Xu et al. 2003
        read NC) or "shi_malik" (D^-1/2 Y, Shi and Malik's relaxed cut indicators); the same for
        AA, whose D is the identity.
    n_replicates, init, max_iter : of the k-means step (`KMeans`).
    Attributes: labels_, embedding_ (n_samples, k).
    """

    _parameter_constraints = {**KMEANS_CONSTRAINTS, **KERNEL_CONSTRAINTS,
                              "embedding": [options("eigenvectors", "shi_malik")]}
    uses_kernel = True  # the contract (docfact/algorithms/__init__.py)

    def __init__(self, n_clusters, *, kernel="linear", degree=2, ncw=False,
                 embedding="eigenvectors", n_replicates=1, init="random", max_iter=100,
                 random_state=None):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.degree = degree
        self.ncw = ncw
        self.embedding = embedding
        self.n_replicates = n_replicates
        self.init = init
        self.max_iter = max_iter
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        rng = check_random_state(self.random_state)
        K, g = affinity(X, self.kernel, self.degree, self.ncw)
        self.embedding_ = top_eigenvectors(K, self.n_clusters, rng)
        if self.embedding == "shi_malik" and g is not None:
            self.embedding_ *= g[:, None]
        self.labels_ = KMeans(self.n_clusters, n_replicates=self.n_replicates, init=self.init,
                              max_iter=self.max_iter, random_state=rng).fit(
                                  self.embedding_).labels_
        return self


class LSIKMeans(_Embedding):
    """Truncated SVD of X (n_samples, n_features) to d dimensions, then k-means on U_d S_d.

    n_replicates, init and max_iter are those of the k-means step (`KMeans`).
    dimension : d, of the latent space; None: k, the number of clusters (Zha et al.'s
        equivalence of LSI + k-means with average association).
    scaling : the documents' coordinates in the latent space: "singular" (U_d S_d, the projection
        X V_d), "none" (U_d) or "unit" (U_d S_d rows scaled to unit length, cosine geometry).
    Attributes: labels_, embedding_ (n_samples, d).
    """

    _parameter_constraints = {**KMEANS_CONSTRAINTS, "dimension": [integer(1), None],
                              "scaling": [options("singular", "none", "unit")]}

    def __init__(self, n_clusters, *, n_replicates=1, init="random", dimension=None,
                 scaling="singular", max_iter=100, random_state=None):
        self.n_clusters = n_clusters
        self.n_replicates = n_replicates
        self.init = init
        self.dimension = dimension
        self.scaling = scaling
        self.max_iter = max_iter
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        rng = check_random_state(self.random_state)
        U, s = top_singular(X, self.dimension or self.n_clusters, rng)
        self.embedding_ = U if self.scaling == "none" else U * s
        if self.scaling == "unit":
            self.embedding_ = normalize(self.embedding_)
        self.labels_ = KMeans(self.n_clusters, n_replicates=self.n_replicates, init=self.init,
                              max_iter=self.max_iter, random_state=rng).fit(
                                  self.embedding_).labels_
        return self
