"""Views: which classes (and how many documents of each) of a data set an experiment uses.

A view is a dict (see views.yaml for the keys and the named views). Applying one keeps the
documents of the selected classes in the order of the source, with their labels unchanged.
Its ``dataset`` is a registry name or the path of a user's file or folder (see user.py); a
path alone also stands for the view of all its documents.
"""

import os
from functools import lru_cache
from importlib import resources

import numpy as np
import yaml

from docfact.datasets.corpus import Corpus
from docfact.datasets.registry import canonical, entry, registry
from docfact.datasets.user import is_path
from docfact.errors import ConfigError, DataError

_SELECTION_KEYS = {"drop_empty", "min_docs", "size_band", "largest", "max_per_class", "seed"}
_RECORD_KEYS = {"name", "dataset", "expect", "paper", "source", "note"}


@lru_cache(maxsize=1)
def _named_views() -> dict[str, dict]:
    text = resources.files("docfact.datasets").joinpath("views.yaml").read_text("utf-8")
    return yaml.safe_load(text)


def view_names() -> list[str]:
    """Names of the views defined in views.yaml."""
    return list(_named_views())


def resolve_view(spec_or_name: str | dict, check_paths: bool = True) -> dict:
    """A validated view: a copy of the named view (with its ``name``), ``{"dataset": path}``
    for a path that is not a view name, or a copy of the dict given. View and data set names
    are compared case-insensitively and returned as the registry spells them.

    ConfigError for an unknown name (listing the known ones), a missing path (unless not
    `check_paths`: a results folder's config is read without its data) or an invalid dict.
    """
    if isinstance(spec_or_name, str):
        named = _named_views()
        name = canonical(spec_or_name, named)  # names in any case: 'GNMF_TDT2'
        if name in named:
            view = {"name": name, **named[name]}
        elif is_path(spec_or_name):
            view = {"dataset": spec_or_name}
        else:
            raise ConfigError(
                f"unknown view {spec_or_name!r}; known views: {', '.join(named)} "
                "(or give the path of a data file or folder)"
            )
    else:
        view = dict(spec_or_name)
    if isinstance(view.get("dataset"), str) and not is_path(view["dataset"]):
        view["dataset"] = canonical(view["dataset"], registry())
    _validate(view, check_paths)
    return view


def _validate(view: dict, check_paths: bool = True) -> None:
    label = view.get("name", "view")
    unknown = set(view) - _SELECTION_KEYS - _RECORD_KEYS
    if unknown:
        raise ConfigError(f"{label}: unknown keys {sorted(unknown)}; a view takes dataset and "
                          f"{', '.join(sorted(_SELECTION_KEYS))}")
    if "dataset" not in view:
        raise ConfigError(f"{label}: no 'dataset' given")
    if is_path(view["dataset"]):
        if check_paths and not os.path.exists(view["dataset"]):
            where = "" if os.path.isabs(view["dataset"]) else (
                f" under {os.getcwd()} (a relative path is read from the current folder, not "
                "the config's)")
            raise ConfigError(f"{label}: dataset {view['dataset']!r}: no such file or "
                              f"folder{where}")
    else:
        entry(view["dataset"])  # ConfigError listing the data sets when unknown
    for key in ("min_docs", "largest", "max_per_class"):
        if key in view and not _count(view[key]):
            raise ConfigError(f"{label}: {key} must be a positive integer, got {view[key]!r}")
    if "size_band" in view:
        band = view["size_band"]
        if not (
            isinstance(band, list | tuple)
            and len(band) == 2
            and all(map(_count, band))
            and band[0] <= band[1]
        ):
            raise ConfigError(f"{label}: size_band must be [lo, hi] with 1 <= lo <= hi")
    if view.get("drop_empty", False) not in (False, True):
        raise ConfigError(f"{label}: drop_empty must be true or false")
    if "max_per_class" in view and not isinstance(view.get("seed"), int):
        raise ConfigError(f"{label}: max_per_class needs an integer seed")
    if "seed" in view and not _natural(view["seed"]):
        raise ConfigError(f"{label}: seed must be a non-negative integer, got {view['seed']!r}")
    expect = view.get("expect")
    if expect is not None and not (
        isinstance(expect, dict)
        and set(expect) == {"classes", "documents"}
        and all(map(_count, expect.values()))
    ):
        raise ConfigError(f"{label}: expect must be {{classes: C, documents: N}} with positive "
                          f"integers, got {expect!r}")


def _natural(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _count(value) -> bool:
    return _natural(value) and value >= 1


def apply_view(corpus: Corpus, view: str | dict) -> Corpus:
    """The documents of `corpus` that `view` selects, in their original order.

    Selection order: documents without any term (drop_empty: they cannot be weighted), then
    min_docs, size_band, the `largest` classes left (ties broken by the lower label), then at
    most `max_per_class` documents per class, drawn without replacement by numpy's
    default_rng(seed). A named view's `expect` counts are checked.
    """
    view = resolve_view(view)
    if corpus.name != view["dataset"]:
        raise ConfigError(
            f"{view.get('name', 'view')} selects from {view['dataset']!r}, not {corpus.name!r}"
        )
    if view.get("drop_empty"):
        corpus = corpus.subset(np.flatnonzero(corpus.X.getnnz(axis=1) > 0))
    labels, sizes = np.unique(corpus.y, return_counts=True)
    keep = np.ones(len(labels), dtype=bool)
    if "min_docs" in view:
        keep &= sizes >= view["min_docs"]
    if "size_band" in view:
        lo, hi = view["size_band"]
        keep &= (sizes >= lo) & (sizes <= hi)
    if "largest" in view:
        by_size = [i for i in np.lexsort((labels, -sizes)) if keep[i]]
        keep[:] = False
        keep[by_size[: view["largest"]]] = True
    if not keep.any():
        raise ConfigError(f"{view.get('name', 'view')} selects no class of {corpus.name!r}")

    rows = np.flatnonzero(np.isin(corpus.y, labels[keep]))
    if "max_per_class" in view:
        rng = np.random.default_rng(view["seed"])
        cap = view["max_per_class"]
        drawn = []
        for label in labels[keep]:
            members = rows[corpus.y[rows] == label]
            drawn.append(rng.choice(members, cap, replace=False) if len(members) > cap else members)
        rows = np.sort(np.concatenate(drawn))

    selected = corpus.subset(rows, name=view.get("name", corpus.name))
    _check_expected(selected, view)
    return selected


def _check_expected(corpus: Corpus, view: dict) -> None:
    expect = view.get("expect")
    if expect is None:
        return
    got = {"classes": corpus.n_classes, "documents": corpus.n_documents}
    if got != expect:
        raise DataError(
            f"{view.get('name', 'view')}: expected {expect['classes']} classes and "
            f"{expect['documents']} documents, got {got['classes']} and {got['documents']}"
        )
