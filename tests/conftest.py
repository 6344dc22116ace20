"""Shared fixtures: the data mirror, one data cache per session, empty caches on demand.

The mirror is the repository's sibling folder ../shared/data; with it every data test runs
offline. The session cache means each big file is copied, and 20 Newsgroups tokenised,
once per test session.
"""

import socket
from functools import cache
from pathlib import Path

import pytest

import docfact  # noqa: F401  (first: it pins NumPy's SIMD loops, see docfact/digits.py)

MIRROR = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session", autouse=True)
def session_cache(tmp_path_factory):
    """DOCFACT_MIRROR -> the mirror and DOCFACT_DATA_DIR -> a cache kept for the session."""
    cache_dir = tmp_path_factory.mktemp("docfact-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOCFACT_MIRROR", str(MIRROR))
        mp.setenv("DOCFACT_DATA_DIR", str(cache_dir))
        yield cache_dir


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    assert MIRROR.is_dir(), f"the data mirror is missing: {MIRROR}"
    return MIRROR


@pytest.fixture
def empty_cache(tmp_path, monkeypatch) -> Path:
    """A new, empty cache folder as DOCFACT_DATA_DIR (the mirror setting is kept)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("DOCFACT_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def no_network(monkeypatch):
    """Every host name fails to resolve, as on a machine without network."""

    def refuse(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.fixture(scope="session")
def corpora(session_cache):
    """load(name) from the session cache, each data set loaded once per session."""
    from docfact.datasets import load

    return cache(lambda name: load(name, data_dir=session_cache, mirror=MIRROR))
