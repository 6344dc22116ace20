"""Fetching: cache first, then the mirror, then the public addresses; every copy verified."""

import dataclasses
import filecmp
import functools
import http.server
import logging
import shutil
import threading
from pathlib import Path

import pytest

from docfact.datasets import fetch as fetch_module
from docfact.datasets.fetch import fetch, resolve_data_dir, verify
from docfact.datasets.registry import entry, registry
from docfact.errors import DataError, DataNote


def _with_urls(monkeypatch, name, urls):
    """Replace the public addresses of a registry entry for one test."""
    monkeypatch.setitem(registry(), name, dataclasses.replace(entry(name), urls=tuple(urls)))


def _flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def http_server():
    """Serve a folder over HTTP on localhost; yields a function folder -> base URL."""
    servers = []

    def serve(folder: Path) -> str:
        handler = functools.partial(_QuietHandler, directory=str(folder))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}/"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("damage", [_flip_byte, _truncate], ids=["flipped-byte", "truncated"])
@pytest.mark.parametrize(
    "name, check",
    [("yale", "sha256 mismatch"), ("reuters21578_sgml", "unreadable tarball")],
)
def test_damaged_cached_file_is_fetched_again(empty_cache, mirror_dir, caplog, name, damage, check):
    path = fetch(name)
    damage(path)
    damaged = path.read_bytes()

    with caplog.at_level(logging.WARNING, logger="docfact.datasets.fetch"):
        again = fetch(name)

    assert again == path
    assert filecmp.cmp(again, mirror_dir / entry(name).file, shallow=False)
    assert verify(again, entry(name)) is None
    assert check in caplog.text
    # The damaged copy is set aside for inspection, not silently reused.
    assert path.with_name(path.name + ".corrupt").read_bytes() == damaged


def test_verified_cache_is_used_without_mirror_or_network(
    empty_cache, mirror_dir, monkeypatch, no_network
):
    path = fetch("reuters21578_sgml", mirror=mirror_dir)
    monkeypatch.delenv("DOCFACT_MIRROR")
    assert fetch("reuters21578_sgml") == path
    assert fetch("yale", data_dir=empty_cache, mirror=mirror_dir) == empty_cache / "Yale_32x32.mat"
    assert fetch("yale") == empty_cache / "Yale_32x32.mat"


def test_mirror_without_the_file_falls_back_to_the_public_addresses(
    empty_cache, mirror_dir, tmp_path, monkeypatch, no_network
):
    empty_mirror = tmp_path / "empty-mirror"
    empty_mirror.mkdir()
    _with_urls(
        monkeypatch,
        "orl",
        [str(tmp_path / "nowhere" / "ORL_32x32.mat"), (mirror_dir / "ORL_32x32.mat").as_uri()],
    )
    with pytest.warns(DataNote, match=r"downloaded ORL_32x32.mat from file://.* into "):
        path = fetch("orl", mirror=empty_mirror)  # a public address: a note says which
    assert filecmp.cmp(path, mirror_dir / "ORL_32x32.mat", shallow=False)


def test_mirror_without_the_file_but_valid_cache_is_fine(mirror_dir, tmp_path, no_network):
    cache_dir = tmp_path / "cache"
    fetch("yale", data_dir=cache_dir, mirror=mirror_dir)
    empty_mirror = tmp_path / "empty-mirror"
    empty_mirror.mkdir()
    assert fetch("yale", data_dir=cache_dir, mirror=empty_mirror) == cache_dir / "Yale_32x32.mat"


def test_http_mirror_is_downloaded_and_verified(empty_cache, mirror_dir, http_server):
    path = fetch("yale", mirror=http_server(mirror_dir))
    assert filecmp.cmp(path, mirror_dir / "Yale_32x32.mat", shallow=False)


def test_bad_download_is_rejected_and_next_source_tried(
    empty_cache, mirror_dir, tmp_path, monkeypatch, http_server
):
    bad = tmp_path / "bad-mirror"
    bad.mkdir()
    shutil.copy(mirror_dir / "Yale_32x32.mat", bad)
    _flip_byte(bad / "Yale_32x32.mat")
    _with_urls(monkeypatch, "yale", [(mirror_dir / "Yale_32x32.mat").as_uri()])

    with pytest.warns(DataNote, match="downloaded Yale_32x32.mat from file://"):
        path = fetch("yale", mirror=http_server(bad))  # the mirror's copy rejected

    assert filecmp.cmp(path, mirror_dir / "Yale_32x32.mat", shallow=False)
    rejected = path.with_name("Yale_32x32.mat.corrupt")
    assert filecmp.cmp(rejected, bad / "Yale_32x32.mat", shallow=False)


