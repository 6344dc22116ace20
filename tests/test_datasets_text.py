"""The raw-text routes: 20 Newsgroups bydate and Reuters-21578 SGML."""

import numpy as np
import pytest

from docfact.datasets import loaders
from docfact.datasets.loaders import newsgroup_text, reuters_documents
from docfact.datasets.stats import statistics
from docfact.errors import DataNote

MESSAGE = """From: someone@example.edu (Some One)
Subject: Re: orbital mechanics question
Organization: Example University
Lines: 7

In article <1@example.edu> other@example.edu writes:
> what keeps the satellite up?

Its velocity.
--
Some One, physics department
"""


def test_newsgroup_text_drops_the_header_but_keeps_subject_quotes_and_signature():
    text = newsgroup_text(MESSAGE)
    assert text.startswith("Re: orbital mechanics question\n")
    assert "Organization" not in text and "someone@example.edu" not in text
    assert "> what keeps the satellite up?" in text
    assert "Some One, physics department" in text


def test_newsgroup_text_without_body_or_subject():
    assert newsgroup_text("From: a@b.c\nSubject: only a header\n") == "only a header\n"
    assert newsgroup_text("From: a@b.c\n\nbody\n") == "\nbody\n"


SGML = """<!DOCTYPE lewis SYSTEM "lewis.dtd">
<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="1" NEWID="1">
<TOPICS><D>cocoa</D></TOPICS><TEXT><TITLE>COCOA &lt;UP&gt;</TITLE>
<BODY>Cocoa prices rose &amp; fell.</BODY></TEXT></REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="TEST" CGISPLIT="TRAINING-SET" OLDID="2" NEWID="2">
<TOPICS><D>grain</D><D>wheat</D></TOPICS><TEXT><BODY>Two topics.</BODY></TEXT></REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="NOT-USED" CGISPLIT="TRAINING-SET" OLDID="3" NEWID="3">
<TOPICS><D>grain</D></TOPICS><TEXT><BODY>Outside ModApte.</BODY></TEXT></REUTERS>
<REUTERS TOPICS="NO" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="4" NEWID="4">
<TOPICS><D>grain</D></TOPICS><TEXT><BODY>Not indexed for topics.</BODY></TEXT></REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="TEST" CGISPLIT="TRAINING-SET" OLDID="5" NEWID="5">
<TOPICS><D>grain</D></TOPICS><TEXT TYPE="BRIEF"><TITLE>TITLE ONLY</TITLE></TEXT></REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="TEST" CGISPLIT="TRAINING-SET" OLDID="6" NEWID="6">
<TOPICS><D>ship</D></TOPICS><TEXT><BODY>Ships sail.</BODY></TEXT></REUTERS>
"""


def test_reuters_keeps_modapte_single_topic_documents_with_a_body():
    assert reuters_documents(SGML) == [
        ("cocoa", "COCOA <UP>\nCocoa prices rose & fell."),
        ("ship", "\nShips sail."),
    ]


def test_reuters_without_modapte_keeps_every_single_topic_document_with_a_body():
    assert [topic for topic, _ in reuters_documents(SGML, modapte=False)] == [
        "cocoa", "grain", "grain", "ship"]


def test_20newsgroups_has_18846_documents_in_20_classes(corpora):
    corpus = corpora("20newsgroups")
    assert corpus.n_documents == 18846
    assert corpus.n_classes == 20
    assert np.array_equal(np.unique(corpus.y), np.arange(1, 21))
    # Labels follow sorted group names: alt.atheism (480 + 319) first,
    # talk.religion.misc (377 + 251) last.
    sizes = corpus.class_sizes()
    assert (sizes[0], sizes[-1]) == (799, 628)


def test_20newsgroups_vocabulary_follows_the_tokeniser(corpora):
    vocabulary = corpora("20newsgroups").vocabulary
    assert len(vocabulary) == corpora("20newsgroups").X.shape[1] == 25494
    assert all(word.isalpha() and word.islower() and len(word) >= 2 for word in vocabulary)
    assert not {"the", "and", "of"} & set(vocabulary)
    assert {"space", "hockey", "encryption"} <= set(vocabulary)


def test_text_builds_are_cached_and_reused(corpora, session_cache, monkeypatch):
    first = corpora("20newsgroups")
    assert len(list(session_cache.glob("20news-bydate.tar.gz.*.npz"))) == 1

    def no_rebuild(*args):
        raise AssertionError("the cached build should have been used")

    monkeypatch.setattr(loaders, "_build_newsgroups", no_rebuild)
    again = loaders.load("20newsgroups", data_dir=session_cache)
    assert (again.X != first.X).nnz == 0
    assert np.array_equal(again.y, first.y)
    assert np.array_equal(again.vocabulary, first.vocabulary)


def test_unreadable_cached_build_is_rebuilt(session_cache):
    # the tarball has two routes, each cached under its own key: keep only this route's
    for build in session_cache.glob("reuters21578.tar.gz.*.npz"):
        build.unlink()
    loaders.load("reuters21578_sgml", data_dir=session_cache)
    (cached,) = session_cache.glob("reuters21578.tar.gz.*.npz")
    cached.write_bytes(b"not an npz file")

    corpus = loaders.load("reuters21578_sgml", data_dir=session_cache)

    assert corpus.n_documents == 8293
    assert cached.read_bytes()[:2] == b"PK"  # a valid .npz (zip) was written back


def test_a_cache_that_cannot_be_written_still_gives_the_build(session_cache, monkeypatch):
    """A cache folder one may read but not write (shared, read-only): the tarball there is
    parsed in memory, with a note that the parsed build is not kept."""
    for build in session_cache.glob("reuters21578.tar.gz.*.npz"):
        build.unlink()

    def refuse(path, write):
        raise PermissionError(30, "Read-only file system", str(path))

    monkeypatch.setattr(loaders.atomic, "write_with", refuse)
    with pytest.warns(DataNote, match="the parsed build is not kept .Read-only file system: "):
        corpus = loaders.load("reuters21578_sgml", data_dir=session_cache)
    assert corpus.n_documents == 8293
    assert not list(session_cache.glob("reuters21578.tar.gz.*.npz"))


def test_reuters_sgml_route_matches_reuters21578_mat(corpora):
    sgml, mat = corpora("reuters21578_sgml"), corpora("reuters21578")
    s, m = statistics(sgml), statistics(mat)

    # Same documents: same count, same classes, same class sizes (earn 3713, acq 2055, ...).
    assert (s["documents"], s["classes"]) == (m["documents"], m["classes"]) == (8293, 65)
    assert np.array_equal(np.sort(sgml.class_sizes()), np.sort(mat.class_sizes()))
    assert sorted(sgml.class_sizes())[-2:] == [2055, 3713]
    # A different tokeniser: fewer terms (14101 against 18933) but nearly as many
    # document-term pairs (373729 against 389455, 4% fewer).
    assert (s["terms"], m["terms"]) == (14101, 18933)
    assert sgml.X.nnz == pytest.approx(mat.X.nnz, rel=0.05)


def test_reuters_all_route_adds_the_documents_outside_modapte(corpora):
    every, modapte = corpora("reuters21578_all"), corpora("reuters21578_sgml")
    # Without the ModApte condition: 361 more single-label documents with a body, in the
    # same 65 topics, each topic at least as large as in the ModApte split.
    assert (every.n_documents, modapte.n_documents) == (8654, 8293)
    assert every.n_classes == modapte.n_classes == 65
    assert np.all(np.sort(every.class_sizes()) >= np.sort(modapte.class_sizes()))
