"""p-nearest-neighbour graphs (constructW.m): GNMF Eq. (6), LCCF Eq. (8), RCF Eq. (10).

Neighbours are found by Euclidean distance on the rows (documents) of X, the point itself
excluded; the graph is symmetrised with max(W, W^T), i.e. i ~ j when either is among the other's
p nearest neighbours. For L2-normalised rows this is the cosine-similarity neighbourhood.
"""

import copy

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu
from sklearn.metrics import pairwise_distances_chunked
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import normalize
from sklearn.utils.extmath import row_norms
from sklearn.utils.multiclass import type_of_target

from docfact.algorithms._validation import integer, number, options
from docfact.algorithms.engine import graph_term

WEIGHTS = ("binary", "cosine", "heat")


def knn_graph(X, p: int = 5, weight: str = "binary") -> sp.csr_matrix:
    """Symmetric p-NN affinity W, shape (n, n), from the n rows of X (n, m); an all-zero row
    has no edges, and the other rows find their p neighbours among the rows that are not.

    weight="binary": W_ij = 1 on edges (GNMF Eq. 6);
    weight="cosine": W_ij = x_i^T x_j / (||x_i|| ||x_j||) on edges (LCCF Eq. 8);
    weight="heat": W_ij = exp(-||x_i - x_j||^2 / (2 t^2)) on edges, t the mean distance between
        the rows (RCF Eq. 10's Gaussian kernel, whose bandwidth the paper leaves unsaid, in the
        form and with the default of constructW.m's HeatKernel mode; the code averages over
        3000 rows drawn at random when n > 3000, here over every pair).
    """
    if weight not in WEIGHTS:
        raise ValueError(f"weight must be one of {WEIGHTS}, got {weight!r}")
    n = X.shape[0]
    if not 1 <= p < n:
        raise ValueError(f"p must be in [1, {n - 1}] for n_samples={n}, got {p}")
    live = np.flatnonzero(row_norms(X))  # not abs(X): scipy sorts a csr's indices in place
    if 0 < len(live) < n:  # an all-zero row (a document without terms) has no direction; at
        # distance 1 from every unit-length row it would be everyone's neighbour: no edges
        sub = knn_graph(X[live], min(p, len(live) - 1), weight).tocoo() if len(live) > 1 else (
            sp.coo_matrix((1, 1)))
        return sp.csr_matrix((sub.data, (live[sub.row], live[sub.col])), shape=(n, n))
    nn = NearestNeighbors(n_neighbors=p, algorithm="brute", metric="euclidean").fit(X)
    distances, cols = nn.kneighbors()  # the point itself is excluded
    cols = cols.ravel()
    rows = np.repeat(np.arange(n), p)
    if weight == "binary":
        values = np.ones(n * p)
    elif weight == "heat":
        t = mean_distance(X)
        values = np.exp(-distances.ravel() ** 2 / (2 * t**2))
    else:
        Xn = normalize(sp.csr_matrix(X))
        values = np.asarray(Xn[rows].multiply(Xn[cols]).sum(axis=1)).ravel()
    W = sp.csr_matrix((values, (rows, cols)), shape=(n, n))
    return sp.csr_matrix(W.maximum(W.T))


def mean_distance(X) -> float:
    """The mean Euclidean distance over all n^2 ordered pairs of rows of X (n, m), the diagonal's
    zeros included (constructW.m's mean(mean(EuDist2(X)))), computed in blocks of rows."""
    total = sum(float(block.sum()) for block in pairwise_distances_chunked(X))
    return total / X.shape[0] ** 2


def degrees(W) -> np.ndarray:
    """d = W 1, the diagonal of D in L = D - W."""
    return np.asarray(W.sum(axis=1)).ravel()


