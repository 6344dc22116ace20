"""Malformed user data never ends in a traceback: .npz, .mat and CSV files with mutated
internals (indices, shapes, dtypes, sizes, truncated or flipped bytes) either load, and then
run end to end, or give one line and exit 1."""

import io
import zipfile

import numpy as np
import scipy.io
import scipy.sparse as sp
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docfact.cli import main

COUNTS = sp.csr_matrix(np.array([[2, 1, 0, 0], [1, 3, 0, 0], [0, 0, 2, 1], [0, 0, 1, 3],
                                 [1, 0, 0, 2], [0, 2, 1, 0]], dtype=np.float64))
LABELS = np.array([1, 1, 2, 2, 3, 3])
FUZZ = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}

odd_numbers = st.sampled_from([0, 1, -1, 3, 4, 6, 7, 2**31, 2**40, -(2**31), 10**12])
arrays = st.one_of(
    st.lists(odd_numbers, max_size=8).map(np.array),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=8).map(np.array),
    st.lists(st.text(max_size=3), max_size=4).map(lambda v: np.array(v, dtype=str)),
    st.sampled_from([np.array(3), np.zeros((2, 2, 2)), np.array([1 + 2j, 3j]),
                     np.array([True, False]), np.array([], dtype=np.int32),
                     np.array(b"csr"), np.array(b"coo"), np.array(b"dia"), np.array(b"xyz"),
                     np.array([6, 10**12]), np.array([-6, 4]), np.array([6.0, 4.0]),
                     np.array([6, 4, 1]), np.arange(7, dtype=np.uint8)]))


def npz_arrays() -> dict:
    return {"data": COUNTS.data, "indices": COUNTS.indices, "indptr": COUNTS.indptr,
              "shape": np.array(COUNTS.shape), "format": np.array(b"csr"), "labels": LABELS,
              "vocabulary": np.array(["a", "b", "c", "d"]),
              "label_names": np.array(["x", "y", "z"])}


def _damage(data: bytes, draw) -> bytes:
    how = draw(st.sampled_from(["keep", "truncate", "flip", "empty"]))
    if how == "truncate":
        return data[: draw(st.integers(0, max(0, len(data) - 1)))]
    if how == "flip" and data:
        at = draw(st.integers(0, len(data) - 1))
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    return b"" if how == "empty" else data


@st.composite
def npz_files(draw) -> bytes:
    members = npz_arrays()
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(sorted(members) + ["extra"]))
        if draw(st.integers(0, 4)) == 0:
            members.pop(key, None)
        else:
            members[key] = draw(st.one_of(arrays_strategy_for(key), arrays))
    buf = io.BytesIO()
    (np.savez_compressed if draw(st.booleans()) else np.savez)(buf, **members)
    return _damage(buf.getvalue(), draw)


def arrays_strategy_for(key):
    """Plausible but wrong values of one member: close to what save_npz writes."""
    n = COUNTS.nnz
    return {
        "indices": st.lists(st.integers(-2, 6), min_size=n, max_size=n).map(np.array),
        "indptr": st.lists(st.integers(-1, n + 2), min_size=7, max_size=7).map(np.array),
        "data": st.lists(st.floats(-2, 5), min_size=n, max_size=n).map(np.array),
        "labels": st.lists(st.integers(-3, 5), min_size=5, max_size=7).map(np.array),
    }.get(key, st.nothing())


@st.composite
def mat_files(draw) -> bytes:
    fea = COUNTS.tocsc()
    kind = draw(st.sampled_from(["sparse", "bad indices", "bad indptr", "dense", "odd"]))
    if kind == "bad indices":  # set on the matrix: its constructor would check them
        fea.indices = np.array(draw(st.lists(st.integers(-3, 9), min_size=fea.nnz,
                                             max_size=fea.nnz)), dtype=np.int32)
    elif kind == "bad indptr":
        ptr = draw(st.lists(st.integers(0, fea.nnz + 3), min_size=5, max_size=5))
        fea.indptr = np.sort(np.array(ptr, dtype=np.int32))
    elif kind == "dense":
        with np.errstate(invalid="ignore"):  # 0 * inf: the NaN is the point
            fea = fea.toarray() * draw(st.sampled_from([1, -1, np.nan, np.inf]))
    elif kind == "odd":
        fea = draw(arrays)
    gnd = draw(st.one_of(st.just(LABELS.reshape(-1, 1)), arrays))
    mat = {"fea": fea, "gnd": gnd}
    if draw(st.integers(0, 5)) == 0:
        mat.pop(draw(st.sampled_from(["fea", "gnd"])))
    buf = io.BytesIO()
    try:
        scipy.io.savemat(buf, mat, do_compression=draw(st.booleans()))
    except (ValueError, TypeError):  # a value savemat cannot write
        buf = io.BytesIO(b"MATLAB 5.0 MAT-file")
    return _damage(buf.getvalue(), draw)


