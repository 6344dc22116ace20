"""Bring-your-own data: a local file or folder read into a `Corpus`.

A data set name that is a path (see `is_path`) is read here instead of being fetched from the
registry; there is no fingerprint to check it against. A relative path is relative to the
current directory. The format follows the suffix (in any case):

``.mat``
    A MATLAB file (v4 to v7.2; v7.3 is HDF5) with ``fea`` (documents x terms counts, sparse or
    dense) and ``gnd`` (one integer label per document), as Deng Cai's data sets.
``.npz``
    The arrays ``scipy.sparse.save_npz`` writes for the documents x terms counts (``data``,
    ``indices``, ``indptr``, ``shape``, ``format``) plus ``labels`` (integers, one per
    document) and optionally ``vocabulary`` (strings, one per term) and ``label_names``
    (strings: the name of label i + 1 at index i). `save_npz` writes this layout.
``.csv`` / ``.tsv``
    UTF-8, one document per row: label, then text (comma or tab separated; a text holding the
    separator or a line break is quoted with "). A first row ``label,text`` (in a .tsv
    ``label<tab>text``) is a header.
a folder
    One sub-folder per class, holding the class's documents as UTF-8 text files of any name
    and extension (also in nested folders). Files directly in the folder, and hidden files and
    folders (names starting with "."), are ignored.

Texts are tokenised as the 20 Newsgroups and Reuters loaders do (text.TOKEN_PATTERN, English
stop words removed), keeping every term (USER_MIN_DF). Labels that are all integers are kept as
they are; text labels (and folder names) are numbered 1..C in sorted order, their names kept in
`Corpus.label_names`. Every problem is a one-line DataError naming the file.
"""

import csv
import hashlib
import io
import math
import multiprocessing
import os
import struct
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.io.matlab import MatReadError

from docfact import atomic, limits
from docfact.datasets.corpus import Corpus
from docfact.datasets.registry import canonical, registry
from docfact.datasets.text import counts
from docfact.errors import DataError, DataNote, first_line

# Smallest document frequency of a kept term in user texts: 1 keeps every term, because a
# small corpus has few documents per term and the registry's thresholds were chosen to match
# published matrices, not as a rule for other data.
USER_MIN_DF = 1


def is_path(name) -> bool:
    """Whether a data set name means a file or folder rather than a registry entry.

    Registry names win; otherwise a name containing a path separator, ending in a suffix of
    the formats above, or naming an existing file or folder is a path (write ``./name`` to force
    a path).
    """
    if not isinstance(name, str) or canonical(name, registry()) in registry():
        return False
    return (
        "/" in name
        or os.sep in name
        or name.lower().endswith(tuple(_READERS))
        or os.path.exists(name)
    )


def load_path(path) -> Corpus:
    """The corpus in the file or folder `path`, named by the path as given.

    X: csr float64 (documents x terms); y: int64 (documents,).
    """
    name = os.fspath(path)
    path = Path(name)
    try:
        if path.is_dir():
            corpus = _read_folder(path, name)
        elif not path.exists():
            raise DataError(f"{name}: no such file or folder")
        elif not path.is_file():  # a FIFO would be waited on for ever
            raise DataError(f"{name}: neither a file nor a folder (a pipe or a device)")
        elif path.suffix.lower() not in _READERS:
            raise DataError(
                f"{name}: unknown format {path.suffix!r}; expected a .mat, .npz, .csv or .tsv "
                "file or a folder of class sub-folders"
            )
        elif path.suffix.lower() in _BINARY:
            corpus = _in_child(_READERS[path.suffix.lower()], path, name)
        else:
            corpus = _READERS[path.suffix.lower()](path, name)
    except OSError as e:  # unreadable file or folder
        raise DataError(f"{e.filename or name}: cannot read: {e.strerror or e}") from None
    _check(corpus, name)
    return corpus


def save_npz(path, corpus: Corpus) -> None:
    """Write `corpus` in the .npz layout `load_path` reads (X alone is also readable by
    scipy.sparse.load_npz). The file is replaced whole or not at all."""
    X = sp.csr_matrix(corpus.X)
    arrays = {
        "data": X.data,
        "indices": X.indices,
        "indptr": X.indptr,
        "shape": np.array(X.shape),
        "format": np.array(b"csr"),  # as scipy.sparse.save_npz writes it
        "labels": np.asarray(corpus.y),
    }
    if corpus.vocabulary is not None:
        arrays["vocabulary"] = np.asarray(corpus.vocabulary, dtype=str)
    if corpus.label_names is not None:
        arrays["label_names"] = np.array(corpus.label_names, dtype=str)

    def write(tmp):
        with open(tmp, "wb") as f:  # a file object: given a name, numpy may append ".npz"
            np.savez_compressed(f, **arrays)

    atomic.write_with(path, write)


