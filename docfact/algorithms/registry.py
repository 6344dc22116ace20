"""Names -> estimators: what a config's `algorithm:` means.

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


class UnknownAlgorithm(LookupError):
    """A config's `algorithm:` that names no estimator (one line). Not a failure of a run: a
    worker that cannot import a user's module stops the table instead of recording runs."""


def own(name) -> bool:
    """True for "module:Class", an estimator of the user's own."""
    return isinstance(name, str) and ":" in name


def estimator_class(name) -> type:
    """The estimator a config's `algorithm:` names: a registered name, or "module:Class", a
    user's estimator imported from the current folder (first, as `python -m` does; only for
    this import, so that it shadows nothing docfact imports later) or PYTHONPATH, writing no
    __pycache__. The runner's worker processes, started in the same folder, import it alike.
    UnknownAlgorithm for a name that names no estimator."""
    if isinstance(name, str) and name in ALGORITHMS:
        return ALGORITHMS[name]
    module, _, attr = name.partition(":") if own(name) else ("", "", "")
    if module.endswith(".py") or "/" in module or "\\" in module:  # a file for its module
        stem = os.path.splitext(os.path.basename(module.replace("\\", "/")))[0]
        raise UnknownAlgorithm(f"algorithm {name!r}: name the module, not its file: "
                               f"{stem}:{attr} (a module in the current folder or on "
                               "PYTHONPATH)")
    if not isinstance(name, str) or not _OWN.fullmatch(name):
        raise UnknownAlgorithm(f"unknown algorithm {name!r}; known: "
                               f"{', '.join(sorted(ALGORITHMS))}, or an estimator of your own "
                               "as module:Class")
    here, bytecode = os.getcwd(), sys.dont_write_bytecode
    sys.path.insert(0, here)
    sys.dont_write_bytecode = True
    try:
        found = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is None or not (module == e.name or module.startswith(f"{e.name}.")):
            raise UnknownAlgorithm(f"algorithm {name!r}: importing {module} failed: {e}") from None
        raise UnknownAlgorithm(f"algorithm {name!r}: no module {module} in the current folder "
                               "or on PYTHONPATH") from None
    except Exception as e:  # the user's module fails as it is imported
        raise UnknownAlgorithm(f"algorithm {name!r}: importing {module} failed: "
                               f"{type(e).__name__}: {e}") from None
    finally:
        del sys.path[sys.path.index(here)]
        sys.dont_write_bytecode = bytecode
    where = f"module {module} ({getattr(found, '__file__', None) or 'built in'})"
    estimator = getattr(found, attr, None)
    if estimator is None:
        raise UnknownAlgorithm(f"algorithm {name!r}: {where} has no {attr}")
    if not (isinstance(estimator, type) and issubclass(estimator, BaseEstimator)
            and (issubclass(estimator, ClusterMixin) or hasattr(estimator, "fit_transform"))):
        raise UnknownAlgorithm(f"algorithm {name!r}: {attr} of {where} is not a scikit-learn "
                               "estimator with fit_transform (a factorization) or a "
                               "ClusterMixin (docfact/algorithms/__init__.py)")
    return estimator


def clusters(estimator: type) -> bool:
    """True for a clusterer (labels of its own), False for a factorization (returns V)."""
    return issubclass(estimator, ClusterMixin)
