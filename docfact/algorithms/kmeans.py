"""k-means as the reference code runs it (litekmeans.m), in the input space or a kernel's.

Why not scikit-learn's default: its k-means++ seeding with several inits is a stronger baseline
than the papers used. litekmeans starts each replicate from k distinct data points drawn
uniformly at random, iterates at most 100 times, and keeps the replicate with the smallest sum of
(unsquared) point-to-centre distances. The start rule and the number of replicates are part of
each table's protocol, so both are parameters here. With the linear kernel the Lloyd iterations
are scikit-learn's; with another kernel (the LCCF paper's kernelized KM rows) they run on K.
The RCF paper clusters with k-means "using cosine distance" (MATLAB's kmeans): each centre is
the mean of its points scaled to unit length and points join the centre of largest cosine;
scikit-learn has no such distance, so those iterations are written here.

KM-NCW (LCCF Section 4.3): k-means with normalized-cut weighting. form="scaled" runs plain
k-means on the weighted samples D^-1/2 x_i (K <- D^-1/2 K D^-1/2). form="ncut" is the
weighted kernel k-means of Dhillon, Guan, Kulis (2004), whose objective is the normalized cut:
weights w_i = d_i (d = A 1, A the affinity), kernel D^-1 A D^-1, centres weighted by d:
    dist(i, c) = A_ii / d_i^2 - 2 A(i, c) / (d_i s_c) + A(c, c) / s_c^2,
A(i, c) = sum_{j in c} A_ij, A(c, c) = sum_{j, l in c} A_jl, s_c = sum_{j in c} d_j, and
    sum_i d_i dist(i, c_i) = sum_i A_ii / d_i - k + NCut.
form="ncut_hollow" is that with A_ii = 0 (no self-loops, before d is formed). Its start
init="spectral" is Dhillon, Guan and Kulis' own: the partition that k-means finds on the relaxed
cut indicators D^-1/2 Y (Y the top-k eigenvectors of D^-1/2 A D^-1/2, Shi and Malik), from which
the weighted iterations go on.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.cluster import KMeans as _SKKMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import normalize
from sklearn.utils import check_random_state
from sklearn.utils.validation import validate_data

from docfact.algorithms._validation import integer, options
from docfact.algorithms.kernels import (
    KERNEL_CONSTRAINTS,
    affinity,
    kernel_operator,
    leading_eigenpairs,
    positive_degrees,
)

FORMS = ("scaled", "ncut", "ncut_hollow")  # of the NC weighting
INITS = ("random", "k-means++", "spectral")


class KMeans(ClusterMixin, BaseEstimator):
    """k-means with litekmeans-style starts.

    Parameters
    ----------
    n_clusters : int
    n_replicates : int, random restarts; the best by sum of distances is kept.
    init : "random" (k distinct points drawn uniformly, litekmeans), "k-means++" (each next
        start point drawn with probability proportional to its squared distance to the nearest
        one drawn; Arthur and Vassilvitskii 2007), in the space the iterations run in, or, for
        the ncut forms, "spectral" (the partition of k-means, n_replicates random starts, on the
        relaxed cut indicators D^-1/2 Y of the same affinity, from which the weighted iterations
        run once; Dhillon, Guan, Kulis 2004).
    max_iter : int, Lloyd iterations per replicate (100 in litekmeans).
    kernel : "linear" (k-means on the rows of X), "polynomial" ((X X^T)^degree) or
        "precomputed" (X is the kernel K, (n, n)).
    degree : int, of the polynomial kernel.
    metric : "euclidean" (squared distances, litekmeans) or "cosine" (1 - cosine, MATLAB's
        kmeans 'Distance','cosine'; linear kernel only).
    ncw : bool, normalized-cut weighting (KM-NCW), in the form `form`.
    form : "scaled" (k-means on the rows of X scaled by d^-1/2, d = X X^T 1, or on
        K <- D^-1/2 K D^-1/2), "ncut" (weighted kernel k-means: the normalized cut of the
        affinity A = X X^T or the kernel) or "ncut_hollow" (the same with A_ii = 0).
    random_state : int, RandomState or None.

    Attributes: labels_ (n_samples,), inertia_ (sum of unsquared distances of the kept replicate;
    of 1 - cosine with metric="cosine"; the weighted objective sum_i d_i dist(i, c_i) with
    the ncut forms).
    """

    _parameter_constraints = {
        "n_clusters": [integer(1)], "n_replicates": [integer(1)], "init": [options(*INITS)],
        "max_iter": [integer(1)], **KERNEL_CONSTRAINTS,
        "metric": [options("euclidean", "cosine")], "form": [options(*FORMS)],
        "random_state": ["random_state"]}
    uses_kernel = True  # the contract (docfact/algorithms/__init__.py)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def __init__(self, n_clusters, *, n_replicates=1, init="random", max_iter=100,
                 kernel="linear", degree=2, metric="euclidean", ncw=False, form="scaled",
                 random_state=None):
        self.n_clusters = n_clusters
        self.n_replicates = n_replicates
        self.init = init
        self.max_iter = max_iter
        self.kernel = kernel
        self.degree = degree
        self.metric = metric
        self.ncw = ncw
        self.form = form
        self.random_state = random_state

    def _validate_params(self):
        """scikit-learn's checks of each parameter, then of their combinations."""
        super()._validate_params()
        if self.init == "k-means++" and self.form != "scaled":
            raise ValueError("init='k-means++' needs form='scaled'")
        if self.init == "spectral" and self.form == "scaled":
            raise ValueError("init='spectral' needs form='ncut' or 'ncut_hollow'")
        if self.metric == "cosine" and self.kernel != "linear":
            raise ValueError("metric='cosine' needs kernel='linear'")
        if self.form != "scaled" and not (self.ncw and self.metric == "euclidean"):
            raise ValueError(f"form={self.form!r} needs ncw=True and the euclidean metric")

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        n = X.shape[0]
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} exceeds n_samples={n}")
        if self.form != "scaled":
            X, lloyd = NCutAffinity(kernel_operator(X, self.kernel, self.degree),
                                    self_loops=self.form == "ncut"), _lloyd_weighted
        else:
            K, _ = affinity(X, self.kernel, self.degree, self.ncw)
            if self.metric == "cosine":
                X, lloyd = normalize(K.X), _lloyd_cosine
            elif self.kernel == "linear":  # Lloyd in the input space, on the (weighted) samples
                X, lloyd = K.X, _lloyd_input_space
            else:
                X, lloyd = K.K, _lloyd_kernel
        rng = check_random_state(self.random_state)
        if self.init == "spectral":
            start = KMeans(self.n_clusters, n_replicates=self.n_replicates,
                           max_iter=self.max_iter, random_state=rng).fit(
                               cut_indicators(X, self.n_clusters)).labels_
            E = _indicator(start, self.n_clusters)
            self.labels_, self.inertia_ = _lloyd_weighted_from(X, E, self.max_iter)
            return self
        best = None
        for _ in range(self.n_replicates):
            if self.init == "random":
                start = rng.choice(n, self.n_clusters, replace=False)
            else:
                start = plusplus(_sq_distances(X, self.metric, self.kernel), n,
                                 self.n_clusters, rng)
            labels, sum_d = lloyd(X, start, self.max_iter)
            if best is None or sum_d < best[0]:
                best = (sum_d, labels)
        self.inertia_, self.labels_ = best
        return self