# What a malformed file can make numpy's, scipy's or zipfile's readers raise.
_UNREADABLE = (ValueError, TypeError, KeyError, IndexError, EOFError, OverflowError, AttributeError,
               NotImplementedError, MatReadError, zipfile.BadZipFile, zlib.error, struct.error)


def _read_mat(path: Path, name: str) -> Corpus:
    """fea and gnd of a MATLAB file, their declared shapes bounded before they are read."""
    try:
        declared = {var: (shape, kind) for var, shape, kind in scipy.io.whosmat(path)}
        for var in ("fea", "gnd"):
            if var not in declared:
                raise KeyError(var)
        shape, kind = declared["fea"]
        if len(shape) != 2:
            raise DataError(f"{name}: 'fea' must be a documents x terms matrix, got shape "
                            f"{' x '.join(map(str, shape))}")
        limits.check_shape(shape, f"{name}: 'fea'")
        if kind != "sparse":
            limits.check_bytes(8 * shape[0] * shape[1], f"{name}: dense 'fea'")
        limits.check_bytes(8 * math.prod(declared["gnd"][0]), f"{name}: 'gnd'")
        mat = scipy.io.loadmat(path, variable_names=["fea", "gnd"])
        return _corpus(name, mat["fea"], mat["gnd"], None, None)
    except KeyError as e:
        raise DataError(
            f"{name}: no {e.args[0]!r} variable; a .mat corpus holds 'fea' (documents x terms) "
            "and 'gnd' (labels)"
        ) from None
    except NotImplementedError as e:
        if "v7.3" not in str(e):  # scipy's words for an HDF5-based file
            raise DataError(f"{name}: cannot read as a MATLAB file: {first_line(e)}") from None
        raise DataError(f"{name}: a MATLAB v7.3 file, which docfact does not read; save it "
                        "with save(..., '-v7')") from None
    except _UNREADABLE as e:
        raise DataError(f"{name}: cannot read as a MATLAB file: {first_line(e)}") from None


