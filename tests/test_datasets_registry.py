"""Every registry entry: fetched from the mirror, verified, loaded, fingerprint-checked."""

import dataclasses
import filecmp

import numpy as np
import pytest
import scipy.sparse as sp

from docfact.datasets import load
from docfact.datasets.fetch import fetch, verify
from docfact.datasets.registry import entry, names, registry
from docfact.errors import ConfigError, DataError

# Facts from the data mirror's README (and the raw collections' documentation), written
# out here so that the registry's fingerprints are checked against an independent source.
DOCUMENTED = {
    "tdt2": {"documents": 9394, "terms": 36771, "classes": 30, "max": 1844, "min": 52},
    "tdt2_all": {"documents": 10212, "terms": 36771, "classes": 96, "max": 1844, "min": 1},
    "reuters21578": {"documents": 8293, "terms": 18933, "classes": 65, "max": 3713, "min": 1},
    "yale": {"documents": 165, "terms": 1024, "classes": 15, "max": 11, "min": 11},
    "orl": {"documents": 400, "terms": 1024, "classes": 40, "max": 10, "min": 10},
    "20newsgroups": {"documents": 18846, "classes": 20},
    "reuters21578_sgml": {"documents": 8293, "classes": 65, "max": 3713, "min": 1},
    # every single-label document with a body, whatever its split (8654 counted from the SGML)
    "reuters21578_all": {"documents": 8654, "classes": 65, "max": 3735, "min": 1},
}


def test_registry_lists_every_file_of_the_mirror(mirror_dir):
    assert names() == list(DOCUMENTED)
    mirrored = {p.name for p in mirror_dir.iterdir() if p.name != "README.md"}
    assert {e.file for e in registry().values()} == mirrored


@pytest.mark.parametrize("name", list(DOCUMENTED))
def test_entry_fetches_from_the_mirror_into_an_empty_cache(name, empty_cache, mirror_dir):
    path = fetch(name)
    assert path == empty_cache / entry(name).file
    assert filecmp.cmp(path, mirror_dir / entry(name).file, shallow=False)
    assert verify(path, entry(name), rebuild=True) is None  # the mirror may hold rebuilds


@pytest.mark.parametrize("name", list(DOCUMENTED))
def test_entry_loads_with_its_documented_shape_and_classes(name, corpora):
    corpus = corpora(name)
    facts = DOCUMENTED[name]
    sizes = corpus.class_sizes()

    assert sp.issparse(corpus.X) and corpus.X.format == "csr"
    assert corpus.X.dtype == np.float64 and corpus.y.dtype == np.int64 and corpus.y.ndim == 1
    assert corpus.n_documents == facts["documents"] == len(corpus.y)
    assert corpus.n_classes == facts["classes"]
    if "terms" in facts:
        assert corpus.X.shape[1] == facts["terms"]
    if "max" in facts:
        assert (sizes.max(), sizes.min()) == (facts["max"], facts["min"])
    if corpus.vocabulary is not None:
        assert len(corpus.vocabulary) == corpus.X.shape[1]


def test_tdt2_is_the_30_first_classes_of_tdt2_all(corpora):
    tdt2, tdt2_all = corpora("tdt2"), corpora("tdt2_all")
    rows = np.flatnonzero(tdt2_all.y <= 30)
    assert np.array_equal(tdt2_all.y[rows], tdt2.y)
    assert (tdt2_all.X[rows] != tdt2.X).nnz == 0


def test_text_matrices_hold_raw_counts(corpora):
    for name in ("tdt2", "reuters21578", "20newsgroups"):
        data = corpora(name).X.data
        assert data.min() >= 1 and np.array_equal(data, np.round(data))


@pytest.mark.parametrize("name", ["yale", "orl"])
def test_faces_are_scaled_to_the_unit_interval(name, corpora):
    X = corpora(name).X
    assert X.data.min() > 0 and X.data.max() <= 1
    # Exactly the grey levels divided by 255: multiples of 1/255.
    assert np.allclose(X.data * 255, np.round(X.data * 255))


def test_fingerprint_mismatch_names_the_failed_check(monkeypatch, session_cache):
    e = entry("yale")
    wrong = dataclasses.replace(e.fingerprint, nnz=e.fingerprint.nnz + 1)
    monkeypatch.setitem(registry(), "yale", dataclasses.replace(e, fingerprint=wrong))
    with pytest.raises(DataError, match=r"fingerprint check 'nnz' failed: expected 168445"):
        load("yale")


def test_unknown_dataset_lists_the_known_ones():
    with pytest.raises(ConfigError) as error:
        load("tdt3")
    assert "unknown dataset 'tdt3'" in str(error.value)
    assert all(name in str(error.value) for name in names())
