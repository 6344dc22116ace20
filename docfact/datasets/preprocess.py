"""Document weighting, applied to the documents of one run (or the whole corpus).

The reference code (tfidf.m + NormalizeFea.m) weights a count x_ij as
    tf-idf_ij = (1 + log x_ij) * log(N / df_j)       for x_ij > 0,
with N the number of documents of the matrix being weighted, then scales every document to unit
L2 norm. scikit-learn's TfidfTransformer uses idf = 1 + log((1 + N) / (1 + df)) instead, which
never zeroes a term present in every document and changes the geometry of small subsets, so the
reference scheme is written out here; "sklearn" is kept as a setting for comparison. RCF's Eq. 2
weights the raw term frequency instead, x_ij * log(N / df_j) ("tfidf_raw").
"""

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.preprocessing import normalize

from docfact.errors import DataError

SCHEMES = ("tfidf", "tfidf_raw", "sklearn", "l2", "none")


def weight(X, scheme: str = "tfidf") -> sp.csr_matrix:
    """Weight the rows (documents) of X, shape (n_documents, n_terms).

    scheme:
      "tfidf"   reference: (1 + log tf) * log(N / df), rows to unit L2 norm;
      "tfidf_raw" RCF's Eq. 2: tf * log(N / df), rows to unit L2 norm;
      "sklearn" TfidfTransformer(sublinear_tf=True) (smoothed idf), rows to unit L2 norm;
      "l2"      counts with rows to unit L2 norm;
      "none"    unchanged (raw counts, or pixels).
    Terms absent from every row are dropped first, so the result has only columns with nonzeros.
    A document with no nonzero weight is an error that names it (row index in X).
    """
    X = sp.csr_matrix(X, dtype=np.float64)
    X = X[:, np.flatnonzero(X.getnnz(axis=0))]
    if scheme in ("tfidf", "tfidf_raw"):
        if scheme == "tfidf":
            X = X.copy()
            X.data = 1.0 + np.log(X.data)
        n = X.shape[0]
        idf = np.log(n / X.getnnz(axis=0))
        X = X @ sp.diags(idf)
        X = sp.csr_matrix(X)
        X.eliminate_zeros()
    elif scheme == "sklearn":
        X = sp.csr_matrix(TfidfTransformer(sublinear_tf=True, norm=None).fit_transform(X))
    elif scheme not in ("l2", "none"):
        raise DataError(f"unknown weighting scheme {scheme!r}; known: {', '.join(SCHEMES)}")
    empty = np.flatnonzero(X.getnnz(axis=1) == 0)
    if len(empty):
        raise DataError(
            f"{len(empty)} document(s) have no weight left after '{scheme}' weighting "
            f"(first rows: {empty[:5].tolist()}); drop them with the view's `drop_empty: true`, or "
            "use another scheme"
        )
    if scheme != "none":
        X = normalize(X, norm="l2", axis=1)
    return sp.csr_matrix(X)
