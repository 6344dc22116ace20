"""The one multiplicative-update loop shared by every factorization in docfact.

An algorithm is an *update rule*: it draws starting factors, applies one iteration of its update
equations, evaluates its objective and normalises its factors. The engine owns everything else,
following the reference code (GNMF.m / LCCF.m):

1. `n_restarts` random starts are drawn, one after the other, and each is run for `min_iter` + 1
   iterations (the reference code's minIter = 30 runs 30; the committed tables were made with
   31), or `max_iter` if that is fewer (iterations in all never exceed it); the starts advance
   side by side, so that a rule with an `update_all` can take
   its products for all of them at once (a dense N x N kernel is then read once per iteration
   instead of once per start);
2. the start with the lowest objective is continued;
3. until `max_iter` iterations in all, as GNMF_Multi.m v2.1 counts (LCCF_Multi.m v2.0 runs
   maxIter more after the restarts: max_iter = min_iter + 1 + maxIter here), or, with
   `max_iter=None`, until the running mean of the objective stops decreasing:
   mean <- 0.1 mean + 0.9 obj, stop when (mean - obj) / mean < tol, a rule applied only past
   `min_iter` iterations, also for a single start (as the reference code gates it): early
   plateaus would stop a start long before convergence (CF on ORL faces: at 13 iterations);
4. the factors are normalised at the end (e.g. unit columns of U, V rescaled).
With `trials`, steps 1-3 become the PSPt paper's "10 trials ... the trial with minimal
criterion function value was chosen": every start runs by step 3 on its own (to max_iter, or
until the running-mean rule stops it), and the one of lowest final objective is kept.
The rule is only the algorithm box: update equations, objective, normalisation.

How the loop computes is a setting of the context (`numerics`): precision float64, float32 or
mixed (the products with the kernel or affinity in float32, the factors and updates in float64:
cf.LCCFRule, symmetric.PSPtRule; the factorizations of K or W only), and products "reference"
(the forms that made the committed digits) or "auto" (the cheapest form for the fit's size,
costs.py). A rule reads it when built (`dtype()`, `kernel_dtype()`, `fast_products()`); the
defaults keep the committed digits. Unlike scikit-learn's config_context the setting is the
calling thread's (a ContextVar): the workers of joblib or of threads started inside the block
compute with the defaults unless they enter it themselves (a `docfact run` worker does so for
each method, from the config's `numerics`).
"""

from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

EPS = 1e-10  # floor of every denominator, as in the reference code
PRECISIONS = ("float64", "float32", "mixed")
PRODUCTS = ("reference", "auto")


@dataclass(frozen=True)
class Numerics:
    """precision: of the factors and operators in the update loop ("float64" or "float32"), or
    "mixed": the kernel's products in float32, the rest in float64 (the factorizations of a
    kernel or affinity only, CF's family, HHt and PSPt: others compute in float64); products:
    "reference" or "auto" (costs.py picks the form of each product)."""

    precision: str = "float64"
    products: str = "reference"

    def __post_init__(self):
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {list(PRECISIONS)}, got "
                             f"{self.precision!r}")
        if self.products not in PRODUCTS:
            raise ValueError(f"products must be one of {list(PRODUCTS)}, got {self.products!r}")


DEFAULT = Numerics()
_NUMERICS = ContextVar("docfact_numerics", default=None)  # None: DEFAULT


@contextmanager
def numerics(precision: str = "float64", products: str = "reference"):
    """Within the block, rules built compute in `precision` with `products` (see Numerics)."""
    token = _NUMERICS.set(Numerics(precision, products))
    try:
        yield
    finally:
        _NUMERICS.reset(token)


def dtype() -> type:
    """The dtype of the update loop (its factors) in this context."""
    return np.float32 if (_NUMERICS.get() or DEFAULT).precision == "float32" else np.float64


def kernel_dtype() -> type:
    """The dtype of the products with the kernel in this context: float32 under "float32" and
    "mixed", float64 otherwise."""
    return np.float64 if (_NUMERICS.get() or DEFAULT).precision == "float64" else np.float32


def in_loop(op):
    """The operator `op` (anything with `astype`: a kernel, an affinity) in the loop's dtype
    of this context; `op` itself in float64, so the committed digits keep their operands."""
    loop = dtype()
    return op if loop == np.float64 else op.astype(loop)


def fast_products() -> bool:
    """True when the context lets costs.py choose the products' forms (digits may move)."""
    return (_NUMERICS.get() or DEFAULT).products == "auto"


class UpdateRule(Protocol):
    """What an algorithm provides to the engine. Factors are tuples of 2-D arrays (rows, k),
    updated in place. `normalize` runs on every start (unless the rule has a `normalize_start`)
    and on the result; `loop_normalize`, when not None, after every iteration past min_iter (the
    CF family's reference code does so)."""

    loop_normalize: Callable[[tuple], None] | None
    # optional: dtype, the dtype of the rule's operators (float64 when absent): the starts are
    # cast to it, the result back to float64

    def init(self, rng: np.random.Generator) -> tuple: ...

    def update(self, F: tuple) -> None: ...

    # optional: def update_all(self, Fs: list) -> None, one iteration of each start in Fs

    def objective(self, F: tuple) -> float: ...

    def normalize(self, F: tuple) -> None: ...


@dataclass
class Fit:
    """Result of `minimize`: the chosen start's factors (2-D arrays) and its objective history."""

    factors: tuple
    objective: list
    n_iter: int
    restart: int


def mu_step(A: np.ndarray, num: np.ndarray, den: np.ndarray) -> None:
    """The multiplicative update A <- A * num / max(den, EPS), in place; `den` is overwritten
    (a temporary of the caller's), which saves two allocations per factor and iteration."""
    np.maximum(den, EPS, out=den)
    np.divide(num, den, out=den)
    A *= den