def signed_parts(W: sp.csr_matrix) -> tuple:
    """(W+, W-), W = W+ - W- with both parts nonnegative, or (W, None) for a graph without
    negative weights (cosine weights of signed data have some). The graph term then splits as
    the LCCF paper's Section 3.5 splits K: L = D - W = (D+ + W-) - (W+ + D-), the first part
    joining the denominators of the multiplicative updates, the second their numerators
    (NegativeWeights)."""
    if W.nnz == 0 or W.data.min() >= 0:
        return W, None
    return W.maximum(0).tocsr(), (-W).maximum(0).tocsr()


class NegativeWeights:
    """W- (n, n) of a graph split by signed_parts and its degrees d- (n,), as the rule scales
    them: their part of the multiplicative updates and of the objective."""

    def __init__(self, W, d):
        self.W, self.d = W, d

    def astype(self, dtype) -> "NegativeWeights":
        return NegativeWeights(self.W.astype(dtype), self.d.astype(dtype, copy=False))

    def split(self, V, num, den) -> None:
        """In place: D- V joins the numerator, W- V the denominator."""
        num += self.d[:, None] * V
        den += self.W @ V

    def value(self, V) -> float:
        """tr(V^T (D- - W-) V), to subtract from W+'s term."""
        return graph_term(V, self.W, self.d)


# The graph regulariser's parameters (lambda, p, weight), shared by GNMF and LCCF's family.
GRAPH_CONSTRAINTS = {"lam": [number()], "p": [integer(1)], "weight": [options(*WEIGHTS)]}


def check_graph(X, W, p: int, weight: str) -> sp.csr_matrix:
    """The regulariser's graph for the n rows of X: W if given (checked), else knn_graph."""
    n = X.shape[0]
    if W is None:
        return knn_graph(X, p, weight)
    if W.shape != (n, n):
        raise ValueError(f"the graph must be ({n}, {n}), got {W.shape}")
    W = sp.csr_matrix(W)
    if not np.isfinite(W.data).all():
        raise ValueError("the graph W has weights that are NaN or infinite")
    if (W != W.T).nnz:
        raise ValueError("the graph W must be symmetric (L = D - W)")
    return W


def check_partial_labels(y, n: int) -> np.ndarray:
    """y (n,) as integers, -1 for the unlabelled samples (scikit-learn's semi-supervised
    convention); ValueError unless some sample is labelled."""
    if y is None:
        raise ValueError("this method is semi-supervised and requires y to be passed, but the "
                         "target y is None: pass y, with -1 for the unlabelled samples")
    type_of_target(y, input_name="y", raise_unknown=True)
    y = np.asarray(y)
    if np.issubdtype(y.dtype, np.floating) and np.array_equal(y, np.round(y)):
        y = y.astype(np.int64)  # integral labels held as floats
    if y.shape != (n,):
        raise ValueError(f"y must be {n} integer labels (-1 = unlabelled), got shape {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"y must be {n} integer labels (-1 = unlabelled), got {y.dtype} "
                         "labels: number the classes 0, 1, ...")
    if (y < -1).any():
        raise ValueError("y: -1 marks an unlabelled sample, and classes are numbered from 0; "
                         f"got {int(y.min())}")
    if (y < 0).all():
        raise ValueError("y labels no sample")
    return y


def labelled_classes(y: np.ndarray) -> tuple:
    """(idx, codes): the labelled samples of partial labels y (-1 = unlabelled) and their
    classes numbered 0 .. c - 1."""
    idx = np.flatnonzero(y >= 0)
    return idx, np.unique(y[idx], return_inverse=True)[1]


def check_constraints(Z, n: int) -> sp.csr_matrix:
    """Pairwise constraints Z (n, n) as CSR: symmetric, zero diagonal, entries +1 (must-link)
    or -1 (cannot-link); ValueError otherwise or when Z constrains no pair."""
    if not sp.issparse(Z) or Z.shape != (n, n):
        raise ValueError(f"constraints must be a sparse ({n}, {n}) matrix, got "
                         f"{getattr(Z, 'shape', type(Z).__name__)}")
    Z = sp.csr_matrix(Z, dtype=np.float64, copy=True)  # the caller's Z left as it was
    Z.eliminate_zeros()
    if Z.nnz == 0:
        raise ValueError("the constraints hold no pair")
    if not np.isin(Z.data, (-1.0, 1.0)).all() or Z.diagonal().any() or (Z != Z.T).nnz:
        raise ValueError("constraints must be symmetric, +1 (must-link) or -1 (cannot-link) "
                         "off the diagonal")
    return Z


