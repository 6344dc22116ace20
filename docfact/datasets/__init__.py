"""Data sets: registry, fetching with verification, loaders, views (class selections),
preprocessing.

Public interface used by the runner:

    corpus = load("tdt2_all")                 # Corpus(name, X, y, vocabulary)
    corpus = apply_view(corpus, "lccf_tdt2")  # or a dict such as {"dataset": ..., "min_docs": 10}

`load` also reads a user's file or folder given by its path (user.py: .mat, .npz, .csv, .tsv,
a folder per class); `save_npz` writes a Corpus in the .npz layout it reads.
"""

from docfact.datasets.corpus import Corpus
from docfact.datasets.loaders import load
from docfact.datasets.user import save_npz
from docfact.datasets.views import apply_view, resolve_view

__all__ = ["Corpus", "load", "apply_view", "resolve_view", "save_npz"]
