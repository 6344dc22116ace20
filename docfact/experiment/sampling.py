"""Which classes (and labelled samples or constrained pairs) each run uses, and every seed of
the protocol, from one master seed.

The k classes of run r come from a generator seeded with (seed, k, r), so every method sees the
same documents, any (k, r) can be recomputed alone, and reruns are identical. A method's seed is
(seed, k, r, crc32(method name)): adding or removing a method changes no other method's numbers.
"""

import zlib

import numpy as np
import scipy.sparse as sp


def sample_classes(classes: np.ndarray, k: int, seed: int, run: int) -> np.ndarray:
    """k distinct classes, sorted, drawn uniformly from `classes` for run `run` of k."""
    rng = np.random.default_rng([seed, k, run])
    return np.sort(rng.choice(np.sort(classes), size=k, replace=False))


def largest_classes(y: np.ndarray, k: int) -> np.ndarray:
    """The k classes with the most samples in y, sorted; ties go to the smaller label. The same
    for every run: a protocol that clusters "the largest k categories" (protocol.classes)."""
    classes, counts = np.unique(y, return_counts=True)
    return np.sort(classes[np.lexsort((classes, -counts))[:k]])


def method_seed(seed: int, k: int, run: int, method: str) -> np.random.SeedSequence:
    return np.random.SeedSequence([seed, k, run, zlib.crc32(method.encode())])


def sample_labelled(y: np.ndarray, fraction: float, seed: int, k: int, run: int) -> np.ndarray:
    """Partial labels of run `run` of k: a random `fraction` of each class's samples (at
    least one) labelled with the class's number among y's sorted classes (0 .. c - 1), the
    others -1, the RCF paper's "t constraint information for each class"; every
    semi-supervised method of the run gets the same ones. Numbering the classes keeps a
    class of one's own labelled -1 (or any negative number) from reading as unlabelled."""
    rng = np.random.default_rng([seed, k, run, zlib.crc32(b"labelled")])
    codes = np.unique(y, return_inverse=True)[1]
    partial = np.full(len(y), -1)
    for c in range(codes.max() + 1):
        members = np.flatnonzero(codes == c)
        chosen = rng.choice(members, max(1, round(fraction * len(members))), replace=False)
        partial[chosen] = c
    return partial


def sample_pairs(y: np.ndarray, fraction: float, seed: int, k: int, run: int,
                 block: int = 1 << 22) -> sp.csr_matrix:
    """Pairwise constraints of run `run` of k: Z (n, n), sparse, symmetric, zero diagonal, on a
    random `fraction` (at least one) of the n (n - 1) / 2 pairs i < j: +1 (must-link) where
    y_i = y_j, -1 (cannot-link) otherwise; every semi-supervised method of the run gets the
    same ones. The pairs are drawn by their rank in the upper triangle (row by row) without
    forming all pairs: the ranks are cut into blocks of `block`, the draw's count in each block
    is multivariate hypergeometric, then drawn in the block without replacement (memory of one
    block plus the pairs drawn); each subset of the same size is equally likely."""
    n = len(y)
    total = n * (n - 1) // 2
    m = max(1, round(fraction * total))
    rng = np.random.default_rng([seed, k, run, zlib.crc32(b"pairs")])
    sizes = np.diff(np.r_[np.arange(0, total, block), total])
    counts = rng.multivariate_hypergeometric(sizes, m)
    ranks = np.concatenate([start + rng.choice(size, count, replace=False)
                            for start, size, count in zip(np.arange(0, total, block), sizes,
                                                          counts, strict=True)])
    starts = np.arange(n) * (2 * n - np.arange(n) - 1) // 2  # rank of pair (i, i + 1)
    i = np.searchsorted(starts, ranks, side="right") - 1
    j = ranks - starts[i] + i + 1
    z = np.where(y[i] == y[j], 1.0, -1.0)
    Z = sp.coo_matrix((np.r_[z, z], (np.r_[i, j], np.r_[j, i])), shape=(n, n))
    return Z.tocsr()