def must_link_labels(Z) -> np.ndarray:
    """Partial labels (n,) read from constraints Z (check_constraints) for the methods that
    take labels (CCF, GDCF): the connected components of the must-link graph, those of two
    samples or more numbered 0 .. c - 1 (a class each), -1 for the samples no must-link
    reaches; cannot-links are not read."""
    M, _ = pair_constraints(Z)
    _, comp = connected_components(M, directed=False)
    sizes = np.bincount(comp)
    linked = sizes[comp] > 1
    if not linked.any():
        raise ValueError("the constraints hold no must-link pair, which the labels are read from")
    y = np.full(len(comp), -1)
    y[linked] = np.unique(comp[linked], return_inverse=True)[1]
    return y


def partial_labels(y) -> np.ndarray:
    """Partial labels y as given, or read from constraints Z (must_link_labels)."""
    return must_link_labels(y) if sp.issparse(y) else y


def pair_constraints(y) -> tuple:
    """(M, C), sparse (n, n): M_ij = 1 for the must-link pairs (i != j labelled alike), C_ij = 1
    for the cannot-link pairs (labelled differently), from partial labels y (-1 = unlabelled),
    or from constraints Z (check_constraints): M = [Z > 0], C = [Z < 0]."""
    if sp.issparse(y):
        Z, links = sp.csr_matrix(y), []
        for sign in (1, -1):
            P = sp.csr_matrix(((sign * Z.data > 0).astype(float), Z.indices.copy(),
                               Z.indptr.copy()), Z.shape)
            P.eliminate_zeros()
            links.append(P)
        return tuple(links)
    n = len(y)
    idx, codes = labelled_classes(y)
    same = codes[:, None] == codes[None, :]
    differ = ~same
    np.fill_diagonal(same, False)
    return tuple(sp.csr_matrix((np.ones(mask.sum()), (idx[mask.nonzero()[0]],
                                                      idx[mask.nonzero()[1]])), shape=(n, n))
                 for mask in (same, differ))


class ClassCannotLinks:
    """C V for the cannot-links C (n, n) of pair_constraints from partial labels y, its
    entries 1 (lambda_H = 1, the RCF paper's), in a rule's dtype. Every labelled sample of a
    class is cannot-linked to the same samples, in the same order, so C V has one distinct row
    per class: each is summed as scipy's product sums a row of C (its v_j added from the left,
    in their stored order; numpy's sum over the first axis of a C-ordered array adds its rows
    in order, an implementation detail a test holds) and copied to the class's rows. The
    digits of C @ V at O(classes x labelled x k), where the product is O(labelled^2 x k): 3.1
    million entries at t = 20% of 9000 documents in 30 classes."""

    def __init__(self, C: sp.csr_matrix, y: np.ndarray):
        if not (C.data == 1).all():
            raise ValueError("ClassCannotLinks takes the cannot-links with entries 1")
        self.C = C
        idx, codes = labelled_classes(y)
        self.classes = []
        for c in range(codes.max() + 1 if len(codes) else 0):
            rows = idx[codes == c]
            self.classes.append((rows, C.indices[C.indptr[rows[0]]:C.indptr[rows[0] + 1]]))

    def __matmul__(self, V: np.ndarray) -> np.ndarray:
        if V.ndim != 2 or V.shape[1] < 2:  # a single column would be summed pairwise
            return self.C @ V
        out = np.zeros((self.C.shape[0], V.shape[1]), dtype=np.result_type(self.C.dtype, V))
        V = V.astype(out.dtype, copy=False)  # as scipy: the sum in the common type
        for rows, cols in self.classes:
            if len(cols):
                out[rows] = np.add.reduce(V[cols], axis=0)
        return out


