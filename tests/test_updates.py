"""Each multiplicative update is a split of its objective's gradient: a step A <- A * num / den
on factor A of objective O holds grad_A O = 2 (den - num) at the point of the step.

Unlike a monotone objective (which a rule missing a term can keep: it descends another
objective) or KKT at a limit (which a scale-invariant fit can drift away from), this holds at
every point, so a term dropped from, or added to, either side is seen at the first step. The
gradient is taken by central differences of the objective written out in full, not by the
rules' algebra; O is quadratic in each factor, so the differences are exact to rounding.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from docfact.algorithms import cf, engine, knn_graph, semisup
from docfact.algorithms.cf import LCCFRule
from docfact.algorithms.kernels import LinearKernel
from docfact.algorithms.nmf import GNMFRule
from docfact.algorithms.semisup import CCFRule, CNPCFRule, GDCFRule, label_matrix
from tests.synthetic import three_topics


def steps(monkeypatch, rule, F) -> list:
    """One rule.update(F): for each multiplicative step, (index of the factor in F, copies of
    every factor at the step, num, den)."""
    calls, real = [], engine.mu_step

    def spy(A, num, den):
        which = next(i for i, f in enumerate(F) if f is A)
        calls.append((which, tuple(f.copy() for f in F), np.array(num), np.array(den)))
        real(A, num, den)

    for module in (engine, cf, semisup):  # each holds the name
        monkeypatch.setattr(module, "mu_step", spy)
    rule.update(F)
    return calls


def central_gradient(objective, F, which, h=1e-4):
    G = np.zeros_like(F[which])
    for idx in np.ndindex(G.shape):
        E = np.zeros_like(G)
        E[idx] = h
        up = tuple(f + E if i == which else f for i, f in enumerate(F))
        down = tuple(f - E if i == which else f for i, f in enumerate(F))
        G[idx] = (objective(up) - objective(down)) / (2 * h)
    return G


def assert_gradient_split(monkeypatch, rule, objective, n_factors=2):
    F = rule.init(np.random.default_rng(0))
    calls = steps(monkeypatch, rule, F)
    assert sorted(which for which, *_ in calls) == list(range(n_factors))
    for which, point, num, den in calls:
        G = central_gradient(objective, point, which)
        np.testing.assert_allclose(2 * (den - num), G, rtol=1e-7, atol=1e-7 * np.abs(G).max())


@pytest.fixture(scope="module")
def problem():
    """X (24, 30) of three topics, its 4-NN cosine graph W, and W with a few edges made
    negative (the signed graphs of cosine weights on signed data, and RCF's W~)."""
    X, _ = three_topics(3, n_terms=30, per_class=8, noise=0.3)
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    W = knn_graph(X, 4, "cosine").toarray()
    signed = W.copy()
    i, j = np.nonzero(np.triu(W))
    signed[i[::3], j[::3]] *= -0.5
    signed[j[::3], i[::3]] *= -0.5
    return X, W, signed


def laplacian(W):
    return np.diag(W.sum(axis=1)) - W


@pytest.mark.parametrize("graph", [None, "W", "signed"])
def test_gnmf_updates_split_the_gradient_of_eq_8(monkeypatch, problem, graph):
    """O = ||X - V U^T||^2 + lambda tr(V^T L V) (NMF without a graph)."""
    X, *graphs = problem
    W = None if graph is None else dict(zip(["W", "signed"], graphs, strict=True))[graph]
    lam = 3.0
    L = laplacian(W) if W is not None else 0 * np.eye(len(X))

    def objective(F):
        U, V = F
        return np.sum((X - V @ U.T) ** 2) + lam * np.trace(V.T @ L @ V)

    assert_gradient_split(monkeypatch, GNMFRule(X, 3, W, lam), objective)


@pytest.mark.parametrize("graph", [None, "W", "signed", "dense"])
def test_lccf_updates_split_the_gradient_of_eq_10(monkeypatch, problem, graph):
    """O = ||X - V U^T X||^2 + lambda tr(V^T L V) (CF without a graph; a dense graph with
    negative weights as RCF's W~ of Eq. 11)."""
    X, W, signed = problem
    W = {None: None, "W": W, "signed": sp.csr_matrix(signed), "dense": signed}[graph]
    lam = 3.0
    L = 0 * np.eye(len(X)) if W is None else laplacian(
        W.toarray() if sp.issparse(W) else W)

    def objective(F):
        U, V = F
        return np.sum((X - V @ U.T @ X) ** 2) + lam * np.trace(V.T @ L @ V)

    rule = LCCFRule(LinearKernel(X), 3, W, lam, loop_normalize=False)
    assert_gradient_split(monkeypatch, rule, objective)


@pytest.fixture(scope="module")
def partial():
    """Partial labels of the 24 samples (8 per topic): two labelled per topic, -1 elsewhere."""
    y = np.full(24, -1)
    y[[0, 1, 8, 9, 16, 17]] = [0, 0, 1, 1, 2, 2]
    return y


def test_ccf_updates_split_the_gradient(monkeypatch, problem, partial):
    """CCF: O = ||X - A Z U^T X||^2, V = A Z with A the label matrix (samples labelled alike
    share a row of Z; each unlabelled sample a row of its own)."""
    X, _, _ = problem
    A = label_matrix(partial)
    Ad = A.toarray()
    assert Ad.shape == (24, 3 + 18) and np.array_equal(Ad[[0, 1]].argmax(1), [0, 0])

    def objective(F):
        U, Z = F
        return np.sum((X - Ad @ Z @ U.T @ X) ** 2)

    rule = CCFRule(LinearKernel(X), 3, A, loop_normalize=False)
    assert_gradient_split(monkeypatch, rule, objective)


def test_cnpcf_update_splits_the_gradient(monkeypatch, problem, partial):
    """CNPCF: O = LCCF's + lambda_H (tr(V^T (D_M - M) V) + tr(V^T C V)), M the must-links
    (labelled alike), C the cannot-links (labelled differently), both without the diagonal."""
    X, W, _ = problem
    lam, lam_h = 3.0, 2.0
    known = partial >= 0
    both = np.outer(known, known) & ~np.eye(24, dtype=bool)
    same = partial[:, None] == partial[None, :]
    M, C = (both & same).astype(float), (both & ~same).astype(float)

    def objective(F):
        U, V = F
        return (np.sum((X - V @ U.T @ X) ** 2) + lam * np.trace(V.T @ laplacian(W) @ V)
                + lam_h * (np.trace(V.T @ laplacian(M) @ V) + np.trace(V.T @ C @ V)))

    rule = CNPCFRule(LinearKernel(X), 3, W, lam, partial, lam_h, loop_normalize=False)
    assert_gradient_split(monkeypatch, rule, objective)


def test_gdcf_update_splits_the_gradient_with_a_eliminated(monkeypatch, problem, partial):
    """GDCF: O = LCCF's + beta min_A ||Q - A V_l^T||^2; with A at its minimum the label
    term's gradient in V_l is its partial derivative at that A (the envelope theorem), which
    the update splits by sign."""
    X, W, _ = problem
    lam, beta = 3.0, 0.5
    idx = np.flatnonzero(partial >= 0)
    Q = np.eye(3)[partial[idx]].T  # (c, l)

    def objective(F):
        U, V = F
        Vl = V[idx]
        A = Q @ Vl @ np.linalg.pinv(Vl.T @ Vl)
        return (np.sum((X - V @ U.T @ X) ** 2) + lam * np.trace(V.T @ laplacian(W) @ V)
                + beta * np.sum((Q - A @ Vl.T) ** 2))

    rule = GDCFRule(LinearKernel(X), 3, W, lam, partial, beta, loop_normalize=False)
    assert_gradient_split(monkeypatch, rule, objective)
