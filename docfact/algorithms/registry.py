"""Names -> estimators: what a config's `algorithm:` means, and the papers' names of parameters.

Adding an algorithm is one module (following the contract of docfact/algorithms/__init__.py)
and one `register` line below; or, without touching docfact, a config names the estimator as
"module:Class" (estimator_class).
"""

import importlib
import os
import re
import sys

from sklearn.base import BaseEstimator, ClusterMixin

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


_OWN = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def estimator_class(name) -> type:
    """The estimator a config's `algorithm:` names: a registered name, or "module:Class", a
    user's estimator imported from the current folder or PYTHONPATH. The current folder is put
    on sys.path as `python -m` does; the runner's worker processes start with this sys.path and
    import the module alike. ValueError, one line, for a name that names no estimator."""
    if isinstance(name, str) and name in ALGORITHMS:
        return ALGORITHMS[name]
    if not isinstance(name, str) or not _OWN.fullmatch(name):
        raise ValueError(f"unknown algorithm {name!r}; known: {', '.join(sorted(ALGORITHMS))}, "
                         "or an estimator of your own as module:Class")
    module, _, attr = name.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        estimator = getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as e:
        if e.name is None or not (module == e.name or module.startswith(f"{e.name}.")):
            raise ValueError(f"algorithm {name!r}: importing {module} failed: {e}") from None
        raise ValueError(f"algorithm {name!r}: no module {module} in the current folder or on "
                         "PYTHONPATH") from None
    except AttributeError:
        raise ValueError(f"algorithm {name!r}: module {module} has no {attr}") from None
    except Exception as e:  # the user's module fails as it is imported
        raise ValueError(f"algorithm {name!r}: importing {module} failed: "
                         f"{type(e).__name__}: {e}") from None
    if not (isinstance(estimator, type) and issubclass(estimator, BaseEstimator)
            and (issubclass(estimator, ClusterMixin) or hasattr(estimator, "fit_transform"))):
        raise ValueError(f"algorithm {name!r}: not a scikit-learn estimator with fit_transform "
                         "(a factorization) or a ClusterMixin (docfact/algorithms/__init__.py)")
    return estimator


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
