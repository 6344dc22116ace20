"""`docfact datasets`: list, views, fetch, info; errors are one line and a non-zero exit."""

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner

from docfact.cli import main
from docfact.datasets import Corpus
from docfact.datasets.registry import names
from docfact.datasets.stats import statistics


def _run(*args):
    return CliRunner().invoke(main, ["datasets", *args])


def _assert_one_line_error(result, code, *fragments):
    assert result.exit_code == code
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("docfact: error: ")
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]


def test_a_mirror_folder_that_is_not_there_is_said(empty_cache, tmp_path):
    """A mistyped --mirror is one line, not a silent turn to the public addresses."""
    _assert_one_line_error(_run("--mirror", tmp_path / "nope", "fetch", "orl"), 1,
                           f"mirror {tmp_path / 'nope'} (--mirror or DOCFACT_MIRROR): no such "
                           "folder")
    (tmp_path / "ORL_32x32.mat").write_bytes(b"")  # the file itself, not its folder
    _assert_one_line_error(_run("--mirror", tmp_path / "ORL_32x32.mat", "fetch", "orl"), 1,
                           f"mirror {tmp_path / 'ORL_32x32.mat'} (--mirror or DOCFACT_MIRROR): a "
                           "file, not a folder")


def test_statistics_of_a_small_corpus():
    X = sp.csr_matrix(np.array([[1, 0, 0, 2], [0, 0, 0, 1], [3, 0, 0, 0], [1, 0, 1, 0],
                                [0, 0, 0, 1], [0, 0, 0, 0]]))
    X[3, 2] = 0  # an explicit zero is not a used term
    stats = statistics(Corpus("toy", X, np.array([4, 4, 4, 9, 9, 9])))
    assert stats == {
        "documents": 6,
        "terms": 2,
        "classes": 2,
        "max_class_size": 3,
        "min_class_size": 3,
        "median_class_size": 3.0,
        "average_class_size": 3.0,
        "duplicate_documents": 1,  # row 4 repeats row 1
        "empty_documents": 1,
    }


def test_list_shows_every_dataset_and_whether_it_is_cached(empty_cache):
    assert _run("fetch", "yale").exit_code == 0
    result = _run("list")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    rows = {line.split()[0]: line.split() for line in lines[2:2 + len(names())]}
    assert list(rows) == names()
    assert lines[2 + len(names()):] == [  # why 20newsgroups and its views count differently
        "20newsgroups: 18846 documents, 1 of them with no term left after tokenising, which "
        "the views rcf_20newsgroups, 20newsgroups_all drop (drop_empty): 18845 in "
        "20newsgroups_all"]
    assert rows["yale"][2:] == ["yes", "0.2", "MB", "165", "15"]
    assert rows["tdt2_all"][2:] == ["no", "-", "10212", "96"]


def test_views_lists_counts_and_the_papers_where_they_differ():
    result = _run("views")
    assert result.exit_code == 0
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()[2:]}
    assert rows["pspt_reuters"] == ["reuters21578_all", "40", "2714", "40", "/", "2710"]
    assert rows["lccf_tdt2"] == ["tdt2_all", "56", "10021", "same"]


def test_fetch_several_into_the_data_dir_option(tmp_path, mirror_dir):
    result = _run("--data-dir", str(tmp_path), "--mirror", str(mirror_dir), "fetch", "yale", "orl")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"yale: {tmp_path / 'Yale_32x32.mat'}",
        f"orl: {tmp_path / 'ORL_32x32.mat'}",
    ]


def test_info_of_a_dataset():
    result = _run("info", "yale")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "yale"
    rows = dict(line.rsplit(None, 1) for line in result.stdout.splitlines()[3:])
    assert rows["median class size"] == "11.0" and rows["duplicate documents"] == "0"


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["fetch", "tdt3"], ["unknown dataset 'tdt3'", "known datasets: tdt2, tdt2_all"]),
        (["fetch"], ["give dataset names or --all"]),
        (["info", "nope"], ["unknown dataset or view 'nope'", "views: lccf_tdt2"]),
        (["info", "tdt2", "--view", "nope"], ["unknown view 'nope'", "known views: lccf_tdt2"]),
        (["info", "tdt2", "--view", "lccf_tdt2"], ["is a view of 'tdt2_all', not 'tdt2'"]),
        (["info", "lccf_tdt2", "--view", "lccf_tdt2"], ["already a view"]),
    ],
)
def test_usage_errors_exit_2_with_one_line(args, fragments):
    _assert_one_line_error(_run(*args), 2, *fragments)


def test_fetch_failure_exits_1_with_one_line(empty_cache, monkeypatch, no_network):
    monkeypatch.delenv("DOCFACT_MIRROR")
    _assert_one_line_error(
        _run("fetch", "orl"),
        1,
        "cannot obtain ORL_32x32.mat",
        "http://www.cad.zju.edu.cn/home/dengcai/Data/ORL/ORL_32x32.mat: ConnectionError",
        "mirror: none",
    )
