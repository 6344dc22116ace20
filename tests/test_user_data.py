"""Bring-your-own data: every format reads back the corpus written, views and `docfact run`
work on a path, and bad input is one line."""

import json
import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.io
import scipy.sparse as sp
import yaml
from click.testing import CliRunner

from docfact.cli import main
from docfact.datasets import Corpus, apply_view, load, resolve_view, save_npz
from docfact.datasets.user import is_path, load_path
from docfact.errors import ConfigError, DataError, DataNote

# Terms in alphabetical order: the tokeniser's vocabulary is sorted, so column j is TERMS[j].
TERMS = ["apple", "banana", "cherry", "durian", "elder"]
COUNTS = np.array(
    [[2, 1, 0, 0, 0], [1, 3, 0, 0, 0], [0, 0, 2, 1, 0], [0, 0, 1, 1, 1], [0, 0, 0, 0, 4]],
    dtype=np.float64,
)
CLASSES = ["fruit", "fruit", "stone", "stone", "tree"]  # numbered 1, 1, 2, 2, 3
# What the tokeniser must drop: stop words, digits, single letters, punctuation; case folds.
NOISE = "The 42 x, and it's - a"


def _text(row: np.ndarray) -> str:
    words = [w for w, n in zip(TERMS, row, strict=True) for _ in range(int(n))]
    return f"{NOISE} " + " ".join(w.upper() if i % 2 else w for i, w in enumerate(words[::-1]))


def _expected() -> Corpus:
    return Corpus("known", sp.csr_matrix(COUNTS), np.array([1, 1, 2, 2, 3]),
                  np.array(TERMS), ("fruit", "stone", "tree"))


def _assert_same(got: Corpus, want: Corpus, vocabulary=True) -> None:
    assert got.X.dtype == np.float64 and sp.isspmatrix_csr(got.X)
    assert np.array_equal(got.X.toarray(), want.X.toarray())
    assert np.array_equal(got.y, want.y) and got.y.dtype == np.int64
    if vocabulary:
        assert list(got.vocabulary) == list(want.vocabulary)
        assert got.label_names == want.label_names


def _write_csv(path, rows, header=True, delimiter=","):
    lines = [f"label{delimiter}text"] if header else []
    lines += [f'{label}{delimiter}"{text}"' for label, text in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _known_rows():
    return [(label, _text(row)) for label, row in zip(CLASSES, COUNTS, strict=True)]


def _folder(root, rows):
    for i, (label, text) in enumerate(rows):
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / f"doc{i}.{'txt' if i % 2 else 'md'}").write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("dense", [False, True])
def test_mat_reads_fea_and_gnd(tmp_path, dense):
    fea = COUNTS if dense else sp.csc_matrix(COUNTS)  # MATLAB stores sparse matrices as csc
    path = tmp_path / "known.mat"
    scipy.io.savemat(path, {"fea": fea, "gnd": np.array([[1], [1], [2], [2], [3]])})
    corpus = load_path(path)
    _assert_same(corpus, _expected(), vocabulary=False)
    assert corpus.vocabulary is None and corpus.name == str(path)


def test_npz_round_trip_and_scipy_can_read_the_matrix(tmp_path):
    path = tmp_path / "known.npz"
    save_npz(path, _expected())
    _assert_same(load_path(path), _expected())
    assert np.array_equal(sp.load_npz(path).toarray(), COUNTS)
    with np.load(path) as z:
        assert set(z.files) == {"data", "indices", "indptr", "shape", "format", "labels",
                                "vocabulary", "label_names"}


@pytest.mark.parametrize("key, dtype", [("indices", complex), ("indptr", float)])
def test_npz_whose_indices_are_not_integers_is_refused_without_a_warning(tmp_path, key, dtype):
    """scipy would cast complex or float index arrays to integers with a warning (a fuzzed
    file found it): refused in one line instead."""
    path = tmp_path / "odd.npz"
    save_npz(path, _expected())
    with np.load(path) as z:
        arrays = {name: z[name] for name in z.files}
    arrays[key] = arrays[key].astype(dtype)
    np.savez(path, **arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DataError, match=f"'{key}' must hold integers, got {np.dtype(dtype)}"):
            load_path(path)


