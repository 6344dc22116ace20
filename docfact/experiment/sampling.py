"""Which classes (and labelled samples) each run uses, and every seed of the protocol, from one
master seed.

The k classes of run r come from a generator seeded with (seed, k, r), so every method sees the
same documents, any (k, r) can be recomputed alone, and reruns are identical. A method's seed is
(seed, k, r, crc32(method name)): adding or removing a method changes no other method's numbers.
"""

import zlib

import numpy as np


def sample_classes(classes: np.ndarray, k: int, seed: int, run: int) -> np.ndarray:
    """k distinct classes, sorted, drawn uniformly from `classes` for run `run` of k."""
    rng = np.random.default_rng([seed, k, run])
    return np.sort(rng.choice(np.sort(classes), size=k, replace=False))


def method_seed(seed: int, k: int, run: int, method: str) -> np.random.SeedSequence:
    return np.random.SeedSequence([seed, k, run, zlib.crc32(method.encode())])


def sample_labelled(y: np.ndarray, fraction: float, seed: int, k: int, run: int) -> np.ndarray:
    """Partial labels of run `run` of k: y with all but a random `fraction` of each class's
    samples (at least one) set to -1, the RCF paper's "t constraint information for each
    class"; every semi-supervised method of the run gets the same ones."""
    rng = np.random.default_rng([seed, k, run, zlib.crc32(b"labelled")])
    partial = np.full(len(y), -1)
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        chosen = rng.choice(members, max(1, round(fraction * len(members))), replace=False)
        partial[chosen] = c
    return partial
