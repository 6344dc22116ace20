"""Shared fixtures: the data source, one data cache per session, empty caches on demand.

The data source is the mirror, the repository's sibling folder ../shared/data, or without it
the user's data cache (DOCFACT_DATA_DIR or the platform's cache folder) as it was when the
session started; with either every data test runs offline. A test that needs a data file
neither holds is skipped, saying so (in CI, which always has the mirror, it fails). The
session cache means each big file is copied, and 20 Newsgroups tokenised, once per test
session.
"""

import os
import socket
from functools import cache
from pathlib import Path

import pytest

import docfact  # noqa: F401  (first: it pins NumPy's SIMD loops, see docfact/digits.py)
from docfact.datasets.fetch import resolve_data_dir, resolve_mirror
from docfact.datasets.registry import entry

MIRROR = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SOURCE = MIRROR if MIRROR.is_dir() else resolve_data_dir()


def _missing(reason: str):
    """Skip a test whose data is absent, except in CI, which always has the mirror: there a
    missing file is a failure, so no data test can pass by being skipped."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def _guarded(fetch):
    """`fetch`, skipping the test when the file is in neither the cache nor the data source
    (when the mirror in effect is that source: tests of other mirrors fetch as they are)."""

    def guarded(name, *, data_dir=None, mirror=None):
        file = entry(name).file
        if (resolve_mirror(mirror) == str(SOURCE) and not (SOURCE / file).exists()
                and not (resolve_data_dir(data_dir) / file).exists()):
            _missing(f"needs the data file {file}: neither the mirror {MIRROR} nor the "
                     f"data cache {SOURCE} holds it")
        return fetch(name, data_dir=data_dir, mirror=mirror)

    return guarded


@pytest.fixture(scope="session", autouse=True)
def session_cache(tmp_path_factory):
    """DOCFACT_MIRROR -> the data source and DOCFACT_DATA_DIR -> a cache kept for the
    session; loads of a file the source lacks skip their test."""
    from docfact.datasets import fetch, loaders

    cache_dir = tmp_path_factory.mktemp("docfact-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOCFACT_MIRROR", str(SOURCE))
        mp.setenv("DOCFACT_DATA_DIR", str(cache_dir))
        # the machine's memory plans the tables the tests ask about (a DOCFACT_MEMORY of
        # the user's would move the limits they check), and the tests' local HTTP server is
        # reached directly, not through a proxy of the environment
        mp.delenv("DOCFACT_MEMORY", raising=False)
        for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
            mp.delenv(proxy, raising=False)
            mp.delenv(proxy.lower(), raising=False)
        mp.setattr(loaders, "fetch", _guarded(loaders.fetch))
        mp.setattr(fetch, "fetch", _guarded(fetch.fetch))  # as the command line imports it
        yield cache_dir


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    if not MIRROR.is_dir():
        _missing(f"needs the data mirror {MIRROR}, which is absent")
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

    return cache(lambda name: load(name, data_dir=session_cache, mirror=SOURCE))