def labelled_graph(W, y: np.ndarray) -> sp.csr_matrix:
    """SemiLCCF's graph (LCCF paper Section 3.4): the labelled x labelled block of the p-NN
    affinity W (n, n) overwritten, 1 for every pair of one class, 0 for pairs of different
    classes; diagonal zero; symmetric."""
    M, C = pair_constraints(y)
    W = sp.csr_matrix(W, copy=True)
    W = W - W.multiply(C) - W.multiply(M) + M  # both blocks cleared, must-links set to 1
    W.setdiag(0)
    W.eliminate_zeros()
    return sp.csr_matrix(W.maximum(W.T))


LINKS = {"both": (2.0, 1.0), "must": (1.0, 0.0), "cannot": (1.0, 1.0)}  # Z = a Y Y^T - b 1 1^T


def propagate_constraints(W, y, alpha: float, links: str = "both") -> np.ndarray:
    """E2CP (Lu & Ip 2010) as RCF Section 3.1 uses it: F* (n, n), the limit of the vertical
    then the horizontal propagation of Z (RCF Eq. 9: +1 same class, -1 different classes, 0
    unknown) over S = D^-1/2 W D^-1/2 (W the p-NN affinity, zero diagonal):
        F* = (1 - alpha)^2 (I - alpha S)^-1 Z (I - alpha S)^-1,   |F*_ij| <= 1.
    On the labelled samples Z = a Y Y^T - b 1 1^T (Y their one-hot classes): a, b = 2, 1 for
    both kinds of links; links="must" keeps the +1 (1, 0), links="cannot" the -1 (1, 1; RCF
    Fig. 3). So F* = a G G^T - b s s^T with G = propagation_factors(W, y, alpha), s = G 1.
    Given constraints Z (check_constraints) in place of y, F* = (1 - alpha)^2 P Z P with
    P = (I - alpha S)^-1 (two solves of n right-hand sides); "must" keeps max(Z, 0), "cannot"
    min(Z, 0). From y, Z_ii = +1 for each labelled sample (its own class, as Eq. 9 reads);
    the pairs of constraints Z are i != j, so the two differ by that diagonal (V by about
    1e-3 on 20 Newsgroups draws)."""
    a, b = LINKS[links]
    if sp.issparse(y):
        M, C = pair_constraints(y)
        Z = {"both": M - C, "must": M, "cannot": -C}[links]
        lu = _propagator(W, alpha)
        F = lu.solve(np.ascontiguousarray(lu.solve(Z.toarray()).T))  # P Z P, P symmetric
        F += F.T
        F *= (1 - alpha) ** 2 / 2
        return F
    G = propagation_factors(W, y, alpha)
    F = a * (G @ G.T)
    if b:
        s = G.sum(axis=1)
        F -= b * np.outer(s, s)
    return F


def propagation_factors(W, y, alpha: float) -> np.ndarray:
    """G (n, c) = (1 - alpha) (I - alpha S)^-1 E Y of partial labels y (-1 unlabelled; E Y
    the n x c one-hot classes of the labelled samples, zero rows elsewhere): one sparse solve
    per class instead of the n x n inverse (propagate_constraints)."""
    idx, codes = labelled_classes(y)
    EY = sp.csr_matrix((np.ones(len(idx)), (idx, codes)), shape=(len(y), codes.max() + 1))
    G = _propagator(W, alpha).solve(EY.toarray())
    G *= 1 - alpha
    return G


def _propagator(W, alpha: float):
    """The sparse LU factors of I - alpha S, S = D^-1/2 W D^-1/2."""
    d = degrees(W)
    g = 1.0 / np.sqrt(np.maximum(d, np.finfo(float).tiny))
    S = sp.diags(g) @ sp.csr_matrix(W) @ sp.diags(g)
    return splu(sp.csc_matrix(sp.identity(W.shape[0]) - alpha * S))