WORDS = ["apple", "pear", "plum", "orbit", "comet", "star", "the", "42", "x"]
pieces = st.sampled_from(['"', ",", "\n", "\r\n", "\t", " ", '""', "\x00", "\ufeff", "é",
                          "label,text\n", *WORDS, "1,", "2,", "a,", "\n1,\"", "\"\n"])


@st.composite
def csv_files(draw) -> bytes:
    if draw(st.integers(0, 5)) == 0:
        return draw(st.binary(max_size=200))
    rows = [f"{draw(st.sampled_from(['1', '2', 'a', 'b']))},"
            f"{' '.join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4)))}"
            for _ in range(draw(st.integers(0, 8)))]
    text = "\n".join(["label,text", *rows])
    for _ in range(draw(st.integers(0, 4))):  # noise at random places
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(pieces) + text[at:]
    return text.encode("utf-8")


def one_line_or_ok(res, codes=(0, 1)) -> None:
    assert "Traceback" not in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code in codes, (res.exit_code, res.output)
    if res.exit_code:  # one error, last: after notes (bytes that are not UTF-8, failed runs)
        lines = res.output.splitlines()
        errors = [line for line in lines if line.startswith("docfact: error: ")]
        assert len(errors) == 1 and lines[-1] == errors[0], res.output


def check_file(folder, suffix: str, data: bytes) -> None:
    """`datasets info` gives the corpus or one line; a corpus that loads runs a k = 2
    protocol end to end (a table, or one line)."""
    path = folder / f"data{suffix}"
    path.write_bytes(data)
    res = CliRunner().invoke(main, ["datasets", "info", str(path)])
    one_line_or_ok(res)
    if res.exit_code == 0:
        cfg = folder / "c.yaml"
        cfg.write_text(yaml.safe_dump({
            "name": "fuzz", "data": {"view": str(path)},
            "protocol": {"k": [2], "runs": 1, "seed": 1},
            "labels": {"rule": "kmeans", "replicates": 2},
            "methods": {"KM": {"algorithm": "kmeans"}, "NMF": {"algorithm": "nmf",
                                                             "max_iter": 10}}}))
        res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(folder / "out"),
                                        "--jobs", "1", "--quiet"])
        one_line_or_ok(res, (0, 1, 2))  # 2: fewer than k = 2 classes
        if res.exit_code == 0 or "failed on every run" in res.output:  # recorded all the same
            _complete(folder / "out")


def _complete(out) -> None:
    text = (out / "runs.csv").read_text()
    assert text.count("\n") == 3, text  # the header and one row per method


@settings(max_examples=150, **FUZZ)
@given(data=npz_files())
def test_malformed_npz_is_one_line_or_runs(tmp_path_factory, data):
    check_file(tmp_path_factory.mktemp("npz"), ".npz", data)


@settings(max_examples=100, **FUZZ)
@given(data=mat_files())
def test_malformed_mat_is_one_line_or_runs(tmp_path_factory, data):
    check_file(tmp_path_factory.mktemp("mat"), ".mat", data)


@settings(max_examples=150, **FUZZ)
@given(data=csv_files(), suffix=st.sampled_from([".csv", ".tsv"]))
def test_malformed_csv_is_one_line_or_runs(tmp_path_factory, data, suffix):
    check_file(tmp_path_factory.mktemp("csv"), suffix, data)


def test_the_npz_strategy_starts_from_a_readable_file(tmp_path):
    """The fuzzer mutates a file that loads as it is (so what it finds is the mutation's)."""
    buf = io.BytesIO()
    np.savez(buf, **npz_arrays())
    assert zipfile.is_zipfile(io.BytesIO(buf.getvalue()))
    check_file(tmp_path, ".npz", buf.getvalue())
    assert (tmp_path / "out" / "runs.csv").exists()
