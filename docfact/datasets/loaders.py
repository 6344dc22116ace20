"""Loaders: from a verified file in the cache to a `Corpus` checked against its fingerprint.

Five kinds, named by the registry's ``loader`` field:

- ``cai_mat``: Deng Cai's .mat text matrices (``fea`` documents x terms counts, ``gnd`` labels).
- ``faces_mat``: Deng Cai's 32x32 face images, pixels scaled to [0, 1].
- ``newsgroups_bydate``: the raw 20 Newsgroups "bydate" tarball, tokenised here.
- ``reuters_sgml``: the raw Reuters-21578 SGML tarball, tokenised here (the ModApte split).
- ``reuters_sgml_all``: the same, every single-label document with a body, whatever its split.

The text builds are cached next to their tarball (see `_cached_build`), so only the first
load pays for parsing and tokenising.
"""

import functools
import hashlib
import html
import json
import logging
import re
import tarfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pooch
import scipy.io
import scipy.sparse as sp

from docfact import atomic
from docfact.datasets import user
from docfact.datasets.corpus import Corpus
from docfact.datasets.fetch import fetch
from docfact.datasets.registry import Entry, entry
from docfact.datasets.text import TOKEN_PATTERN, counts
from docfact.errors import DataError, DataNote

log = logging.getLogger(__name__)

# Smallest document frequency of a kept term. 20 Newsgroups: min_df = 6 gives 25494 terms,
# the closest to the 26214 of Deng Cai's 20Newsgroups.mat (5 gives 29007, 7 gives 22941).
# Reuters: min_df = 2, the rule visible in Deng Cai's Reuters21578.mat and TDT2.mat (every
# term there occurs in at least two documents); it gives 14101 terms against their 18933.
NEWSGROUPS_MIN_DF = 6
REUTERS_MIN_DF = 2

# Bumped whenever parsing changes, so that stale cached builds are not reused.
_PARSER_VERSION = 1


def load(name: str, *, data_dir=None, mirror=None) -> Corpus:
    """The data set `name`: a registry name, fetched if needed and fingerprint-checked, or
    the path of a user's file or folder (see user.is_path), read as it is; data_dir and mirror
    apply to registry names only."""
    if user.is_path(name):
        return user.load_path(name)
    e = entry(name)
    path = fetch(name, data_dir=data_dir, mirror=mirror)
    corpus = _LOADERS[e.loader](path, e)
    check_fingerprint(corpus, e)
    return corpus


def check_fingerprint(corpus: Corpus, e: Entry) -> None:
    """DataError naming the first check (shape, nnz, classes, class sizes) that fails."""
    fp = e.fingerprint
    sizes = tuple(int(s) for s in sorted(corpus.class_sizes(), reverse=True))
    checks = [
        ("shape", fp.shape, tuple(corpus.X.shape)),
        ("nnz", fp.nnz, corpus.X.nnz),
        ("classes", fp.classes, corpus.n_classes),
        ("class sizes", fp.class_sizes, sizes),
    ]
    for check, expected, got in checks:
        if expected != got:
            raise DataError(
                f"{e.name} ({e.file}): fingerprint check {check!r} failed: "
                f"expected {_short(expected)}, got {_short(got)}"
            )


def _short(value) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_cai_mat(path: Path, name: str) -> Corpus:
    """Deng Cai's text .mat: `fea` raw counts (documents x terms, sparse or dense) as csr
    float64, `gnd` as int64 labels."""
    mat = scipy.io.loadmat(path)
    X = sp.csr_matrix(mat["fea"], dtype=np.float64)
    return Corpus(name, X, np.asarray(mat["gnd"]).ravel().astype(np.int64))


def _load_faces_mat(path: Path, e: Entry) -> Corpus:
    """Deng Cai's 32x32 faces: uint8 grey levels divided by 255 into [0, 1].

    The factorisation methods are scale invariant up to their regularisation weights, but
    [0, 1] pixels keep objective values of the same order as those of unit-norm documents,
    so the same parameter grids and stopping tolerances stay meaningful.
    """
    mat = scipy.io.loadmat(path)
    X = sp.csr_matrix(np.asarray(mat["fea"], dtype=np.float64) / 255.0)
    return Corpus(e.name, X, np.asarray(mat["gnd"]).ravel().astype(np.int64))


def _tokenised(name: str, texts: list[str], labels: list[str], min_df: int) -> Corpus:
    """Counts of `texts`; labels numbered 1.. in sorted label-name order."""
    X, vocabulary = counts(texts, min_df)
    classes = sorted(set(labels))
    number = {c: i + 1 for i, c in enumerate(classes)}
    y = np.array([number[label] for label in labels], dtype=np.int64)
    return Corpus(name, X, y, vocabulary)


# --- 20 Newsgroups -------------------------------------------------------------------------

_BLANK_LINE = re.compile(r"\r?\n[ \t]*\r?\n")
_SUBJECT = re.compile(r"^Subject:(.*)$", re.MULTILINE | re.IGNORECASE)


def newsgroup_text(message: str) -> str:
    """The text kept from one message: its Subject line's text, then its whole body.

    The header block (everything up to the first blank line) is dropped except the
    subject: paths, addresses and dates there identify the newsgroup without being about
    its topic. Quotes and signatures are kept, because Deng Cai's 18846 x 26214 matrix,
    which the papers used, was built from the whole messages.
    """
    header, *body = _BLANK_LINE.split(message, maxsplit=1)
    subject = _SUBJECT.search(header)
    return (subject.group(1).strip() if subject else "") + "\n" + (body[0] if body else "")


