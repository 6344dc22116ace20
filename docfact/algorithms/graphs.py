"""p-nearest-neighbour graphs (constructW.m): GNMF Eq. (6), LCCF Eq. (8).

Neighbours are found by Euclidean distance on the rows (documents) of X, the point itself
excluded; the graph is symmetrised with max(W, W^T), i.e. i ~ j when either is among the other's
p nearest neighbours. For L2-normalised rows this is the cosine-similarity neighbourhood.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import normalize

from docfact.algorithms._validation import check_float, check_int, check_option

WEIGHTS = ("binary", "cosine")


def knn_graph(X, p: int = 5, weight: str = "binary") -> sp.csr_matrix:
    """Symmetric p-NN affinity W, shape (n, n), from the n rows of X (n, m).

    weight="binary": W_ij = 1 on edges (GNMF Eq. 6);
    weight="cosine": W_ij = x_i^T x_j / (||x_i|| ||x_j||) on edges (LCCF Eq. 8).
    """
    if weight not in WEIGHTS:
        raise ValueError(f"weight must be one of {WEIGHTS}, got {weight!r}")
    n = X.shape[0]
    if not 1 <= p < n:
        raise ValueError(f"p must be in [1, {n - 1}] for {n} points, got {p}")
    nn = NearestNeighbors(n_neighbors=p, algorithm="brute", metric="euclidean").fit(X)
    cols = nn.kneighbors(return_distance=False).ravel()  # the point itself is excluded
    rows = np.repeat(np.arange(n), p)
    if weight == "binary":
        values = np.ones(n * p)
    else:
        Xn = normalize(sp.csr_matrix(X))
        values = np.asarray(Xn[rows].multiply(Xn[cols]).sum(axis=1)).ravel()
    W = sp.csr_matrix((values, (rows, cols)), shape=(n, n))
    return sp.csr_matrix(W.maximum(W.T))


def degrees(W) -> np.ndarray:
    """d = W 1, the diagonal of D in L = D - W."""
    return np.asarray(W.sum(axis=1)).ravel()


def check_graph_params(lam, p, weight) -> None:
    """The regulariser's parameters (lambda, p, weight), shared by GNMF and LCCF."""
    check_float("lam", lam)
    check_int("p", p, 1)
    check_option("weight", weight, WEIGHTS)


def check_graph(X, S, p: int, weight: str) -> sp.csr_matrix:
    """The regulariser's affinity for the n rows of X: S if given (checked), else knn_graph."""
    n = X.shape[0]
    if S is None:
        return knn_graph(X, p, weight)
    if S.shape != (n, n):
        raise ValueError(f"the graph must be ({n}, {n}), got {S.shape}")
    return sp.csr_matrix(S)
