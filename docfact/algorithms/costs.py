"""What the products of one iteration cost, and the cheapest form of K for a fit.

A product takes the kernel K (N, N) of the documents X (N, M) times Y (N, c), c = k columns per
start times the starts taken at once (R in the restart phase, 1 after). Its two forms:
    sparse  K Y = X (X^T Y): flops 4 nnz c,  bytes 2 nnz (b + 4) + 2 (N + M) c b
    dense   K Y, K formed:   flops 2 N^2 c,  bytes N^2 b + 2 N c b
with b the bytes of a float (8, or 4 in float32) and 4 those of a column index. One product is
one pass over the operator, however many starts it takes (the starts are batched: kernels.py).
Time = bytes / bandwidth + flops / rate, with each form's rates measured on one core
(`Machine`; bench/bench.py measures them again and prints how far each kernel is from the
machine's triad bandwidth and GEMM peak). The dense form also costs building K once,
2 sum_t df_t^2 flops at the sparse rate (df_t the documents holding term t), and N^2 b of memory.
RCF's W~ V is a dense product of the same kind, one start at a time with products "reference"
(as the committed float64 tables were computed); with "auto" it is batched over the starts and
taken on W~'s structure (graphs.ConstrainedGraph: sum_c n_c^2 instead of N^2 per column).
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

MAX_DENSE_BYTES = 2**30  # a formed K above this size is never chosen (memory of a worker)
SCATTER_BYTES = 2**23  # an output up to this size stays in cache while rows are added into it


@dataclass(frozen=True)
class Machine:
    """Achieved rates of one core (bytes/s and flop/s), float64; float32 doubles the dense
    flop rate (twice the SIMD lanes). Measured on the 2-core machine the tables are run on
    (bench/bench.py, TDT2's 10 largest classes, N = 7456, c = 10 and 100)."""

    dense_bandwidth: float = 6.7e9
    dense_flops: float = 24e9
    sparse_bandwidth: float = 5.3e9
    sparse_flops: float = 2.9e9


MACHINE = Machine()


@dataclass(frozen=True)
class Cost:
    """Bytes moved and flops of some products, and their time on a Machine (seconds)."""

    bytes: float
    flops: float
    seconds: float

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(self.bytes + other.bytes, self.flops + other.flops,
                    self.seconds + other.seconds)

    def __mul__(self, times: float) -> "Cost":
        return Cost(self.bytes * times, self.flops * times, self.seconds * times)


def sparse_product(n: int, m: int, nnz: int, c: int, itemsize: int = 8) -> Cost:
    """X (X^T Y) with X (n, m) holding nnz entries, Y (n, c): X and X^T read once, Y and the
    (m, c) intermediate read and written."""
    b, f = 2 * nnz * (itemsize + 4) + 2 * (n + m) * c * itemsize, 4 * nnz * c
    return Cost(b, f, b / MACHINE.sparse_bandwidth + f / MACHINE.sparse_flops)


def dense_product(n: int, c: int, itemsize: int = 8) -> Cost:
    """K Y with K (n, n) formed, Y (n, c); also W~ V."""
    b, f = n * n * itemsize + 2 * n * c * itemsize, 2 * n * n * c
    rate = MACHINE.dense_flops * (8 / itemsize)
    return Cost(b, f, b / MACHINE.dense_bandwidth + f / rate)


def dense_build(X, itemsize: int = 8) -> Cost:
    """Forming K = X X^T (N, N) from sparse X: the sparse product, then the dense array."""
    df = np.diff(sp.csc_matrix(X).indptr).astype(float)
    f, b = 2 * float(np.sum(df * df)), X.shape[0] ** 2 * itemsize
    return Cost(b, f, f / MACHINE.sparse_flops + b / MACHINE.dense_bandwidth)


def fit_products(form: str, X, k: int, n_restarts: int, min_iter: int, max_iter: int | None,
                 itemsize: int = 8, *, per_iteration: int = 2, batched: bool = True,
                 trials: bool = False) -> Cost:
    """The K products of a fit in `form` ("sparse" or "dense", building K included), each of k
    columns per start, `per_iteration` of them (CF's family: K U and K V; HHt and PSPt: W H,
    W P). The restart phase runs the n_restarts starts min_iter + 1 iterations (max_iter if
    fewer), in one product when `batched` (CF's family), else one at a time; the chosen start
    runs on to max_iter (min_iter + 1 + 100 assumed when max_iter is None: the stopping rule's
    typical length); with `trials` every start runs the whole length (engine.minimize)."""
    (n, m), nnz = X.shape, X.nnz
    total = max_iter if max_iter is not None else min_iter + 101
    restart_iters = total if trials else min(min_iter + 1, total) if n_restarts > 1 else 0
    rest = total - restart_iters

    def product(c):
        return (sparse_product(n, m, nnz, c, itemsize) if form == "sparse"
                else dense_product(n, c, itemsize))

    restart = product(k * n_restarts) if batched else product(k) * n_restarts
    cost = restart * (per_iteration * restart_iters) + product(k) * (per_iteration * max(rest, 0))
    return cost + dense_build(X, itemsize) if form == "dense" else cost


def scatter_is_faster(out_rows: int, in_rows: int, c: int, itemsize: int = 8) -> bool:
    """Whether A Y, A sparse (out_rows, in_rows) and Y (in_rows, c), is faster taken by the rows
    of A^T (each row of Y added into the output rows it touches) than by the rows of A (each
    output row summing the rows of Y it needs): when the output is no larger than Y, or fits in
    SCATTER_BYTES. On TDT2 (N = 700 to 9394 documents, 36771 terms, c = 3 to 300, float32 and
    float64) by 1.0-1.8x; the output of terms x 100 columns and more is faster by rows of A."""
    return out_rows <= in_rows or out_rows * c * itemsize <= SCATTER_BYTES


def kernel_form(X, k: int, n_restarts: int, min_iter: int, max_iter: int | None,
                itemsize: int = 8, **schedule) -> str:
    """"dense" or "sparse": the cheaper form of the linear kernel of sparse X for this fit
    (`schedule`: fit_products' per_iteration, batched, trials); "sparse" when a formed K would
    exceed MAX_DENSE_BYTES."""
    if not sp.issparse(X) or X.shape[0] ** 2 * itemsize > MAX_DENSE_BYTES:
        return "sparse"
    costs = {form: fit_products(form, X, k, n_restarts, min_iter, max_iter, itemsize,
                                **schedule).seconds for form in ("sparse", "dense")}
    return min(costs, key=costs.get)
