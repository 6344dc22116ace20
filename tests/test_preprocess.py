"""tf-idf weighting against a brute-force dense computation of the reference formula and of
RCF's Eq. 2."""

import numpy as np
import pytest
import scipy.sparse as sp

from docfact.datasets.preprocess import weight
from docfact.errors import DataError


def brute_force_tfidf(C, tf=lambda c: 1 + np.log(c)):
    C = np.asarray(C, dtype=float)
    C = C[:, (C > 0).any(axis=0)]
    n, m = C.shape
    out = np.zeros_like(C)
    for j in range(m):
        df = np.sum(C[:, j] > 0)
        for i in range(n):
            if C[i, j] > 0:
                out[i, j] = tf(C[i, j]) * np.log(n / df)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.mark.parametrize("scheme, tf", [("tfidf", lambda c: 1 + np.log(c)),
                                        ("tfidf_raw", lambda c: c)])
def test_tfidf_equals_brute_force(scheme, tf):
    rng = np.random.default_rng(0)
    C = rng.poisson(1.5, size=(9, 14)) * (rng.random((9, 14)) < 0.6)
    assert (C > 1).any()  # counts above 1 tell the two term frequencies apart
    C[:, 3] = 0  # a term absent from the subset is dropped
    C[:, 5] = 1  # a term in every document gets idf 0
    C[:, 0] = 2
    got = weight(sp.csr_matrix(C), scheme).toarray()
    np.testing.assert_allclose(got, brute_force_tfidf(C, tf), atol=1e-12)


def test_l2_and_none():
    C = sp.csr_matrix(np.array([[3.0, 4.0, 0.0], [0.0, 2.0, 0.0]]))
    np.testing.assert_allclose(weight(C, "l2").toarray(), [[0.6, 0.8], [0.0, 1.0]])
    np.testing.assert_allclose(weight(C, "none").toarray(), [[3.0, 4.0], [0.0, 2.0]])


def test_empty_document_is_named():
    C = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 2.0]]))
    with pytest.raises(DataError, match=r"rows: \[1\]"):
        weight(C, "tfidf")
