"""Kernel matrices as operators on the samples (one per row): K = X X^T, the papers' X^T X.

The linear kernel is never formed: K Y = X (X^T Y) costs two sparse products, O(nnz K), where
the dense N x N matrix of the reference code costs O(N^2 K) per product and O(N^2) memory.
Other kernels (the LCCF paper's degree-2 polynomial <x_i, x_j>^2) are dense N x N matrices,
built once per run (its documents) and shared by every method of the run that needs them.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import ArpackNoConvergence, eigsh
from sklearn.metrics import pairwise

from docfact.algorithms._validation import integer, options
from docfact.algorithms.costs import kernel_form, scatter_is_faster
from docfact.algorithms.engine import dot_all, dtype, fast_products, kernel_dtype, sq_norm

KERNELS = ("linear", "polynomial", "precomputed")


class SparseProduct:
    """A @ Y for a sparse A (r, c) in CSR held with At = A^T in CSR (c, r), Y (c, ...) dense.

    scipy has two loops for it: by the rows of A (each output row sums the rows of Y it needs)
    and by the rows of At (scipy's CSC product on At.T: each row of Y is added into the output
    rows it touches). With sorted indices (scipy's canonical form) both add the terms of every
    output entry, a_i1 y_1 + a_i2 y_2 + ..., in the same order, so their digits are equal; the
    second is used where costs.scatter_is_faster says, the first when an index is unsorted."""

    def __init__(self, A, At):
        self.A, self.At_T = A, At.T
        self.same_order = A.has_sorted_indices and At.has_sorted_indices

    def __matmul__(self, Y: np.ndarray) -> np.ndarray:
        r, c = self.A.shape
        if self.same_order and scatter_is_faster(r, c, 1 if Y.ndim == 1 else Y.shape[1],
                                                 np.result_type(self.A.dtype, Y).itemsize):
            return self.At_T @ Y
        return self.A @ Y


def sparse_products(X, Xt) -> tuple:
    """(X, X^T) as operands of products: SparseProducts for sparse X, else X and Xt unchanged."""
    if sp.issparse(X):
        return SparseProduct(X, Xt), SparseProduct(Xt, X)
    return X, Xt


class LinearKernel:
    """K = X X^T for X (n, m), sparse or dense."""

    def __init__(self, X):
        self.X = X
        self.Xt = sp.csr_matrix(X.T) if sp.issparse(X) else np.ascontiguousarray(X.T)
        self.n = X.shape[0]
        self._X, self._Xt = sparse_products(self.X, self.Xt)

    def dot(self, Y: np.ndarray) -> np.ndarray:
        """K Y, Y (n, k)."""
        return np.asarray(self._X @ (self._Xt @ Y))

    def dot_all(self, Ys: list) -> list:
        """[K Y for Y in Ys] from X (X^T [Y_1 ... Y_R]), X read twice instead of 2R times: for
        sparse X with the digits of one at a time (engine.dot_all), 1.3-2x faster on TDT2; for
        dense X (images) only with products "auto" (BLAS sums in another order)."""
        if not sp.issparse(self.X) and not fast_products():
            return [self.dot(Y) for Y in Ys]
        return dot_all(self._X, Ys, self._Xt)

    def diag(self) -> np.ndarray:
        """diag(K) (n,): the squared norms of the samples."""
        return np.asarray(self.X.multiply(self.X).sum(axis=1)).ravel() if sp.issparse(
            self.X) else np.sum(self.X * self.X, axis=1)

    def trace(self) -> float:
        # ||X||_F^2, not diag().sum(): summed in this order, the committed objectives keep
        # their digits
        return sq_norm(self.X)

    def row_sums(self) -> np.ndarray:
        return self.dot(np.ones(self.n))

    def min(self) -> float:
        """The smallest entry, without forming K: >= 0 when X >= 0."""
        data = self.X.data if sp.issparse(self.X) else self.X
        return 0.0 if (data >= 0).all() else float(np.min(self.dense()))

    def scaled(self, s: np.ndarray) -> "LinearKernel":
        """diag(s) K diag(s), as the kernel of the rows of X scaled by s."""
        return LinearKernel(sp.csr_matrix(sp.diags(s) @ self.X) if sp.issparse(self.X)
                            else s[:, None] * self.X)

    def dense(self) -> np.ndarray:
        K = self.X @ self.Xt
        return K.toarray() if sp.issparse(K) else np.asarray(K)

    def astype(self, dtype) -> "LinearKernel":
        return LinearKernel(self.X.astype(dtype))


class DenseKernel:
    """A precomputed symmetric K (n, n)."""

    def __init__(self, K: np.ndarray):
        self.K = np.asarray(K)
        self.n = self.K.shape[0]

    def dot(self, Y: np.ndarray) -> np.ndarray:
        return self.K @ Y

    def dot_all(self, Ys: list) -> list:
        """[K Y for Y in Ys] from one product K [Y_1 ... Y_R]: K is read once, not R times
        (the product is bound by memory bandwidth: 10 starts cost 3.4 times one, measured)."""
        return dot_all(self.K, Ys)

    def diag(self) -> np.ndarray:
        return np.diag(self.K).copy()

    def trace(self) -> float:
        return float(np.trace(self.K))

    def row_sums(self) -> np.ndarray:
        return self.K.sum(axis=1)

    def min(self) -> float:
        return float(self.K.min())

    def scaled(self, s: np.ndarray) -> "DenseKernel":
        return DenseKernel(s[:, None] * self.K * s[None, :])

    def dense(self) -> np.ndarray:
        return self.K

    def astype(self, dtype) -> "DenseKernel":
        return DenseKernel(self.K.astype(dtype, copy=False))


class Float32Products:
    """A kernel operator K whose products K Y are taken in float32 (K and Y cast) and given
    back in float64: the loop's products at float32's cost, its factors kept in float64, where
    an entry that falls below float32's range would become a zero that a multiplicative update
    never leaves (numerics precision "mixed"; bench/MIXED.md)."""

    def __init__(self, K):
        self.K = K.astype(np.float32)

    @property
    def n(self) -> int:
        return self.K.n

    def dot(self, Y: np.ndarray) -> np.ndarray:
        return self.K.dot(Y.astype(np.float32)).astype(np.float64)

    def dot_all(self, Ys: list) -> list:
        return [KY.astype(np.float64) for KY in self.K.dot_all([Y.astype(np.float32)
                                                                 for Y in Ys])]


def formed_if_cheaper(K, X, k: int, n_restarts: int, min_iter: int, max_iter: int | None,
                      **schedule):
    """K, the linear kernel (or affinity) of sparse X, formed (DenseKernel, N x N) when
    products are "auto" and the cost model finds the formed K cheaper for this fit
    (costs.kernel_form; `schedule` as fit_products'), else K itself."""
    if fast_products() and kernel_form(X, k, n_restarts, min_iter, max_iter,
                                       np.dtype(kernel_dtype()).itemsize,
                                       **schedule) == "dense":
        return DenseKernel(K.dense())
    return K


def in_products(K):
    """The kernel operator K whose products the loop takes: Float32Products(K) under numerics
    precision "mixed" (products in float32, the loop's factors in float64), else K itself."""
    return Float32Products(K) if kernel_dtype() != dtype() else K


class LastProduct:
    """An operator K (a kernel, or any object with `dot` and `dot_all`) that keeps its last
    product K Y and gives it back when asked for K Y of an equal Y: the same product, so the
    same digits. Where a fit takes an objective every iteration, the objective and the next
    update share a product (CF, LCCF, LCF: K U; HHt: W H), or the objective and the update
    before it (NMF, SparseNMF: X V), and PSPt takes W P of one P in Eq. 8, Eq. 4 and the next
    Eq. 6 (three products become one). Products for several starts at once (`dot_all`) are not
    kept. The product returned is read-only."""

    def __init__(self, op):
        self.op = op
        self._Y = self._KY = None

    @property
    def n(self) -> int:
        return self.op.n

    def dot(self, Y: np.ndarray) -> np.ndarray:
        if self._Y is None or self._Y.shape != Y.shape or not np.array_equal(self._Y, Y):
            self._Y, self._KY = Y.copy(), self.op.dot(Y)
            self._KY.flags.writeable = False
        return self._KY

    def dot_all(self, Ys: list) -> list:
        """[K Y for Y in Ys]: one start's product kept as `dot` (K.dot_all([Y]) is K.dot(Y),
        the same operations), several taken at once by K."""
        return [self.dot(Ys[0])] if len(Ys) == 1 else self.op.dot_all(Ys)


def polynomial_kernel(X, degree: int = 2) -> np.ndarray:
    """K_ij = <x_i, x_j>^degree (no offset), dense (n, n): LCCF Section 4.3's kernelized rows
    (scikit-learn's polynomial kernel with gamma 1 and coef0 0)."""
    return pairwise.polynomial_kernel(X, degree=degree, gamma=1, coef0=0)


def kernel_operator(X, kernel: str = "linear", degree: int = 2):
    """The operator for `kernel`: X is the data (n, m), or K (n, n) when kernel="precomputed"."""
    if kernel == "linear":
        return LinearKernel(X)
    if kernel == "polynomial":
        return DenseKernel(polynomial_kernel(X, degree))
    if kernel == "precomputed":
        if X.shape[0] != X.shape[1]:
            raise ValueError(f"a precomputed kernel must be square, got {X.shape}")
        return DenseKernel(X.toarray() if sp.issparse(X) else X)
    raise ValueError(f"kernel must be one of {list(KERNELS)}, got {kernel!r}")


# The kernel parameters shared by k-means, spectral clustering and CF.
KERNEL_CONSTRAINTS = {"kernel": [options(*KERNELS)], "degree": [integer(1)], "ncw": ["boolean"]}


def affinity(X, kernel: str = "linear", degree: int = 2, ncw: bool = False) -> tuple:
    """(K, g): the kernel operator of X, NC-weighted (K <- G K G, G = diag(g) = D^-1/2) when
    `ncw`, with g None otherwise. For the linear kernel the weighted operator's X holds the
    weighted samples, d_i^-1/2 x_i."""
    K = kernel_operator(X, kernel, degree)
    if not ncw:
        return K, None
    g = ncw_scaling(K)
    return K.scaled(g), g


def ncw_scaling(K) -> np.ndarray:
    """d^-1/2 with d = K 1: the normalized-cut weighting K <- D^-1/2 K D^-1/2 (Xu et al. 2003)."""
    return 1.0 / np.sqrt(positive_degrees(K.row_sums()))


def positive_degrees(d: np.ndarray) -> np.ndarray:
    """d, the affinity sums (n,), when all are positive, as NC weighting needs; else ValueError."""
    if (d <= 0).any():
        raise ValueError("NC weighting needs every sample to have a positive affinity sum")
    return d


def leading_eigenpairs(K, k: int) -> tuple:
    """(values (k,), vectors (n, k)): the k largest eigenpairs of a symmetric K (n, n), dense or
    a LinearOperator, largest first. Lanczos (ARPACK) needs products with K only, O(n^2) each,
    where the full decomposition reduces K to tridiagonal form, O(n^3): 0.7 s against 8.6 s at
    n = 4089, k = 10. Its start vector comes from a generator of its own, so the k-means starts
    that follow still draw from the estimator's. The full decomposition when k >= n - 1
    (ARPACK's limit) or when Lanczos does not converge."""
    n = K.shape[0]
    if k < n - 1:
        try:
            values, Y = eigsh(K, k=k, which="LA", v0=np.random.RandomState(n).uniform(-1, 1, n))
            order = np.argsort(values)[::-1]
            return values[order], Y[:, order]
        except ArpackNoConvergence:
            pass
    values, Y = np.linalg.eigh(K if isinstance(K, np.ndarray) else K @ np.eye(n))
    return values[::-1][:k], Y[:, ::-1][:, :k]