def test_rejected_tarball_content_is_named(empty_cache, tmp_path, monkeypatch):
    # A well-formed tarball with the wrong members fails the content check, not gzip's.
    bad = tmp_path / "bad-mirror"
    bad.mkdir()
    (tmp_path / "reut2-000.sgm").write_text("<REUTERS >\n")
    shutil.make_archive(str(bad / "reuters21578"), "gztar", tmp_path, "reut2-000.sgm")
    _with_urls(monkeypatch, "reuters21578_sgml", [])

    with pytest.raises(DataError) as error:
        fetch("reuters21578_sgml", mirror=bad)

    assert "1 files match 'reut2-???.sgm', expected 22" in str(error.value)
    assert not (empty_cache / "reuters21578.tar.gz").exists()


def test_all_sources_failing_is_one_line_naming_file_addresses_folder_and_option(
    empty_cache, monkeypatch, no_network
):
    monkeypatch.delenv("DOCFACT_MIRROR")
    with pytest.raises(DataError) as error:
        fetch("tdt2")
    message = str(error.value)

    assert "\n" not in message
    assert message.startswith("cannot obtain TDT2.mat (dataset tdt2): ")
    urls = ", ".join(entry("tdt2").urls)  # addresses failing alike share their reason
    assert f"{urls}: ConnectionError: Name or service not known" in message
    assert "mirror: none" in message
    assert message.endswith(f"Put TDT2.mat in the cache folder {empty_cache} (--data-dir DIR), "
                            "or in a folder named by --mirror DIR")


def test_missing_mirror_file_is_reported_with_the_mirror_setting(empty_cache, tmp_path, no_network):
    with pytest.raises(DataError) as error:
        fetch("20newsgroups", mirror=tmp_path)
    message = str(error.value)

    assert f"mirror {tmp_path / '20news-bydate.tar.gz'}: not found" in message
    assert "mirror: none" not in message
    assert "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz" in message


def test_http_errors_are_reported_by_status(empty_cache, tmp_path, monkeypatch, http_server):
    _with_urls(monkeypatch, "yale", [])
    with pytest.raises(DataError, match=r"Yale_32x32.mat: HTTP 404"):
        fetch("yale", mirror=http_server(tmp_path))


def test_data_dir_argument_beats_environment_beats_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCFACT_DATA_DIR", str(tmp_path / "env"))
    assert resolve_data_dir(tmp_path / "arg") == tmp_path / "arg"
    assert resolve_data_dir() == tmp_path / "env"
    monkeypatch.delenv("DOCFACT_DATA_DIR")
    monkeypatch.setattr(fetch_module.platformdirs, "user_cache_dir", lambda app: f"/u/{app}")
    assert resolve_data_dir() == Path("/u/docfact")


def test_unusable_data_dir_is_a_data_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(DataError, match="cannot create the data cache folder"):
        fetch("yale", data_dir=blocker / "cache")


def test_a_cache_folder_that_cannot_be_written_is_said_once(mirror_dir, tmp_path, monkeypatch,
                                                            no_network):
    """A read-only cache serves the files it holds; for one it lacks, the error says the folder
    cannot be written (not a failure of each source, nor 'put the file in' that folder)."""
    cache_dir = tmp_path / "cache"
    fetch("yale", data_dir=cache_dir, mirror=mirror_dir)

    def refuse(folder):
        raise PermissionError(30, "Read-only file system", str(folder))

    monkeypatch.setattr(fetch_module.atomic, "probe_writable", refuse)
    assert fetch("yale", data_dir=cache_dir, mirror=mirror_dir) == cache_dir / "Yale_32x32.mat"
    with pytest.raises(DataError) as e:
        fetch("orl", data_dir=cache_dir, mirror=mirror_dir)
    assert str(e.value) == (f"the data cache folder {cache_dir} cannot be written (Read-only "
                            "file system); choose another with --data-dir DIR")
    (cache_dir / "Yale_32x32.mat").write_bytes(b"damaged")  # a copy to replace: said why
    with pytest.raises(DataError, match=r"Yale_32x32.mat failed its check \(.*\) and the data "
                                        "cache folder .* cannot be written"):
        fetch("yale", data_dir=cache_dir, mirror=mirror_dir)
    assert (cache_dir / "Yale_32x32.mat").read_bytes() == b"damaged"  # nothing moved


@pytest.mark.parametrize("ci, outcome", [("1", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_missing_data_file_fails_under_ci_and_skips_elsewhere(monkeypatch, ci, outcome):
    """conftest's _missing: a checkout without the data mirror skips the tests that need it
    (as the project asks), but under CI (.ci/run exports CI=1) the same absence fails, so a
    green CI cannot have passed a data test by skipping it."""
    from tests.conftest import _missing

    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="needs the data file X"):
        _missing("needs the data file X")
