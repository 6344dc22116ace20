"""Corpus statistics, as in the papers' data tables (LCCF Table 3, GNMF Table 1, RCF Table 1)."""

import numpy as np

from docfact.datasets.corpus import Corpus


def statistics(corpus: Corpus) -> dict:
    """Documents, terms used, classes and class sizes of `corpus`.

    `terms` counts the terms with a non-zero count in these documents, so a view reports
    its own vocabulary size rather than the source's.
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
    }