def plusplus(sq_dist, n: int, k: int, rng) -> np.ndarray:
    """k-means++ seeding: k distinct point indices, the first uniform, each next one drawn with
    probability proportional to D(x)^2, its squared distance to the nearest point drawn so far.
    sq_dist(i) gives the squared distances (n,) of every point to point i."""
    start = [int(rng.randint(n))]
    nearest = sq_dist(start[0])
    for _ in range(1, k):
        weights = np.maximum(nearest, 0.0)
        weights[start] = 0.0
        total = weights.sum()
        free = np.setdiff1d(np.arange(n), start)
        nxt = int(rng.choice(free)) if total <= 0 else int(rng.choice(n, p=weights / total))
        start.append(nxt)
        nearest = np.minimum(nearest, sq_dist(nxt))
    return np.array(start)


def _sq_distances(X, metric: str, kernel: str):
    """sq_dist(i) -> (n,) squared distances to point i in the space the iterations run in: the
    rows of X, unit rows (cosine: 1 - cos, as the iterations), or the kernel matrix X = K."""
    if kernel != "linear":
        diag = np.diag(X)
        return lambda i: diag - 2 * X[:, i] + diag[i]
    def dots(i):  # X x_i, (n,)
        return (X @ X[i].T).toarray().ravel() if sp.issparse(X) else X @ X[i]

    if metric == "cosine":
        return lambda i: 1.0 - dots(i)
    sq = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X) else np.einsum(
        "ij,ij->i", X, X)
    return lambda i: sq - 2 * dots(i) + sq[i]