def test_npz_without_the_optional_arrays(tmp_path):
    path = tmp_path / "bare.npz"
    save_npz(path, Corpus("bare", sp.csr_matrix(COUNTS), np.array([9, 9, 4, 4, 4])))
    corpus = load_path(path)
    assert corpus.vocabulary is None and corpus.label_names is None
    assert list(corpus.y) == [9, 9, 4, 4, 4]


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("suffix, delimiter", [(".csv", ","), (".tsv", "\t"), (".CSV", ",")])
def test_csv_and_tsv_give_the_known_counts(tmp_path, header, suffix, delimiter):
    path = _write_csv(tmp_path / f"known{suffix}", _known_rows(), header, delimiter)
    _assert_same(load_path(path), _expected())


def test_csv_integer_labels_are_kept_and_quoted_texts_may_hold_commas_and_lines(tmp_path):
    path = tmp_path / "ints.csv"
    path.write_text('7,"apple, banana\ncherry"\n\n3,durian\n', encoding="utf-8-sig")  # with BOM
    corpus = load_path(path)
    assert list(corpus.y) == [7, 3] and corpus.label_names is None
    assert corpus.X.toarray().tolist() == [[1, 1, 1, 0], [0, 0, 0, 1]]


def test_folder_per_class_gives_the_known_counts(tmp_path):
    root = _folder(tmp_path / "corpus", _known_rows())
    (root / "README").write_text("top-level files are not documents")
    (root / "tree" / ".hidden").write_text("apple apple")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("cherry")
    _assert_same(load_path(root), _expected())


