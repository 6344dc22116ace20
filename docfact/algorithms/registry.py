"""Names -> estimators: what a config's `algorithm:` means, and the papers' names of parameters.

Adding an algorithm is one module (following the contract of docfact/algorithms/__init__.py)
and one `register` line below.
"""

import re

from sklearn.base import ClusterMixin

from docfact import algorithms as alg

ALGORITHMS: dict[str, type] = {}


def register(name: str, estimator: type) -> type:
    """Make `estimator` (a class following the contract) the algorithm called `name`."""
    ALGORITHMS[name] = estimator
    return estimator


for _name, _estimator in [
    ("kmeans", alg.KMeans), ("spectral", alg.SpectralClustering), ("lsi_kmeans", alg.LSIKMeans),
    ("nmf", alg.NMF), ("gnmf", alg.GNMF), ("cf", alg.CF), ("lccf", alg.LCCF), ("lcf", alg.LCF),
    ("sparse_nmf", alg.SparseNMF), ("hht", alg.SymmetricNMF), ("pspt", alg.PSPt),
    ("ccf", alg.CCF), ("semi_lccf", alg.SemiLCCF), ("cnpcf", alg.CNPCF), ("gdcf", alg.GDCF),
    ("rcf", alg.RCF),
]:
    register(_name, _estimator)


def clusters(estimator: type) -> bool:
    """True for a clusterer (labels of its own), False for a factorization (returns V)."""
    return issubclass(estimator, ClusterMixin)


# Parameters the papers call lambda: written so in configs, sweeps and figures; the estimators
# take them as `lam` (lambda is a Python keyword). `lam` is still read in configs, with a note.
PAPER_NAMES = {"lam": "lambda", "lam_h": "lambda_h"}
KEYWORDS = {paper: keyword for keyword, paper in PAPER_NAMES.items()}


def keyword(name: str) -> str:
    """The estimator's keyword for a parameter named as the papers do ('lambda' -> 'lam')."""
    return KEYWORDS.get(name, name)


def paper_name(name: str) -> str:
    """The papers' name of an estimator keyword ('lam' -> 'lambda')."""
    return PAPER_NAMES.get(name, name)


def paper_words(text: str) -> str:
    """An estimator's message with its keywords named as the papers do."""
    for name, paper in PAPER_NAMES.items():
        text = re.sub(rf"\b{name}\b", paper, text)
    return text