def _build_newsgroups(path: Path, name: str, min_df: int) -> Corpus:
    """All 18846 bydate messages, train then test, each by group then message number,
    so the row order does not depend on the order of the tarball's members."""
    messages = []
    with tarfile.open(path, "r:gz") as tar:
        for member in tar:
            parts = member.name.removeprefix("./").split("/")
            if member.isfile() and len(parts) == 3:
                split, group, number = parts
                raw = tar.extractfile(member).read().decode("latin-1")
                key = (not split.endswith("train"), group, int(number))
                messages.append((key, group, newsgroup_text(raw)))
    messages.sort(key=lambda m: m[0])
    return _tokenised(name, [m[2] for m in messages], [m[1] for m in messages], min_df)


# --- Reuters-21578 -------------------------------------------------------------------------

_REUTERS = re.compile(r"<REUTERS(?P<attrs>[^>]*)>(?P<doc>.*?)</REUTERS>", re.DOTALL)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_TOPICS = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.DOTALL)
_D = re.compile(r"<D>(.*?)</D>", re.DOTALL)
_TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.DOTALL)
_BODY = re.compile(r"<BODY>(.*?)</BODY>", re.DOTALL)


def reuters_documents(sgml: str, modapte: bool = True) -> list[tuple[str, str]]:
    """(topic, text) of the documents of one .sgm file kept for clustering.

    Kept: exactly one TOPICS label, a non-empty BODY and, if `modapte`, the ModApte split
    (LEWISSPLIT TRAIN or TEST, TOPICS="YES"). Text: TITLE and BODY, entities decoded. On
    the full collection this keeps 8293 documents in 65 topics with `modapte`, the same
    counts and class sizes as Deng Cai's Reuters21578.mat, and 8654 without it.
    """
    kept = []
    for match in _REUTERS.finditer(sgml):
        attrs = dict(_ATTR.findall(match["attrs"]))
        split = attrs.get("TOPICS") == "YES" and attrs.get("LEWISSPLIT") in ("TRAIN", "TEST")
        if modapte and not split:
            continue
        doc = match["doc"]
        topics = _TOPICS.search(doc)
        labels = _D.findall(topics.group(1)) if topics else []
        body = _BODY.search(doc)
        if len(labels) != 1 or body is None or not body.group(1).strip():
            continue
        title = _TITLE.search(doc)
        text = (title.group(1) if title else "") + "\n" + body.group(1)
        kept.append((labels[0], html.unescape(text)))
    return kept


def _build_reuters(path: Path, name: str, min_df: int, modapte: bool = True) -> Corpus:
    """Documents of reut2-000.sgm ... reut2-021.sgm, in file then document order."""
    documents = []
    with tarfile.open(path, "r:gz") as tar:
        members = [m for m in tar if re.fullmatch(r"(\./)?reut2-\d{3}\.sgm", m.name)]
        for member in sorted(members, key=lambda m: m.name):
            sgml = tar.extractfile(member).read().decode("latin-1")
            documents += reuters_documents(sgml, modapte)
    return _tokenised(name, [d[1] for d in documents], [d[0] for d in documents], min_df)


# --- cache of the text builds -------------------------------------------------------------


def _cached_build(path: Path, e: Entry, build, min_df: int) -> Corpus:
    """`build(path, name, min_df)`, cached as an .npz next to the tarball.

    The cache key is the tarball's sha256 and every setting of the build, so a different
    tarball or tokeniser never reuses a stale matrix. A cached build that cannot be read
    or fails the fingerprint is rebuilt; a build is written only after passing it.
    """
    settings = {
        "tarball_sha256": pooch.file_hash(str(path)),
        "loader": e.loader,
        "parser_version": _PARSER_VERSION,
        "token_pattern": TOKEN_PATTERN,
        "stop_words": "english",
        "lowercase": True,
        "min_df": min_df,
    }
    key = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]
    cache = path.with_name(f"{path.name}.{key}.npz")
    if cache.exists():
        try:
            corpus = _read_npz(cache, e.name)
            check_fingerprint(corpus, e)
            return corpus
        except (OSError, KeyError, ValueError, zipfile.BadZipFile, DataError) as exc:
            log.warning("rebuilding %s: the cached build is unusable (%s)", cache, exc)
    corpus = build(path, e.name, min_df)
    check_fingerprint(corpus, e)
    try:
        _write_npz(cache, corpus)
    except OSError as exc:  # a cache one may read but not write (shared, read-only): parsed here
        warnings.warn(f"{e.name}: the parsed build is not kept ({exc.strerror or exc}: "
                      f"{cache}); it is parsed again next time", DataNote, stacklevel=2)
    return corpus


def _read_npz(path: Path, name: str) -> Corpus:
    with np.load(path, allow_pickle=False) as z:
        X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
        return Corpus(name, X, z["y"], z["vocabulary"])


def _write_npz(path: Path, corpus: Corpus) -> None:
    """Written whole or not at all (atomic.write_with), so readers never see half a file."""
    atomic.write_with(path, lambda tmp: np.savez(
        tmp, data=corpus.X.data, indices=corpus.X.indices, indptr=corpus.X.indptr,
        shape=np.array(corpus.X.shape), y=corpus.y, vocabulary=corpus.vocabulary))


_LOADERS = {
    "cai_mat": lambda path, e: read_cai_mat(path, e.name),
    "faces_mat": _load_faces_mat,
    "newsgroups_bydate": lambda path, e: _cached_build(
        path, e, _build_newsgroups, NEWSGROUPS_MIN_DF
    ),
    "reuters_sgml": lambda path, e: _cached_build(path, e, _build_reuters, REUTERS_MIN_DF),
    "reuters_sgml_all": lambda path, e: _cached_build(
        path, e, functools.partial(_build_reuters, modapte=False), REUTERS_MIN_DF
    ),
}
