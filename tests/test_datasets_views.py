"""Views: the papers' class selections give the papers' counts; selection rules."""

import re

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner

from docfact.cli import main
from docfact.datasets import Corpus, apply_view, resolve_view
from docfact.datasets.views import view_names
from docfact.errors import ConfigError, DataError

# (classes, documents) each named view must give on the public files.
COUNTS = {
    "lccf_tdt2": (56, 10021),
    "lccf_reuters": (41, 8213),
    "gnmf_tdt2": (30, 9394),
    "gnmf_reuters": (30, 8067),
    "rcf_tdt2": (30, 9394),
    "rcf_reuters": (13, 7495),
    "rcf_20newsgroups": (20, 2000),
    "pspt_tdt2": (53, 5127),
    "pspt_reuters": (40, 2714),  # the paper: 40 and 2710
    "pspt_reuters_modapte": (39, 2445),
    "pspt_reuters_modapte_sgml": (39, 2445),
    "20newsgroups_all": (20, 18845),  # the one message without a term is dropped
    "lcf_yale": (15, 165),
    "lcf_orl": (40, 400),
}


def _table_value(output: str, row: str) -> int:
    return int(re.search(rf"^{row}\s+(\d+)\s*$", output, re.MULTILINE).group(1))


def test_every_named_view_is_checked_here():
    assert set(view_names()) == set(COUNTS)


@pytest.mark.parametrize("view", list(COUNTS))
def test_view_counts_through_the_cli(view):
    result = CliRunner().invoke(main, ["datasets", "info", view])
    assert result.exit_code == 0, result.output
    classes, documents = COUNTS[view]
    assert _table_value(result.stdout, "classes") == classes
    assert _table_value(result.stdout, "documents") == documents


def test_pspt_view_reports_the_papers_counts():
    result = CliRunner().invoke(main, ["datasets", "info", "tdt2_all", "--view", "pspt_tdt2"])
    assert result.exit_code == 0, result.output
    assert _table_value(result.stdout, "classes") == 53
    assert "paper: 52 classes, 5333 documents" in result.stdout


def test_gnmf_tdt2_is_the_30_largest_classes_of_tdt2_all(corpora):
    largest = apply_view(corpora("tdt2_all"), {"dataset": "tdt2_all", "largest": 30})
    tdt2 = apply_view(corpora("tdt2"), "gnmf_tdt2")
    assert np.array_equal(largest.y, tdt2.y)
    assert (largest.X != tdt2.X).nnz == 0


def test_view_keeps_source_order_and_labels(corpora):
    source = corpora("tdt2_all")
    view = apply_view(source, "lccf_tdt2")
    labels, sizes = np.unique(source.y, return_counts=True)
    rows = np.flatnonzero(np.isin(source.y, labels[sizes >= 10]))
    assert np.array_equal(view.y, source.y[rows])
    assert (view.X != source.X[rows]).nnz == 0
    assert view.name == "lccf_tdt2"


def _toy(sizes: dict[int, int]) -> Corpus:
    y = np.repeat(list(sizes), list(sizes.values()))
    y = np.random.default_rng(0).permutation(y)  # interleaved classes, like real data
    X = sp.csr_matrix(np.arange(1, len(y) + 1, dtype=float)[:, None])  # row i holds i + 1
    return Corpus("tdt2", X, y)


def test_largest_breaks_ties_by_the_lower_label():
    corpus = _toy({7: 3, 5: 2, 2: 2, 9: 2, 4: 1})
    kept = apply_view(corpus, {"dataset": "tdt2", "largest": 3})
    assert set(kept.y) == {7, 2, 5}


def test_min_docs_and_size_band_combine():
    corpus = _toy({1: 12, 2: 10, 3: 9, 4: 30, 5: 10})
    assert set(apply_view(corpus, {"dataset": "tdt2", "min_docs": 10}).y) == {1, 2, 4, 5}
    band = {"dataset": "tdt2", "size_band": [10, 12]}
    assert set(apply_view(corpus, band).y) == {1, 2, 5}
    both = {"dataset": "tdt2", "size_band": [9, 29], "largest": 2}
    assert set(apply_view(corpus, both).y) == {1, 2}


def test_max_per_class_is_a_seeded_sample_in_source_order():
    corpus = _toy({1: 40, 2: 40, 3: 5})
    spec = {"dataset": "tdt2", "max_per_class": 10, "seed": 3}
    first, again = apply_view(corpus, spec), apply_view(corpus, spec)
    other = apply_view(corpus, {**spec, "seed": 4})

    assert list(first.class_sizes()) == [10, 10, 5]
    rows = first.X.toarray().ravel() - 1  # source row of each kept document
    assert np.all(np.diff(rows) > 0)
    assert np.array_equal(corpus.y[rows.astype(int)], first.y)
    assert np.array_equal(first.X.toarray(), again.X.toarray())
    assert not np.array_equal(first.X.toarray(), other.X.toarray())


def test_unknown_view_lists_the_known_ones():
    with pytest.raises(ConfigError) as error:
        resolve_view("lccf_tdt3")
    assert "unknown view 'lccf_tdt3'" in str(error.value)
    assert all(name in str(error.value) for name in COUNTS)


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"dataset": "tdt2", "min_doc": 10},
         r"unknown keys \['min_doc'\]; a view takes dataset and .*min_docs"),
        ({"min_docs": 10}, "no 'dataset'"),
        ({"dataset": "tdt3"}, "unknown dataset 'tdt3'"),
        ({"dataset": "tdt2", "largest": 0}, "positive integer"),
        ({"dataset": "tdt2", "size_band": [20, 10]}, "size_band"),
        ({"dataset": "tdt2", "max_per_class": 10}, "needs an integer seed"),
        ({"dataset": "tdt2", "max_per_class": 10, "seed": -1}, "non-negative integer, got -1"),
        ({"dataset": "tdt2", "expect": 5}, r"expect must be \{classes: C, documents: N\}"),
        ({"dataset": "tdt2", "expect": {"classes": 3}}, "expect must be"),
        ({"dataset": "tdt2", "expect": {"classes": 3, "documents": "9"}}, "expect must be"),
    ],
)
def test_invalid_views_are_config_errors(spec, message):
    with pytest.raises(ConfigError, match=message):
        resolve_view(spec)


def test_view_of_another_dataset_is_refused():
    with pytest.raises(ConfigError, match="selects from 'tdt2_all', not 'tdt2'"):
        apply_view(_toy({1: 3}), "lccf_tdt2")


def test_view_selecting_nothing_is_refused():
    with pytest.raises(ConfigError, match="selects no class"):
        apply_view(_toy({1: 3, 2: 4}), {"dataset": "tdt2", "min_docs": 5})


def test_expected_counts_are_checked():
    spec = {"dataset": "tdt2", "name": "mine", "expect": {"classes": 2, "documents": 8}}
    with pytest.raises(DataError, match="mine: expected 2 classes and 8 documents, got 2 and 7"):
        apply_view(_toy({1: 3, 2: 4}), spec)


def test_drop_empty_removes_documents_without_terms_before_weighting(corpora):
    from docfact.datasets.preprocess import weight

    corpus = corpora("20newsgroups")
    empty = np.flatnonzero(corpus.X.getnnz(axis=1) == 0)
    assert len(empty) == 1
    view = apply_view(corpus, "20newsgroups_all")
    assert view.n_documents == corpus.n_documents - 1
    assert weight(view.X).shape[0] == view.n_documents  # every document can be weighted
