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


register("kmeans", alg.KMeans)
register("spectral", alg.SpectralClustering)
register("lsi_kmeans", alg.LSIKMeans)
register("nmf", alg.NMF)
register("gnmf", alg.GNMF)
register("cf", alg.CF)
register("lccf", alg.LCCF)
register("lcf", alg.LCF)
register("sparse_nmf", alg.SparseNMF)
register("hht", alg.SymmetricNMF)
register("pspt", alg.PSPt)
register("ccf", alg.CCF)
register("semi_lccf", alg.SemiLCCF)
register("cnpcf", alg.CNPCF)
register("gdcf", alg.GDCF)
register("rcf", alg.RCF)


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