def _lloyd_input_space(X, start, max_iter):
    """scikit-learn's Lloyd iterations from the points `start`: (labels, sum of distances)."""
    centers = X[start]
    centers = centers.toarray() if sp.issparse(centers) else centers
    # Fewer distinct points than k (duplicate rows of V) leave a cluster empty, as litekmeans
    # may: the labels show it; scikit-learn's warning would only clutter a table's output.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = _SKKMeans(len(start), init=centers, n_init=1, max_iter=max_iter, tol=0.0).fit(X)
    d = km.transform(X)[np.arange(X.shape[0]), km.labels_]
    return km.labels_, float(d.sum())


def _lloyd_kernel(K, start, max_iter):
    """Lloyd iterations in the kernel's feature space, from the points `start`.

    ||phi_i - m_c||^2 = K_ii - 2 mean_{j in c} K_ij + mean_{j,l in c} K_jl. An emptied cluster
    is re-seeded with the point farthest from its centre. The sums S = K E (E the clusters'
    indicator, n x k) are updated from the rows of K of the points that moved, not taken again
    from all of K (N^2 read per step); all of K when more than half moved. On 34 draws of the
    LCCF tables (N = 260 to 4128) the fits took 7 to 9 times less CPU in all, most of it saved
    at N of 2000 and more, with the same labels.
    """
    n, k = K.shape[0], len(start)
    diag = np.diag(K)
    dist = diag[:, None] - 2 * K[:, start] + diag[start][None, :]
    labels = dist.argmin(axis=1)
    E = S = None  # the clusters' indicator (n, k) and S = K E, the sums of their columns of K
    for _ in range(max_iter):
        before, E = E, _reseeded(_indicator(labels, k), dist[np.arange(n), labels])
        moved = None if before is None else np.flatnonzero((E != before).any(axis=1))
        if moved is None or len(moved) > n // 2:
            S = K @ E
        elif len(moved):  # S + K (E - before), from the rows of K (symmetric) of the moved
            S = S + K[moved].T @ (E[moved] - before[moved])
        counts = E.sum(axis=0)
        KE = S / counts
        dist = diag[:, None] - 2 * KE + (np.sum(E * KE, axis=0) / counts)[None, :]
        new = dist.argmin(axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
    d = np.sqrt(np.maximum(dist[np.arange(n), labels], 0.0))
    return labels, float(d.sum())


class NCutAffinity:
    """The affinity A (n, n) of weighted kernel k-means for the normalized cut: a kernel
    operator, with A_ii = 0 when not `self_loops`; its degrees d = A 1 are the weights."""

    def __init__(self, K, self_loops: bool = True):
        self.K, self.n = K, K.n
        self.a = K.diag() if self_loops else np.zeros(K.n)
        self.d = positive_degrees(K.row_sums() - (0.0 if self_loops else K.diag()))
        self.drop = None if self_loops else K.diag()

    def dot(self, E: np.ndarray) -> np.ndarray:
        """A E, E (n, k)."""
        AE = self.K.dot(E)
        return AE if self.drop is None else AE - self.drop[:, None] * E

    def distances(self, E: np.ndarray) -> np.ndarray:
        """dist(i, c) (n, k) to the d-weighted centres of the clusters E (n, k) indicates; +inf
        to an empty cluster's (no centre: no point joins it, and the iterations re-seed it)."""
        s = self.d @ E
        empty = s == 0
        if empty.any():
            s = np.where(empty, 1.0, s)
        AE = self.dot(E)
        dist = ((self.a / self.d**2)[:, None] - 2 * AE / (self.d[:, None] * s)
                + np.sum(E * AE, axis=0) / s**2)
        dist[:, empty] = np.inf
        return dist


def cut_indicators(A: NCutAffinity, k: int) -> np.ndarray:
    """D^-1/2 Y (n, k), Y the k leading eigenvectors of D^-1/2 A D^-1/2: the top-k generalized
    eigenvectors of A z = lambda D z, the relaxed indicators of the normalized cut of A (Shi and
    Malik), by kernels.leading_eigenpairs through A's products."""
    g = 1.0 / np.sqrt(A.d)
    M = LinearOperator((A.n, A.n), dtype=float,
                       matvec=lambda y: g * A.dot((g * np.ravel(y))[:, None])[:, 0])
    return g[:, None] * leading_eigenpairs(M, k)[1]


def _indicator(labels: np.ndarray, k: int) -> np.ndarray:
    """E (n, k): E_ic = 1 where sample i is in cluster c."""
    E = np.zeros((len(labels), k))
    E[np.arange(len(labels)), labels] = 1.0
    return E


def _reseeded(E: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """E (n, k) with each empty cluster given one of the points farthest from their centres
    (spread (n,): each point's distance to its own), in place."""
    empty = np.flatnonzero(E.sum(axis=0) == 0)
    if len(empty):
        far = np.argsort(spread)[::-1][: len(empty)]
        E[far] = 0.0
        E[far, empty] = 1.0
    return E


def _lloyd_weighted(A: NCutAffinity, start, max_iter, history=None):
    """Weighted kernel k-means (Dhillon, Guan, Kulis 2004) from the points `start`
    (_lloyd_weighted_from, each point a cluster of its own)."""
    E = np.zeros((A.n, len(start)))
    E[start, np.arange(len(start))] = 1.0
    return _lloyd_weighted_from(A, E, max_iter, history)


def _lloyd_weighted_from(A: NCutAffinity, E, max_iter, history=None):
    """Weighted kernel k-means from the clusters E (n, k) indicates: each point to its nearest
    d-weighted centre, then the centres recomputed. An emptied cluster is re-seeded with the
    point farthest from its centre. Returns (labels, sum_i d_i dist(i, c_i)); appends that
    objective after each assignment to `history` if given.

    Everything an iteration computes follows from the distances of the one before, so once the
    distances repeat bit for bit (a cluster emptied and re-seeded in turn: a 2-cycle in most
    collapsing runs) the iterations left are a replay; they are read from the cycle instead of
    computed, with the same result as computing them."""
    n, k = E.shape
    dist = A.distances(E)
    labels = dist.argmin(axis=1)
    seen, states, objectives = {}, [], []  # an iteration's distances (bytes) -> its index
    for it in range(max_iter):
        labels, dist = _weighted_step(A, labels, dist)
        objectives.append(float(A.d @ dist[np.arange(n), labels]))
        new = dist.argmin(axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        states.append(dist.tobytes())
        first = seen.setdefault(states[-1], it)
        if first < it:  # iteration t > it replays iteration first + 1 + (t - first - 1) mod P
            period = it - first
            replay = [first + 1 + (t - first - 1) % period for t in range(it + 1, max_iter)]
            objectives += [objectives[s] for s in replay]
            if replay:
                dist = np.frombuffer(states[replay[-1]], dtype=dist.dtype).reshape(n, k)
                labels = dist.argmin(axis=1)
            break
    if history is not None:
        history += objectives
    return labels, float(A.d @ dist[np.arange(n), labels])


def _weighted_step(A: NCutAffinity, labels, dist) -> tuple:
    """One iteration of weighted kernel k-means: the clusters `labels` (n,) name, an emptied one
    re-seeded with the point farthest from its centre by the previous distances `dist` (n, k).
    Returns (the labels after re-seeding, the distances (n, k) to the new d-weighted centres)."""
    n, k = dist.shape
    E = _reseeded(_indicator(labels, k), dist[np.arange(n), labels])
    return E.argmax(axis=1), A.distances(E)


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
