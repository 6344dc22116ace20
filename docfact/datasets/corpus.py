"""The in-memory form every loader returns."""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Corpus:
    """A labelled data set.

    X : scipy.sparse.csr_matrix, shape (n_documents, n_terms)
        Raw term counts (float64) for text; pixel values in [0, 1] for faces.
    y : ndarray of int, shape (n_documents,)
        Class labels as stored by the source (not remapped).
    vocabulary : ndarray of str, shape (n_terms,), or None when the source has none.
    label_names : tuple of str, or None; when the source labels classes by name (user text
        data), label_names[i] is the name of label i + 1.
    """

    name: str
    X: sp.csr_matrix
    y: np.ndarray
    vocabulary: np.ndarray | None = None
    label_names: tuple | None = None

    @property
    def n_documents(self) -> int:
        return self.X.shape[0]

    @property
    def n_classes(self) -> int:
        return len(np.unique(self.y))

    def class_sizes(self) -> np.ndarray:
        """Sizes of the classes, in the order of np.unique(y)."""
        return np.unique(self.y, return_counts=True)[1]

    def subset(self, rows: np.ndarray, name: str | None = None) -> "Corpus":
        """The documents at `rows` (in that order), with all terms kept."""
        return Corpus(
            name or self.name, self.X[rows], self.y[rows], self.vocabulary, self.label_names
        )