def constrained_weights(W, F: np.ndarray) -> np.ndarray:
    """RCF Eq. (11), dense (n, n): W~_ij = 1 - (1 - f_ij)(1 - w_ij) where f_ij >= 0, and
    (1 + f_ij) w_ij where f_ij < 0; i.e. W~ = max(F, 0) + W * (1 - |F|). F is overwritten."""
    W = sp.coo_matrix(W)
    kept = W.data * (1 - np.abs(F[W.row, W.col]))
    np.maximum(F, 0, out=F)
    np.add.at(F, (W.row, W.col), kept)
    return F


class ConstrainedGraph:
    """RCF Eq. (11)'s W~ (n, n) = max(F, 0) + W * (1 - |F|), for F = a G G^T - b s s^T with
    G >= 0 (n, c) (propagation_factors), s = G 1 and 2 b >= a (links "both" or "cannot"),
    held without the n x n array.

    With h_i = g_i / s_i (non-negative, summing to 1), F_ij = s_i s_j (a h_i.h_j - b) > 0 needs
    h_i.h_j > b / a >= 1/2. As h_i.h_j <= max h_i, samples i and j both lean to a class by more
    than 1/2, and to the same one: leaning to c by x and to c' != c by y gives
    h_i.h_j <= x (1 - y) + (1 - x) y < 1/2. So max(F, 0) is block diagonal over the groups of
    samples leaning to one class: those blocks are kept dense, W * (1 - |F|) sparse, and W~ V
    costs sum_c n_c^2 flops per column instead of n^2 (a ninth on TDT2's 27-class draws).
    It offers what the update rules ask of a graph: W~ @ V, lam * W~, astype, sum(axis=1)."""

    def __init__(self, W, G: np.ndarray, a: float, b: float):
        if 2 * b < a:
            raise ValueError("max(F, 0) is block diagonal only for 2 b >= a")
        s = G.sum(axis=1)
        W = sp.coo_matrix(W)
        f = a * np.einsum("ij,ij->i", G[W.row], G[W.col]) - b * s[W.row] * s[W.col]
        self.shape = W.shape
        self.sparse = sp.csr_matrix((W.data * (1 - np.abs(f)), (W.row, W.col)), shape=W.shape)
        h = G / np.where(s > 0, s, 1.0)[:, None]
        lean = np.where(h.max(axis=1) > b / a, h.argmax(axis=1), -1)
        self.blocks = []
        for c in np.unique(lean[lean >= 0]):
            idx = np.flatnonzero(lean == c)
            B = a * (G[idx] @ G[idx].T)
            B -= b * np.outer(s[idx], s[idx])
            self.blocks.append((idx, np.maximum(B, 0, out=B)))

    def __matmul__(self, V: np.ndarray) -> np.ndarray:
        out = np.asarray(self.sparse @ V)
        for idx, B in self.blocks:
            out[idx] += B @ V[idx]
        return out

    def __rmul__(self, lam: float) -> "ConstrainedGraph":
        return self._map(lambda A: lam * A)

    def astype(self, dtype) -> "ConstrainedGraph":
        return self._map(lambda A: A.astype(dtype))

    def sum(self, axis: int = 1) -> np.ndarray:
        """Row sums (W~ is symmetric: the column sums alike)."""
        d = np.asarray(self.sparse.sum(axis=1)).ravel()
        for idx, B in self.blocks:
            d[idx] += B.sum(axis=1)
        return d

    def toarray(self) -> np.ndarray:
        A = self.sparse.toarray()
        for idx, B in self.blocks:
            A[np.ix_(idx, idx)] += B
        return A

    def _map(self, f) -> "ConstrainedGraph":
        new = copy.copy(self)
        new.sparse = sp.csr_matrix(f(self.sparse))
        new.blocks = [(idx, f(B)) for idx, B in self.blocks]
        return new
