"""Fetching data files into a local cache, verified, from a mirror or the public addresses.

Order of sources for a file: the cache (used offline when it passes its check), then the
mirror (``mirror`` argument or ``DOCFACT_MIRROR``: a local folder, a ``file://`` URL or a base
URL), then the registry's public addresses in order. Every new copy lands in a temporary
file next to its final place, passes the same verification whatever its source, and is
moved into place with ``os.replace``, so a cache never holds a half-written file.

A public address's copy must have the published sha256 where the registry knows it; a mirror's
copy of a tarball may instead be a rebuild of the same files (see `verify`). A file that fails
its check (cached or freshly fetched) is moved aside as ``<file>.corrupt``
(the last one is kept for inspection) and the next source is tried.
"""

import fnmatch
import gzip
import logging
import os
import re
import shutil
import sys
import tarfile
import uuid
import warnings
import zlib
from pathlib import Path
from urllib.parse import unquote, urlparse

import platformdirs
import pooch
import requests

from docfact import atomic
from docfact.datasets.registry import Entry, entry
from docfact.errors import DataError, DataNote, first_line

log = logging.getLogger(__name__)

# No data host answers slowly enough to need more than this to connect; failing fast
# matters when the network is absent and every public address must be tried in turn.
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 60.0

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


class _Rejected(OSError):
    """A copy that was obtained but failed verification."""


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """The cache folder: `data_dir`, else $DOCFACT_DATA_DIR, else the user's cache folder."""
    chosen = data_dir or os.environ.get("DOCFACT_DATA_DIR")
    return Path(chosen or platformdirs.user_cache_dir("docfact")).expanduser()


def resolve_mirror(mirror: str | os.PathLike | None = None) -> str | None:
    """The mirror setting: `mirror`, else $DOCFACT_MIRROR, else None."""
    chosen = mirror or os.environ.get("DOCFACT_MIRROR")
    return str(chosen) if chosen else None


def cached_path(name: str, data_dir: str | os.PathLike | None = None) -> Path:
    """Where `name`'s file lives in the cache (it may not be there)."""
    return resolve_data_dir(data_dir) / entry(name).file


def fetch(
    name: str,
    *,
    data_dir: str | os.PathLike | None = None,
    mirror: str | os.PathLike | None = None,
) -> Path:
    """Path of `name`'s verified file in the cache, fetching it first if needed.

    Raises DataError (one line: the file, each source tried with its reason, and where to put
    the file: the cache folder or a mirror) when no source yields a copy that passes
    verification.
    """
    e = entry(name)
    target = resolve_data_dir(data_dir) / e.file
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(f"cannot create the data cache folder {target.parent}: {exc}") from None
    mirror = resolve_mirror(mirror)

    tried = []
    if target.exists():
        problem = _verify_cached(target, e)
        if problem is None:
            return target
        _writable(target.parent, f"{target} failed its check ({problem}) and ")
        _quarantine(target)
        log.warning("cached %s failed its check (%s); fetching it again", target, problem)
        tried.append(f"cached copy: {problem} (set aside as .corrupt)")

    if mirror and not _URL.match(mirror) and not Path(mirror).expanduser().is_dir():
        what = "a file, not a folder" if Path(mirror).expanduser().exists() else "no such folder"
        raise DataError(f"mirror {mirror} (--mirror or DOCFACT_MIRROR): {what}")
    _writable(target.parent)
    sources = [("mirror ", _join(mirror, e.file))] if mirror else []
    sources += [("", url) for url in e.urls]
    public = {}
    for label, address in sources:
        try:
            _install(address, e, target, rebuild=bool(label))
            if not label:
                warnings.warn(f"downloaded {e.file} from {address} into {target.parent}",
                              DataNote, stacklevel=2)
            return target
        except OSError as exc:  # includes requests' errors and _Rejected
            if label:
                tried.append(f"{label}{address}: {_reason(exc)}")
            else:
                public.setdefault(_reason(exc), []).append(address)
    tried += [f"{', '.join(addresses)}: {reason}" for reason, addresses in public.items()]
    if not mirror:
        tried.append("mirror: none")
    raise DataError(
        f"cannot obtain {e.file} (dataset {name}): {'; '.join(tried)}. Put {e.file} in the "
        f"cache folder {target.parent} (--data-dir DIR), or in a folder named by --mirror DIR"
    )


def _writable(folder: Path, why: str = "") -> None:
    """DataError, before any source is tried, when the cache folder cannot take a file (a
    shared or read-only cache: every source would fail for that one reason); `why` says what
    needed a new copy."""
    try:
        atomic.probe_writable(folder)
    except OSError as exc:
        raise DataError(f"{why}the data cache folder {folder} cannot be written "
                        f"({exc.strerror or exc}); choose another with --data-dir DIR") from None


