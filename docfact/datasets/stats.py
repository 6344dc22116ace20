"""Corpus statistics, as in the papers' data tables (LCCF Table 3, GNMF Table 1, RCF Table 1)."""

import numpy as np

from docfact.datasets.corpus import Corpus


def statistics(corpus: Corpus) -> dict:
    """Documents, terms used, classes and class sizes of `corpus`.

    `terms` counts the terms with a non-zero count in these documents, so a view reports
    its own vocabulary size rather than the source's. `duplicate_documents` counts the documents
    whose counts repeat an earlier document's exactly (news corpora hold many): they are kept,
    but they shape nearest-neighbour graphs and kernels, so they are worth knowing about.
    """
    sizes = corpus.class_sizes()
    return {
        "documents": corpus.n_documents,
        "terms": int(np.unique(corpus.X.indices[corpus.X.data != 0]).size),
        "classes": len(sizes),
        "max_class_size": int(sizes.max()),
        "min_class_size": int(sizes.min()),
        "median_class_size": float(np.median(sizes)),
        "average_class_size": float(sizes.mean()),
        "duplicate_documents": duplicate_documents(corpus.X),
        "empty_documents": int(np.sum(corpus.X.getnnz(axis=1) == 0)),
    }


def duplicate_documents(X) -> int:
    """How many rows of the sparse matrix X repeat an earlier row exactly. X is left as it is:
    sorting its indices in place would change the order of the sums in every later product."""
    X = X.tocsr().sorted_indices()
    seen, dup = set(), 0
    for i in range(X.shape[0]):
        a, b = X.indptr[i], X.indptr[i + 1]
        key = (X.indices[a:b].tobytes(), X.data[a:b].tobytes())
        dup += key in seen
        seen.add(key)
    return dup
