"""Small synthetic data and a replay of update rules, shared by the algorithm tests."""

import numpy as np
import scipy.sparse as sp

from docfact.algorithms.kernels import DenseKernel


def three_topics(seed: int, n_terms: int, per_class: int, noise: float) -> tuple:
    """(X sparse (3 per_class, n_terms), labels): three noisy nonnegative clusters of
    'documents', each row scaled to unit length."""
    rng = np.random.default_rng(seed)
    centers = rng.random((3, n_terms)) * (rng.random((3, n_terms)) < 0.3)
    X = np.vstack([c + noise * rng.random((per_class, n_terms))
                   * (rng.random((per_class, n_terms)) < 0.2) for c in centers])
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return sp.csr_matrix(X), np.repeat([0, 1, 2], per_class)


def objective_history(rule, F, iterations: int) -> np.ndarray:
    """The rule's objective at F and after each of `iterations` updates of F (in place)."""
    history = [rule.objective(F)]
    for _ in range(iterations):
        rule.update(F)
        history.append(rule.objective(F))
    return np.array(history)


def replayed_starts(rule, n_restarts: int, iterations: int, seed: int) -> np.ndarray:
    """The objective of each of the engine's n_restarts starts (engine.minimize's draws for
    random_state=seed), each run alone for `iterations` updates, then normalised in the loop
    if the rule asks (the last restart iteration is past min_iter)."""
    rng = np.random.default_rng(np.random.RandomState(seed).randint(2**31))
    objectives = []
    for _ in range(n_restarts):
        F = rule.init(rng)
        rule.normalize(F)
        for _ in range(iterations):
            rule.update(F)
        if rule.loop_normalize is not None:
            rule.loop_normalize(F)
        objectives.append(rule.objective(F))
    return np.array(objectives)


def partially_labelled_topics(noise: float = 0.5):
    """(X, y, y_partial): three topics of 20 documents, 8 of them labelled (-1 elsewhere), for
    the semi-supervised methods' tests. At noise 0.5 no 5-NN edge joins two topics; at 1.5, 60
    of 390 do, and the propagated constraints are negative on 88."""
    X, y = three_topics(5, n_terms=30, per_class=20, noise=noise)
    y_partial = np.full(len(y), -1)
    for i in (0, 3, 7, 21, 25, 44, 50, 58):
        y_partial[i] = y[i]
    return X, y, y_partial


class CountedProducts:
    """Mixin for an operator with dot and dot_all: counts the products it computes (one per
    start)."""

    calls = 0

    def dot(self, Y):
        self.calls += 1
        return super().dot(Y)

    def dot_all(self, Ys):
        self.calls += len(Ys)
        return super().dot_all(Ys)


class Counted(CountedProducts, DenseKernel):
    """A dense kernel that counts its products."""


def products_per_iteration(rule, op: Counted, iterations: int = 10) -> float:
    """The products `op` computes per update followed by the objective (as the engine runs a
    start when it stops by the objective), from a random start of the rule."""
    F = rule.init(np.random.default_rng(1))
    rule.objective(F)
    before = op.calls
    objective_history(rule, F, iterations)
    return (op.calls - before) / iterations
