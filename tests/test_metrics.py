"""AC and NMI against brute force and hand-computed cases."""

import itertools

import numpy as np
import pytest

from docfact.metrics import accuracy, nmi


def brute_force_accuracy(y_true, y_pred):
    """Best one-to-one mapping of clusters to classes, by trying every injection."""
    classes, clusters = np.unique(y_true), np.unique(y_pred)
    best = 0
    slots = list(classes) + [None] * max(0, len(clusters) - len(classes))
    for perm in itertools.permutations(slots, len(clusters)):
        mapping = dict(zip(clusters, perm, strict=True))
        best = max(best, sum(mapping[p] == t for t, p in zip(y_true, y_pred, strict=True)))
    return best / len(y_true)


def entropy(p):
    p = p[p > 0]
    return -np.sum(p * np.log2(p))


def hand_nmi(y_true, y_pred):
    """MI(C, C') / max(H(C), H(C')), log base 2, straight from the GNMF report's definition."""
    n = len(y_true)
    a, b = np.unique(y_true), np.unique(y_pred)
    P = np.array([[np.sum((y_true == i) & (y_pred == j)) for j in b] for i in a]) / n
    pa, pb = P.sum(1), P.sum(0)
    mi = sum(P[i, j] * np.log2(P[i, j] / (pa[i] * pb[j]))
             for i in range(len(a)) for j in range(len(b)) if P[i, j] > 0)
    return mi / max(entropy(pa), entropy(pb))


@pytest.mark.parametrize("seed", range(30))
def test_accuracy_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_classes, n_clusters = rng.integers(1, 5), rng.integers(1, 6)  # unequal counts included
    y_true = rng.integers(0, n_classes, 12)
    y_pred = rng.integers(0, n_clusters, 12)
    assert accuracy(y_true, y_pred) == pytest.approx(brute_force_accuracy(y_true, y_pred))


@pytest.mark.parametrize("seed", range(30))
def test_nmi_equals_definition(seed):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, rng.integers(2, 5), 40)
    y_pred = rng.integers(0, rng.integers(2, 6), 40)
    assert nmi(y_true, y_pred) == pytest.approx(hand_nmi(y_true, y_pred), abs=1e-12)


def test_hand_computed_cases():
    y = np.array([0, 0, 0, 1, 1, 1])
    assert accuracy(y, [5, 5, 5, 7, 7, 7]) == 1.0 and nmi(y, [5, 5, 5, 7, 7, 7]) == 1.0
    assert accuracy(y, [1, 1, 0, 0, 0, 0]) == pytest.approx(5 / 6)
    # independent labelings: MI = 0
    assert nmi([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(0.0, abs=1e-12)
    # one cluster for two balanced classes: AC = 1/2
    assert accuracy(y, np.zeros(6)) == 0.5
    # three clusters for two classes: H(pred) = log2 3 > H(truth) = 1 and MI = 1
    assert nmi([0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 2, 2]) == pytest.approx(
        hand_nmi(np.array([0, 0, 1, 1, 1, 1]), np.array([0, 0, 1, 1, 2, 2])))


def test_nmi_normalisations_against_their_definitions():
    y = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    p = np.array([0, 0, 1, 1, 1, 1, 1, 2, 1])  # entropies unequal: the three means differ

    def entropy(labels):
        q = np.bincount(labels) / len(labels)
        return -np.sum(q[q > 0] * np.log(q[q > 0]))

    joint = np.zeros((3, 3))
    np.add.at(joint, (y, p), 1 / len(y))
    outer = np.outer(joint.sum(1), joint.sum(0))
    mi = np.sum(joint[joint > 0] * np.log(joint[joint > 0] / outer[joint > 0]))
    hy, hp = entropy(y), entropy(p)
    assert len({max(hy, hp), np.sqrt(hy * hp), (hy + hp) / 2}) == 3
    assert nmi(y, p) == pytest.approx(mi / max(hy, hp))
    assert nmi(y, p, "sqrt") == pytest.approx(mi / np.sqrt(hy * hp))
    assert nmi(y, p, "arithmetic") == pytest.approx(mi / ((hy + hp) / 2))
    with pytest.raises(ValueError):
        nmi(y, p, "min")


@pytest.mark.parametrize("y_true, y_pred, words", [
    ([0, 1, 1], [0, 1], r"inconsistent numbers of samples: \[3, 2\]"),
    ([], [], "no samples"),
])
def test_accuracy_of_labelings_that_do_not_pair_is_refused(y_true, y_pred, words):
    with pytest.raises(ValueError, match=words):
        accuracy(y_true, y_pred)