def rescale(A: np.ndarray, B: np.ndarray, norms: np.ndarray) -> None:
    """A's columns divided by `norms` (floored at EPS), B's multiplied: A B^T is unchanged."""
    norms = np.maximum(norms, EPS)
    A /= norms
    B *= norms


def unit_columns_of_V(F) -> None:
    """Columns of V to unit L2 norm, U rescaled, for F = (U, V, ...) (LCCF.m, every iteration
    past minIter; nmfsc's constant energy of H's rows)."""
    U, V = F[:2]
    rescale(V, U, np.linalg.norm(V, axis=0))


def dot_all(A, Ys: list, B=None) -> list:
    """[A @ Y for Y in Ys], or [A @ (B @ Y) for Y in Ys] given B, from one product
    A [Y_1 ... Y_R] (A (B [Y_1 ... Y_R])): A and B are read once instead of R times, and the
    middle product is not split and stacked again (a copy as large as B's rows x R k).
    For sparse A and B the digits are those of one at a time (scipy sums each entry over the
    row's entries in the same order for any number of columns); for dense ones BLAS may sum
    in another order."""
    Z = np.hstack(Ys) if len(Ys) > 1 else Ys[0]
    if B is not None:
        Z = np.asarray(B @ Z)
    Z = np.asarray(A @ Z)
    return np.hsplit(Z, np.cumsum([Y.shape[1] for Y in Ys])[:-1]) if len(Ys) > 1 else [Z]


def graph_term(V: np.ndarray, W, d: np.ndarray) -> float:
    """tr(V^T L V) = tr(V^T D V) - tr(V^T W V) for L = D - W, d = diag(D) (GNMF Eq. 8)."""
    return float(np.sum(d[:, None] * V * V) - np.sum(V * (W @ V)))


def sq_norm(X) -> float:
    """||X||_F^2 for a sparse or dense matrix."""
    if sp.issparse(X):
        return float(X.multiply(X).sum())
    return float(np.sum(np.square(X)))


def minimize(
    rule: UpdateRule,
    *,
    n_restarts: int = 10,
    min_iter: int = 30,
    max_iter: int | None = 100,
    tol: float = 1e-5,
    random_state=None,
    track_objective: bool = False,
    trials: bool = False,
) -> Fit:
    """Run `rule` by the reference protocol (module docstring); return the chosen start's factors.

    The objective history holds the chosen start's objective after selection and, when
    `track_objective` is set (or `max_iter` is None), after every later iteration. With
    `trials` (and several starts), each start is run to its stop and the lowest final
    objective wins; the history is the winner's from its start, ending with its final value.
    """
    rng = np.random.default_rng(check_random_state(random_state).randint(2**31))
    loop = getattr(rule, "dtype", np.float64)
    starts = [rule.init(rng) for _ in range(n_restarts)]
    if loop != np.float64:  # drawn in float64 as always, so that both precisions start alike
        starts = [tuple(a.astype(loop) for a in start) for start in starts]
    for start in starts:
        getattr(rule, "normalize_start", rule.normalize)(start)
    if trials and n_restarts > 1:
        runs = [_descend(rule, F, 0, min_iter, max_iter, tol, track_objective) for F in starts]
        finals = [float(rule.objective(F)) for F in starts]
        best = _lowest(finals)
        (history, n_iter), F = runs[best], starts[best]
        if history[-1] != finals[best]:  # untracked fixed length: the value at its start
            history.append(finals[best])
    else:
        best, n_iter = 0, 0
        if n_restarts > 1:
            while n_iter <= min_iter and (max_iter is None or n_iter < max_iter):
                n_iter = _step(rule, starts, n_iter, min_iter)
            best = _lowest([float(rule.objective(start)) for start in starts])
        F = starts[best]
        history, n_iter = _descend(rule, F, n_iter, min_iter, max_iter, tol, track_objective)
    rule.normalize(F)
    return Fit(tuple(np.asarray(a, dtype=np.float64) for a in F), history, n_iter, best)


def _lowest(objectives: list) -> int:
    """Index of the lowest objective, the first on ties; a NaN never wins (start 0 if all are)."""
    return min(range(len(objectives)), key=lambda r: (np.isnan(objectives[r]), objectives[r]))


def _descend(rule: UpdateRule, F: tuple, n_iter: int, min_iter: int, max_iter, tol: float,
             track_objective: bool) -> tuple:
    """Step 3 of the module docstring on one start F (in place), from iteration n_iter:
    (objective history from F's present value, iterations run in all)."""
    history = [float(rule.objective(F))]
    mean_fit = 10 * history[0]
    while max_iter is None or n_iter < max_iter:
        n_iter = _step(rule, [F], n_iter, min_iter)
        if track_objective or max_iter is None:
            obj = float(rule.objective(F))
            history.append(obj)
            if max_iter is None and n_iter > min_iter:
                mean_fit = 0.1 * mean_fit + 0.9 * obj
                if (mean_fit - obj) / mean_fit < tol:
                    break
    return history, n_iter


def _step(rule: UpdateRule, Fs: list, n_iter: int, min_iter: int) -> int:
    """Apply iteration number n_iter + 1 (1-based) to every start in Fs; normalise past
    min_iter if the rule asks."""
    if hasattr(rule, "update_all"):
        rule.update_all(Fs)
    else:
        for F in Fs:
            rule.update(F)
    n_iter += 1
    if rule.loop_normalize is not None and n_iter > min_iter:
        for F in Fs:
            rule.loop_normalize(F)
    return n_iter