def test_folder_reads_nested_files_and_bad_bytes(tmp_path):
    root = tmp_path / "corpus"
    (root / "b" / "deep").mkdir(parents=True)
    (root / "a").mkdir()
    (root / "a" / "one").write_bytes(b"apple \xff\xfe banana")  # not UTF-8: kept, said
    (root / "b" / "deep" / "two.txt").write_text("cherry")
    with pytest.warns(DataNote) as notes:
        corpus = load_path(root)
    assert [str(n.message) for n in notes] == [
        f"{root}: 1 of its 2 files are not UTF-8 text (first: {root / 'a' / 'one'}, byte 6); "
        "each byte that is not UTF-8 was read as a break between terms"]
    assert list(corpus.vocabulary) == ["apple", "banana", "cherry"]
    assert list(corpus.y) == [1, 2] and corpus.label_names == ("a", "b")
    latin = tmp_path / "latin.csv"
    latin.write_bytes("label,text\nf,café crème\ng,pear\n".encode("latin-1"))
    with pytest.warns(DataNote, match=r"latin.csv: not UTF-8 text \(byte 16\)"):
        assert list(load_path(latin).vocabulary)[:2] == ["caf", "cr"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # UTF-8: no note
        (root / "a" / "one").write_text("apple café")
        assert "apple" in load_path(root).vocabulary


def test_one_class_is_a_corpus(tmp_path):
    corpus = load_path(_write_csv(tmp_path / "one.csv", [("only", "apple"), ("only", "pear")]))
    assert corpus.n_classes == 1 and corpus.n_documents == 2


def _data_error(path, *fragments):
    with pytest.raises(DataError) as error:
        load_path(path)
    message = str(error.value)
    assert "\n" not in message and message.startswith(str(path))
    for fragment in fragments:
        assert fragment in message


def test_a_file_of_the_current_folder_is_a_path_by_its_bare_name(tmp_path, monkeypatch):
    """notes.txt, there, is read as a file (refused for its format), not looked up as a data
    set or view; a registered name still wins over a file of that name."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("apple")
    (tmp_path / "tdt2").write_text("apple")
    assert is_path("notes.txt") and not is_path("tdt2")
    res = CliRunner().invoke(main, ["datasets", "info", "notes.txt"])
    assert res.exit_code == 1 and res.output.startswith(
        "docfact: error: notes.txt: unknown format '.txt'"), res.output


def test_bad_text_inputs_are_one_line_data_errors(tmp_path):
    _data_error(tmp_path / "missing.csv", "no such file or folder")
    os.mkfifo(tmp_path / "fifo.csv")  # read, it would wait for a writer for ever
    _data_error(tmp_path / "fifo.csv", "neither a file nor a folder (a pipe or a device)")
    (tmp_path / "notes.txt").write_text("apple")
    _data_error(tmp_path / "notes.txt", "unknown format '.txt'")
    _data_error(_write_csv(tmp_path / "empty.csv", []), "no documents")
    _data_error(_write_csv(tmp_path / "stop.csv", [("a", "the and of 12")]), "no terms")
    rows = tmp_path / "rows.csv"
    rows.write_text("label,text\nfruit,apple\nfruit,apple,pear\n")
    _data_error(rows, "line 3: expected 2 fields (label, text), got 3")
    (tmp_path / "header.csv").write_text("category,document\nfruit,apple\nfruit,pear\n")
    _data_error(tmp_path / "header.csv", "line 1: a header category,document")
    (tmp_path / "swapped.csv").write_text("text,label\napple,fruit\npear,fruit\n")
    _data_error(tmp_path / "swapped.csv", "docfact reads the label, then the text")
    (tmp_path / "order.csv").write_text("apple pie,fruit\npear tart,fruit\nkale soup,greens\n")
    _data_error(tmp_path / "order.csv", "each of its 3 documents has a label of its own")
    (tmp_path / "nolabel.tsv").write_text("fruit\tapple\n\tpear\n")
    _data_error(tmp_path / "nolabel.tsv", "line 2: empty label")
    _data_error(tmp_path, "no class sub-folders")  # only files here
    (tmp_path / "corpus" / "empty").mkdir(parents=True)
    _data_error(tmp_path / "corpus", "class folder 'empty' holds no files")


def test_bad_matrix_inputs_are_one_line_data_errors(tmp_path):
    scipy.io.savemat(tmp_path / "nognd.mat", {"fea": COUNTS})
    _data_error(tmp_path / "nognd.mat", "no 'gnd' variable")
    (tmp_path / "text.mat").write_text("not a MATLAB file " * 10)
    _data_error(tmp_path / "text.mat", "cannot read as a MATLAB file")
    header = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, HDF5 schema 1.00 ."  # as MATLAB writes
    (tmp_path / "v73.mat").write_bytes(header.ljust(124) + b"\x00\x02IM" + bytes(512))
    _data_error(tmp_path / "v73.mat", "a MATLAB v7.3 file, which docfact does not read; save "
                "it with save(..., '-v7')")
    scipy.io.savemat(tmp_path / "short.mat", {"fea": COUNTS, "gnd": np.array([1, 2])})
    _data_error(tmp_path / "short.mat", "2 labels for 5 documents")

    sp.save_npz(tmp_path / "nolabels.npz", sp.csr_matrix(COUNTS))
    _data_error(tmp_path / "nolabels.npz", "no 'labels' array")
    np.savez(tmp_path / "dense.npz", X=COUNTS, labels=np.ones(5, int))
    _data_error(tmp_path / "dense.npz", "not a sparse matrix")
    save_npz(tmp_path / "negative.npz", Corpus("n", sp.csr_matrix(-COUNTS), np.ones(5, int)))
    _data_error(tmp_path / "negative.npz", "finite, non-negative")
    save_npz(tmp_path / "floaty.npz", Corpus("f", sp.csr_matrix(COUNTS), np.ones(5) / 2))
    _data_error(tmp_path / "floaty.npz", "labels must be integers")
    save_npz(tmp_path / "vocab.npz", Corpus("v", sp.csr_matrix(COUNTS), np.ones(5, int),
                                            np.array(TERMS[:3])))
    _data_error(tmp_path / "vocab.npz", "3 vocabulary entries for 5 terms")


def test_what_counts_as_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tdt2").mkdir()
    (tmp_path / "mine").mkdir()
    assert not is_path("tdt2")  # registry names win over folders
    assert is_path("./tdt2") and is_path("mine") and is_path("x.NPZ") and is_path("a/b")
    assert not is_path("nothing") and not is_path(3)
    (tmp_path / "gnmf_tdt2").mkdir()
    assert resolve_view("gnmf_tdt2")["dataset"] == "tdt2"  # view names win over folders


def test_views_of_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write_csv(tmp_path / "known.csv", _known_rows())
    view = resolve_view({"dataset": "known.csv", "min_docs": 2})
    kept = apply_view(load(view["dataset"]), view)  # a relative path: from the current folder
    assert list(kept.y) == [1, 1, 2, 2] and kept.name == "known.csv"
    assert resolve_view("known.csv") == {"dataset": "known.csv"}
    with pytest.raises(ConfigError, match=r"^view: dataset 'gone/x.csv': no such file or folder "
                       r"under .* \(a relative path is read from the current folder, not the "
                       r"config's\)$"):
        resolve_view({"dataset": "gone/x.csv"})
    with pytest.raises(ConfigError, match="selects from 'tdt2', not 'known.csv'"):
        apply_view(load("known.csv"), "gnmf_tdt2")


def _labelled_csv(path, per_class=15):
    """3 classes of `per_class` documents, each drawn from its own five words."""
    words = {"space": "orbit rocket launch satellite astronaut",
             "cooking": "recipe oven flour butter sugar",
             "music": "guitar melody concert rhythm chorus"}
    rng = np.random.default_rng(0)
    rows = [(label, " ".join(rng.choice(w.split(), 8))) for label, w in words.items()
            for _ in range(per_class)]
    return _write_csv(path, rows)


def _table_value(output: str, row: str) -> str:
    return re.search(rf"^{row}\s+(\S+)\s*$", output, re.MULTILINE).group(1)


def test_info_of_a_csv(tmp_path):
    path = _labelled_csv(tmp_path / "news.csv")
    result = CliRunner().invoke(main, ["datasets", "info", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == str(path)
    assert _table_value(result.stdout, "documents") == "45"
    assert _table_value(result.stdout, "classes") == "3"
    assert _table_value(result.stdout, "terms") == "15"
    assert "labels: 1 = cooking, 2 = music, 3 = space" in result.stdout


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["nowhere/x.csv"], 1, "nowhere/x.csv: no such file or folder"),
        (["{csv}", "--view", "lccf_tdt2"], 2,
         "view 'lccf_tdt2' is a view of 'tdt2_all', not '{csv}'"),
    ],
)
def test_info_errors_are_one_line(tmp_path, args, code, message):
    csv = str(_labelled_csv(tmp_path / "news.csv"))
    result = CliRunner().invoke(main, ["datasets", "info", *[a.format(csv=csv) for a in args]])
    assert result.exit_code == code
    assert result.stderr == f"docfact: error: {message.format(csv=csv)}\n"


def _config(tmp_path, dataset) -> str:
    cfg = {
        "name": "mine",
        "data": {"view": {"dataset": dataset, "min_docs": 5}},
        "protocol": {"k": [2, 3], "runs": 2, "seed": 3},
        "labels": {"rule": "kmeans", "replicates": 3},
        "methods": {"KM": {"algorithm": "kmeans"},
                    "NMF": {"algorithm": "nmf", "n_restarts": 2, "min_iter": 5, "max_iter": 20}},
    }
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


def test_run_on_a_csv_given_by_a_relative_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _labelled_csv(tmp_path / "news.csv")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", _config(tmp_path, "news.csv"), "--out", str(out),
                                       "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 2 * 2 * 2 and (runs["status"] == "ok").all()
    assert set(runs["method"]) == {"KM", "NMF"}
    assert (runs["n_docs"] == 15 * runs["k"]).all()  # k classes of 15 documents each
    assert runs["ac"].between(0, 1).all()
    # its tables are read from its files, from any folder, without the data
    monkeypatch.chdir(tmp_path.parent)
    for command in (["show", str(out)], ["plot", "k", str(out)]):
        shown = CliRunner().invoke(main, command)
        assert shown.exit_code == 0 and "error" not in shown.output, shown.output
    assert "| 2 " in CliRunner().invoke(main, ["show", str(out)]).output


def test_config_naming_a_missing_path_is_one_line_exit_2(tmp_path):
    out = tmp_path / "out"
    config = _config(tmp_path, str(tmp_path / "gone.csv"))
    result = CliRunner().invoke(main, ["run", config, "--out", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr == (f"docfact: error: {config}, line 2 (data.view): view: dataset "
                             f"{str(tmp_path / 'gone.csv')!r}: no such file or folder\n")


def test_results_on_changed_data_contents_are_not_resumed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _labelled_csv(tmp_path / "news.csv")
    args = ["run", _config(tmp_path, "news.csv"), "--out", str(tmp_path / "out"), "--quiet"]
    assert CliRunner().invoke(main, args).exit_code == 0
    assert CliRunner().invoke(main, args).exit_code == 0  # same contents: resumes (nothing to do)
    _labelled_csv(tmp_path / "news.csv", per_class=16)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "other contents of the data file" in result.stderr


def test_results_on_other_documents_of_the_view_are_not_resumed(tmp_path, monkeypatch):
    """A view whose definition changed (a registry view edited) gives other documents under
    the same name: the counts in the manifest tell them apart."""
    monkeypatch.chdir(tmp_path)
    _labelled_csv(tmp_path / "news.csv")
    out = tmp_path / "out"
    args = ["run", _config(tmp_path, "news.csv"), "--out", str(out), "--quiet"]
    assert CliRunner().invoke(main, args).exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["documents"] += 1
    (out / "manifest.json").write_text(json.dumps(manifest))
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert f"documents in {manifest['classes']} classes, the view now gives" in result.stderr


def test_a_run_whose_documents_cannot_be_weighted_is_recorded_as_failed(tmp_path, monkeypatch):
    """'news' is in every document: on a subset where a document holds nothing else, its tf-idf
    row is zero. That run fails for every method, with the reason, and is recorded; being the
    only run, the command says that no method ran and exits non-zero."""
    monkeypatch.chdir(tmp_path)
    rows = [(label, f"news {w} {w}") for label, w in [("a", "alpha"), ("b", "beta")]
            for _ in range(6)] + [("a", "news news")]
    _write_csv(tmp_path / "odd.csv", rows)
    cfg = tmp_path / "odd.yaml"
    cfg.write_text(yaml.safe_dump({
        "data": {"view": {"dataset": "odd.csv"}}, "protocol": {"k": [2], "runs": 1},
        "methods": {"KM": {"algorithm": "kmeans"}}}))
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", "out", "--quiet"])
    assert res.exit_code == 1 and res.output.splitlines()[-1] == (
        "docfact: error: KM failed on every run (the note above says why)"), res.output
    runs = pd.read_csv(tmp_path / "out/runs.csv")
    assert list(runs["status"]) == ["failed"]
    assert "no weight left" in runs["error"][0]
    assert "[1 failed]" in (tmp_path / "out/tables.md").read_text()


def test_validate_reads_a_data_file_and_holds_k_against_its_classes(tmp_path, monkeypatch):
    """A registered view's classes are known; a file's are counted by validate, which refuses a
    k above them as run would, and passes the same config with k within them."""
    monkeypatch.chdir(tmp_path)
    _labelled_csv(tmp_path / "news.csv")  # 3 classes
    raw = yaml.safe_load(open(_config(tmp_path, "news.csv")))
    raw["protocol"]["k"] = [2, 5]
    (tmp_path / "big.yaml").write_text(yaml.safe_dump(raw))
    result = CliRunner().invoke(main, ["validate", "big.yaml"])
    assert result.exit_code == 2
    assert result.stderr.startswith("docfact: error: big.yaml: protocol.k: k=5 exceeds the 3 "
                                    "classes")
    raw["protocol"]["k"] = [2, 3]
    (tmp_path / "fits.yaml").write_text(yaml.safe_dump(raw))
    result = CliRunner().invoke(main, ["validate", "fits.yaml"])
    assert result.exit_code == 0 and result.output.startswith("fits.yaml: ok")


def _crash(path, name):
    """A reader that ends its process as scipy's C code did on fuzzed files (a bus error)."""
    import signal

    os.kill(os.getpid(), signal.SIGBUS)


def test_a_reader_that_crashes_is_one_line_and_the_process_goes_on(tmp_path):
    """scipy's .mat and sparse readers trust the sizes a file declares: a malformed file
    crashed them (a bus error, a corrupted heap). They run in a child process, whose end is
    one DataError here; a reader's own error comes back as itself."""
    from docfact.datasets.user import _in_child, _read_npz

    path = tmp_path / "x.npz"
    path.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(DataError, match=r"x.npz: not a file scipy can read \(its reader ended"):
        _in_child(_crash, path, str(path))
    with pytest.raises(DataError, match="not a sparse matrix as scipy.sparse.save_npz writes"):
        _in_child(_read_npz, path, str(path))
    save_npz(path, _expected())
    _assert_same(_in_child(_read_npz, path, str(path)), _expected())


def _load_in_a_pool_worker(path):
    return load_path(path).n_documents


def test_a_pools_daemonic_worker_reads_its_own_file(tmp_path):
    """A daemonic process may not start a child: there the file is read in the process."""
    import multiprocessing

    path = tmp_path / "known.npz"
    save_npz(path, _expected())
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_load_in_a_pool_worker, (path,)) == 5
