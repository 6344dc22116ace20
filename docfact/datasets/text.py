"""The tokeniser shared by every raw-text route (20 Newsgroups, Reuters, a user's texts)."""

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

# Tokeniser shared by the raw-text routes: lowercase alphabetic tokens of two letters or
# more, scikit-learn's English stop words removed (digits and single letters say little
# about a topic and would mostly add noise terms).
TOKEN_PATTERN = r"\b[a-zA-Z]{2,}\b"


def _vectorizer(min_df: int) -> CountVectorizer:
    return CountVectorizer(
        lowercase=True,
        token_pattern=TOKEN_PATTERN,
        stop_words="english",
        min_df=min_df,
        dtype=np.float64,
    )


def counts(texts: list[str], min_df: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """Term counts of `texts` with the shared tokeniser: X (documents x terms, csr float64)
    and the vocabulary (terms in column order). ValueError when no term is left."""
    vectorizer = _vectorizer(min_df)
    X = sp.csr_matrix(vectorizer.fit_transform(texts), dtype=np.float64)
    return X, np.array(vectorizer.get_feature_names_out(), dtype=str)