def verify(path: Path, e: Entry, rebuild: bool = False) -> str | None:
    """The check `path` fails as a copy of `e`'s file, or None when it passes: the sha256 of
    the published bytes; for a `rebuild` (a mirror's or the cache's copy) of an entry with a
    `content` spec, or an entry without a known sha256, that content instead."""
    if e.sha256:
        digest = pooch.file_hash(str(path))
        if digest == e.sha256:
            return None
        if not (rebuild and e.content):
            return f"sha256 mismatch (expected {e.sha256[:12]}..., got {digest[:12]}...)"
    return _check_content(path, e.content)


def _verify_cached(path: Path, e: Entry) -> str | None:
    """Like `verify` of a rebuild, but content checks (slow) are skipped when the file's
    sha256 is the published one or still equals the one recorded after its last successful
    content check."""
    if not e.content:
        return verify(path, e)
    digest = pooch.file_hash(str(path))
    stamp = _stamp(path)
    if digest == e.sha256 or (stamp.exists() and stamp.read_text().strip() == digest):
        return None
    problem = _check_content(path, e.content)
    if problem is None:
        _write_stamp(path)
    return problem


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _write_stamp(path: Path) -> None:
    # Not atomic on purpose: a torn stamp only fails to match, which costs one re-check.
    _stamp(path).write_text(pooch.file_hash(str(path)) + "\n")


def _install(address: str, e: Entry, target: Path, rebuild: bool) -> None:
    """Copy or download `address` into a temporary file, verify it (`rebuild`: a mirror's
    copy, see verify), move it to `target`."""
    part = target.with_name(f".{target.name}.{uuid.uuid4().hex}.part")
    try:
        _get(address, part)
        problem = verify(part, e, rebuild)
        if problem is not None:
            _quarantine(part, target)
            raise _Rejected(problem)
        os.replace(part, target)
        if e.content:
            _write_stamp(target)
    finally:
        part.unlink(missing_ok=True)


def _get(address: str, dest: Path) -> None:
    """Copy a local path or file:// URL, or download an http(s) URL, into `dest`."""
    if not _URL.match(address):
        shutil.copyfile(Path(address).expanduser(), dest)
        return
    url = urlparse(address)
    if url.scheme == "file":
        shutil.copyfile(Path(unquote(url.path)), dest)
    elif url.scheme in ("http", "https"):
        downloader = pooch.HTTPDownloader(
            progressbar=sys.stderr.isatty(), timeout=(CONNECT_TIMEOUT, READ_TIMEOUT)
        )
        downloader(address, str(dest), None)
    else:
        raise _Rejected(f"unsupported address scheme {url.scheme!r}")


def _join(mirror: str, file: str) -> str:
    """The address of `file` in the mirror (a folder or a base URL)."""
    if _URL.match(mirror):
        return mirror.rstrip("/") + "/" + file
    return str(Path(mirror).expanduser() / file)


def _quarantine(path: Path, target: Path | None = None) -> None:
    """Move a file that failed its check (by default the cached `target` itself) out of the
    way as `<target>.corrupt`, keeping the last one for inspection."""
    target = target or path
    os.replace(path, target.with_name(target.name + ".corrupt"))
    _stamp(target).unlink(missing_ok=True)


def _check_content(path: Path, spec: dict) -> str | None:
    """Check a .tar.gz against a registry `content` spec (see registry.Entry)."""
    members = spec.get("members", {})
    markers = spec.get("markers", {})
    counts = dict.fromkeys(members, 0)
    found = dict.fromkeys(markers, 0)
    try:
        with gzip.open(path) as gz:
            with tarfile.open(fileobj=gz, mode="r|") as tar:
                for member in tar:
                    if not member.isfile():
                        continue
                    member_path = member.name.removeprefix("./")
                    matched = [p for p in members if fnmatch.fnmatchcase(member_path, p)]
                    for pattern in matched:
                        counts[pattern] += 1
                    if matched and markers:
                        data = tar.extractfile(member).read()
                        for marker in markers:
                            found[marker] += data.count(marker.encode("latin-1"))
            # Read to the very end: only then does gzip compare its CRC and length, which
            # catches damage inside member contents that the tar headers do not cover.
            while gz.read(1 << 20):
                pass
    except (OSError, EOFError, zlib.error, tarfile.TarError) as exc:
        return f"unreadable tarball ({type(exc).__name__}: {first_line(exc, 100)})"
    for pattern, expected in members.items():
        if counts[pattern] != expected:
            return f"content check: {counts[pattern]} files match {pattern!r}, expected {expected}"
    for marker, expected in markers.items():
        if found[marker] != expected:
            return f"content check: {found[marker]} x {marker!r}, expected {expected}"
    return None


def _reason(exc: OSError) -> str:
    """A short, one-line reason for a failed source."""
    if isinstance(exc, _Rejected):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return "not found"
    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, requests.Timeout):
        return "timed out"
    # requests nests the useful part ("[Errno -3] Temporary failure in name resolution")
    # deep inside a long message; fish it out.
    errno = re.search(r"\[Errno -?\d+\] ([^'\")\]]+)", str(exc))
    detail = errno.group(1).strip() if errno else first_line(exc, 100)
    return f"{type(exc).__name__}: {detail}"
