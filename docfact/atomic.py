"""Files docfact writes and reads back: regular files only, replaced whole or not at all.

A results folder may come from elsewhere (shared, cloned, unpacked), so a name docfact uses in
it may hold a symbolic link, a FIFO or a folder. None of them is followed, opened or replaced:
every function here refuses them with a one-line `PlantedFileError`. Writes go to a new
temporary file beside the target (created with O_EXCL, so never through a link), then rename.
"""

import errno
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from docfact.errors import DocfactError

_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO",
          stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


class PlantedFileError(DocfactError):
    """A name docfact writes or reads holds something else than a regular file."""


def _refuse(path, mode) -> None:
    kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    raise PlantedFileError(f"{path} is {kind}, not a file docfact wrote; docfact neither "
                           "follows nor replaces it: remove it or choose another folder")


def check_regular(path) -> bool:
    """Whether `path` exists (as a regular file); PlantedFileError if it is anything else."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(mode):
        _refuse(path, mode)
    return True


def open_fd(path, flags: int, mode: int = 0o644) -> int:
    """os.open of the regular file `path` (created if flags say so) that never follows a link
    nor waits on a FIFO: PlantedFileError for a link, FIFO, folder or device there."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
            _refuse(path, os.lstat(path).st_mode)
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        _refuse(path, st.st_mode)
    os.set_blocking(fd, True)
    return fd


def read_bytes(path) -> bytes:
    with os.fdopen(open_fd(path, os.O_RDONLY), "rb") as f:
        return f.read()


def read_text(path) -> str:
    """The UTF-8 text of the regular file `path` (ValueError if it is not UTF-8)."""
    return read_bytes(path).decode("utf-8")


def append_text(path, text: str) -> None:
    """Append to the regular file `path` (created if absent), flushed to disk on return."""
    with os.fdopen(open_fd(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "w", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def remove(path) -> None:
    """Delete the regular file `path` if it exists."""
    if check_regular(path):
        os.unlink(path)


def write_text(path, text: str) -> None:
    path = Path(path)
    check_regular(path)
    with _named(path):
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.fchmod(fd, 0o644)  # mkstemp makes the file private; results are for everyone to read
        try:
            with os.fdopen(fd, "w", newline="") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def write_with(path, write) -> None:
    """Call write(temporary path), then move the file over `path` (for binary writers)."""
    path = Path(path)
    check_regular(path)
    with _named(path):
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
        os.fchmod(fd, 0o644)
        os.close(fd)
        try:
            write(tmp)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


@contextmanager
def _named(path: Path):
    """An OSError about the temporary file beside `path` told as one about `path`, the file
    the user knows (the temporary one is gone: it would name nothing)."""
    try:
        yield
    except OSError as e:
        if e.filename is None or not Path(e.filename).name.startswith(f".{path.name}."):
            raise
        raise type(e)(e.errno, e.strerror, str(path)) from None


def probe_writable(folder) -> None:
    """OSError unless a file can be created in `folder` (a new name: nothing is followed)."""
    fd, tmp = tempfile.mkstemp(prefix=".write-test.", dir=folder)
    os.close(fd)
    os.unlink(tmp)