def _read_npz(path: Path, name: str) -> Corpus:
    """The arrays of scipy.sparse.save_npz plus labels, each checked before the matrix is
    built: sizes (uncompressed) and shape against memory, indices against the shape."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise ValueError("a single array, not a zip of arrays")
            limits.check_bytes(sum(i.file_size for i in z.zip.infolist()), name)
            if "labels" not in z.files:
                raise DataError(f"{name}: no 'labels' array beside the sparse matrix")
            shape = z["shape"] if "shape" in z.files else None
            if shape is None or shape.shape != (2,) or shape.dtype.kind not in "iu" or min(
                    shape) < 0:
                raise ValueError(f"'shape' must hold two non-negative integers, got {shape}")
            limits.check_shape(tuple(int(n) for n in shape), name)
            for key in ("indices", "indptr", "row", "col", "offsets"):  # scipy would cast them
                if key in z.files and z[key].dtype.kind not in "iu":     # with a warning
                    raise ValueError(f"'{key}' must hold integers, got {z[key].dtype} values")
            labels = z["labels"]
            vocabulary = z["vocabulary"] if "vocabulary" in z.files else None
            names = tuple(z["label_names"].tolist()) if "label_names" in z.files else None
        return _corpus(name, sp.load_npz(path), labels, vocabulary, names)
    except DataError:
        raise
    except _UNREADABLE as e:
        raise DataError(
            f"{name}: not a sparse matrix as scipy.sparse.save_npz writes it: {first_line(e)}"
        ) from None


def _corpus(name: str, X, labels, vocabulary, names) -> Corpus:
    """A corpus of the arrays read from a file, their types checked: a real 2-D matrix whose
    indices lie within its shape, integer labels, text vocabulary and label names. ValueError
    for a sparse matrix of inconsistent arrays."""
    if not (sp.issparse(X) or isinstance(X, np.ndarray)) or X.ndim != 2:
        raise DataError(f"{name}: the matrix must be documents x terms (2-D), got "
                        f"{getattr(X, 'ndim', type(X).__name__)} dimensions")
    if X.dtype.kind not in "biuf":
        raise DataError(f"{name}: the matrix must hold real numbers, got {X.dtype} values")
    if hasattr(X, "check_format"):  # csr, csc, bsr: indices within the shape, before any use
        X.check_format(full_check=True)
    labels = np.asarray(labels)
    if labels.dtype.kind not in "iu" and not (labels.dtype.kind == "f" and labels.size and np.all(
            np.isfinite(labels)) and np.all(labels == np.round(labels))):
        raise DataError(f"{name}: labels must be integers, got {labels.dtype} values")
    if labels.size and (labels.min() < np.iinfo(np.int64).min or
                        labels.max() > np.iinfo(np.int64).max):
        raise DataError(f"{name}: labels must fit in 64-bit integers")
    for what, value in (("vocabulary", vocabulary), ("label_names", names)):
        if value is not None and np.asarray(value).dtype.kind not in "US":
            raise DataError(f"{name}: {what} must be text, got {np.asarray(value).dtype} values")
    X = sp.csr_matrix(X, dtype=np.float64)
    X.eliminate_zeros()  # a stored zero is no count (and has no logarithm)
    return Corpus(name, X, labels.ravel().astype(np.int64), vocabulary, names)


DROPPED = "each byte that is not UTF-8 was read as a break between terms"
# First-row words that name a column: a header written otherwise than label,text.
HEADER_LABELS = {"label", "labels", "class", "category", "target", "topic", "y"}
HEADER_TEXTS = {"text", "texts", "document", "doc", "body", "content", "message"}


def _read_table(path: Path, name: str) -> Corpus:
    """(label, text) rows of a .csv or .tsv file."""
    delimiter, separator = ("\t", "tab") if path.suffix.lower() == ".tsv" else (",", "comma")
    limits.check_bytes(path.stat().st_size, name, limits.TEXT_FACTOR)
    text, at = _decode(path, "utf-8-sig")  # -sig: a spreadsheet's byte-order mark is no text
    if at is not None:
        warnings.warn(f"{name}: not UTF-8 text (byte {at}); {DROPPED}", DataNote, stacklevel=2)
    with io.StringIO(text, newline="") as f:
        reader = csv.reader(f, delimiter=delimiter, strict=True)
        rows, start = [], 1
        try:
            for row in reader:
                if any(c.strip() for c in row):
                    rows.append((start, row))
                start = reader.line_num + 1
        except csv.Error as e:
            if "unexpected end of data" in str(e):
                raise DataError(f'{name}, line {start}: a quoted text opened on this line is '
                                'never closed (a " without its closing ")') from None
            raise DataError(f"{name}, line {reader.line_num}: {e}; quote a text that holds "
                            f'a {separator} or a ", and double each " inside it') from None
    first = [c.strip().lower() for c in rows[0][1]] if rows else []
    if first == ["label", "text"]:
        rows = rows[1:]
    elif len(first) == 2 and set(first) <= HEADER_LABELS | HEADER_TEXTS:
        raise DataError(f"{name}, line {rows[0][0]}: a header {rows[0][1][0]}{delimiter}"
                        f"{rows[0][1][1]}: docfact reads the label, then the text, and a header "
                        f"only as label{delimiter}text (write that, or drop the row)")
    for line, row in rows:
        if len(row) != 2:
            raise DataError(
                f"{name}, line {line}: expected 2 fields (label, text), got {len(row)}; "
                f"quote texts that hold a {separator}"
            )
        if not row[0].strip():
            raise DataError(f"{name}, line {line}: empty label")
    if len(rows) >= 3 and len({row[0].strip() for _, row in rows}) == len(rows):
        raise DataError(f"{name}: each of its {len(rows)} documents has a label of its own; the "
                        "first field of a row is its label, the second its text")
    return _from_texts(name, [row[1] for _, row in rows], [row[0].strip() for _, row in rows])


def _read_folder(path: Path, name: str) -> Corpus:
    """Documents in class sub-folders, by class name then file path."""
    classes = sorted(d for d in path.iterdir() if d.is_dir() and not d.name.startswith("."))
    if not classes:
        raise DataError(f"{name}: no class sub-folders (one sub-folder of text files per class)")
    texts, labels, size, bad = [], [], 0, []
    for folder in classes:
        files = sorted(
            f
            for f in folder.rglob("*")
            if f.is_file() and not any(p.startswith(".") for p in f.relative_to(folder).parts)
        )
        if not files:
            raise DataError(f"{name}: class folder {folder.name!r} holds no files")
        size += sum(f.stat().st_size for f in files)
        limits.check_bytes(size, name, limits.TEXT_FACTOR)
        for f in files:
            text, at = _decode(f)
            texts.append(text)
            bad += [] if at is None else [f"{f}, byte {at}"]
        labels += [folder.name] * len(files)
    if bad:
        warnings.warn(f"{name}: {len(bad)} of its {len(texts)} files are not UTF-8 text (first: "
                      f"{bad[0]}); {DROPPED}", DataNote, stacklevel=2)
    return _from_texts(name, texts, labels)


def _decode(path: Path, encoding: str = "utf-8") -> tuple:
    """(text, None) of a UTF-8 file; for another, (its text with each byte that is not UTF-8
    replaced by U+FFFD, which the tokeniser reads as a break between terms, and the first such
    byte's offset). A corpus gathered from mail or the web often holds a stray byte: refusing
    the whole corpus for it would help no one, so it is said instead (DataNote)."""
    data = path.read_bytes()
    try:
        return data.decode(encoding), None
    except UnicodeDecodeError as e:
        return data.decode(encoding, errors="replace"), e.start


def _from_texts(name: str, texts: list[str], labels: list[str]) -> Corpus:
    if not texts:
        raise DataError(f"{name}: no documents")
    try:
        X, vocabulary = counts(texts, USER_MIN_DF)
    except ValueError:  # scikit-learn's "empty vocabulary"
        raise DataError(
            f"{name}: no terms: the texts hold only stop words, digits, single letters or words "
            "with letters outside a-z (accented, other scripts)"
        ) from None
    y, label_names = _numbered(labels)
    return Corpus(name, X, y, vocabulary, label_names)


def _numbered(labels: list[str]) -> tuple[np.ndarray, tuple | None]:
    """Integer labels as they are; else labels numbered 1..C in sorted order, and their names."""
    try:
        return np.array([int(label) for label in labels], dtype=np.int64), None
    except (ValueError, OverflowError):
        names = tuple(sorted(set(labels)))
        number = {label: i + 1 for i, label in enumerate(names)}
        return np.array([number[label] for label in labels], dtype=np.int64), names


def _check(corpus: Corpus, name: str) -> None:
    """What every method needs: documents, one label each, finite non-negative values."""
    n, terms = corpus.X.shape
    if n == 0:
        raise DataError(f"{name}: no documents")
    if terms == 0:
        raise DataError(f"{name}: no terms (the matrix has no columns)")
    if corpus.y.shape != (n,):
        raise DataError(f"{name}: {corpus.y.size} labels for {n} documents")
    if not np.all(np.isfinite(corpus.X.data)) or np.any(corpus.X.data < 0):
        raise DataError(f"{name}: the matrix must hold finite, non-negative values")
    if corpus.vocabulary is not None and corpus.vocabulary.shape != (terms,):
        raise DataError(f"{name}: {corpus.vocabulary.size} vocabulary entries for {terms} terms")
    names = corpus.label_names
    if names is not None and not (corpus.y.min() >= 1 and corpus.y.max() <= len(names)):
        raise DataError(f"{name}: labels must lie in 1..{len(names)} to have label_names")


_READERS = {".mat": _read_mat, ".npz": _read_npz, ".csv": _read_table, ".tsv": _read_table}
_BINARY = (".mat", ".npz")  # read by scipy's C code: see _in_child


def _in_child(read, path: Path, name: str) -> Corpus:
    """read(path, name) in a child process. scipy's readers of .mat files and of sparse
    matrices are C code that trusts the sizes a file declares, and this project's fuzzing
    found malformed files that crash them (a bus error in loadmat, a corrupted heap): a crash
    in the child is one line here, and the process that asked goes on. The child is forked
    from a server that has imported this module once (a few milliseconds each). Where no child
    can be had (a daemonic process, as a multiprocessing pool's worker; a system without
    forkserver) the file is read here."""
    if (multiprocessing.current_process().daemon
            or "forkserver" not in multiprocessing.get_all_start_methods()):
        return read(path, name)
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_reply, args=(read, path, name, send), daemon=True)
    child.start()
    send.close()
    try:
        ok, value = receive.recv()
    except EOFError:
        child.join()
        raise DataError(f"{name}: not a file scipy can read (its reader ended the process, exit "
                        f"code {child.exitcode})") from None
    finally:
        receive.close()
    child.join()
    if ok:
        return value
    raise value


def _reply(read, path: Path, name: str, send) -> None:
    """The child's side of _in_child: (True, the corpus) or (False, the exception)."""
    try:
        send.send((True, read(path, name)))
    except Exception as e:  # noqa: BLE001  (any: the parent raises it, as if read itself)
        try:
            send.send((False, e))
        except Exception:  # noqa: BLE001  (one that does not pickle: its words)
            send.send((False, DataError(f"{name}: {type(e).__name__}: {e}")))
    finally:
        send.close()


def content_hash(path) -> str:
    """sha256 of a data file, or of a folder's files (relative names and bytes, in name order):
    results computed on other contents are told apart by it (registered files are pinned by
    their own hashes and fingerprints instead)."""
    root = Path(path)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(root) if f != root else f.name).encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()[:16]
