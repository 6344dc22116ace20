"""The data registry: what files exist, where they come from, how to verify them.

The facts live in ``registry.yaml`` (one entry per way of reading a file); this module only
reads them into `Entry` objects. Every entry can be verified twice: its bytes when fetched (a
sha256, or a content check for tarballs that are rebuilt rather than byte-identical copies),
and the loaded matrix (a `Fingerprint`: shape, non-zeros, classes and sorted class sizes).
"""

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

from docfact.errors import ConfigError


@dataclass(frozen=True)
class Fingerprint:
    """What a correctly loaded data set looks like; checked after every load."""

    shape: tuple[int, int]
    nnz: int
    classes: int
    class_sizes: tuple[int, ...]  # sorted in decreasing order

    @property
    def documents(self) -> int:
        return self.shape[0]


@dataclass(frozen=True)
class Entry:
    """One file of the registry.

    sha256 is that of the published bytes (None when not known here); `content` says what
    the members of a tarball must be, checked when its sha256 is unknown or for a mirror's
    rebuild of it: ``members`` maps a glob (matched against member paths without a leading
    ``./``) to the number of regular files it must match, and ``markers`` maps a byte string
    to its total number of occurrences in those files.
    """

    name: str
    file: str
    description: str
    urls: tuple[str, ...]
    sha256: str | None
    content: dict | None
    loader: str
    fingerprint: Fingerprint


def _parse(name: str, raw: dict) -> Entry:
    if not raw.get("sha256") and not raw.get("content"):
        raise ValueError(f"registry entry {name!r} has neither sha256 nor content check")
    fp = raw["fingerprint"]
    return Entry(
        name=name,
        file=raw["file"],
        description=raw["description"],
        urls=tuple(raw["urls"]),
        sha256=raw.get("sha256"),
        content=raw.get("content"),
        loader=raw["loader"],
        fingerprint=Fingerprint(
            shape=tuple(fp["shape"]),
            nnz=fp["nnz"],
            classes=fp["classes"],
            class_sizes=tuple(fp["class_sizes"]),
        ),
    )


@lru_cache(maxsize=1)
def registry() -> dict[str, Entry]:
    """All entries, by name, in the order of registry.yaml."""
    text = resources.files("docfact.datasets").joinpath("registry.yaml").read_text("utf-8")
    return {name: _parse(name, raw) for name, raw in yaml.safe_load(text).items()}


def names() -> list[str]:
    """The registry's data set names."""
    return list(registry())


def canonical(name, known) -> str:
    """`name` as spelt among `known` names, compared case-insensitively ('TDT2' -> 'tdt2');
    `name` itself when none matches."""
    if not isinstance(name, str) or name in known:
        return name
    return next((k for k in known if k.lower() == name.lower()), name)


def entry(name: str) -> Entry:
    """The entry called `name` (in any case); ConfigError listing the known names otherwise."""
    try:
        return registry()[canonical(name, registry())]
    except KeyError:
        raise ConfigError(
            f"unknown dataset {name!r}; known datasets: {', '.join(names())}"
        ) from None
