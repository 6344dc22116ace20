"""protocol.constraints: pairs (the RCF paper's "t constraint information" read as t of all
document pairs): the sampler, the constraints handed to every semi-supervised method, the
config's hashes and an end-to-end run."""

import json
import tracemalloc

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import yaml

from docfact.algorithms import CCF, CNPCF, GDCF, RCF, SemiLCCF, knn_graph
from docfact.algorithms.graphs import (
    check_constraints,
    degrees,
    must_link_labels,
    pair_constraints,
    propagate_constraints,
)
from docfact.experiment.plan import load as load_config
from docfact.experiment.plan import row_key
from docfact.experiment.sampling import sample_pairs
from tests.synthetic import partially_labelled_topics
from tests.test_runner import run_cli, semi_config


def test_sample_pairs_takes_the_fraction_of_all_pairs_labelled_by_class():
    y = np.repeat([4, 7, 9], [20, 25, 15])
    Z = sample_pairs(y, 0.1, 2017, 3, 0, block=100)  # 1770 pairs in 18 blocks
    assert Z.nnz == 2 * round(0.1 * 60 * 59 / 2)
    assert (Z != Z.T).nnz == 0 and not Z.diagonal().any()
    i, j = Z.nonzero()
    np.testing.assert_array_equal(Z[i, j].A1, np.where(y[i] == y[j], 1.0, -1.0))
    again = sample_pairs(y, 0.1, 2017, 3, 0, block=100)
    assert (again != Z).nnz == 0
    assert (sample_pairs(y, 0.1, 2017, 3, 1, block=100) != Z).nnz > 0
    assert sample_pairs(y, 1e-6, 2017, 3, 0).nnz == 2  # at least one pair


def test_sample_pairs_draws_every_pair_alike():
    """Each of the 15 pairs of 6 samples is drawn with probability t, across blocks of 4."""
    y = np.array([0, 0, 1, 1, 2, 2])
    counts = np.zeros((6, 6))
    draws = 3000
    for r in range(draws):
        counts += sample_pairs(y, 0.4, 0, 3, r, block=4).toarray() != 0
    frequency = counts[np.triu_indices(6, 1)] / draws
    assert np.abs(frequency - 0.4).max() < 0.04, frequency  # 4.5 standard deviations


def test_sample_pairs_does_not_form_every_pair():
    """n = 10000: 5e7 pairs (400 MB as int64 indices); a few are drawn in a few MB."""
    y = np.arange(10000) % 7
    tracemalloc.start()
    try:
        Z = sample_pairs(y, 1e-5, 3, 7, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert Z.nnz == 2 * 500 and Z.shape == (10000, 10000)
    assert peak < 50e6, peak
    rows = Z.nonzero()[0]
    assert rows.min() < 2000 and rows.max() > 8000


def labelled_constraints(y):
    """Z of partial labels y: +1 for the pairs labelled alike, -1 for the others."""
    M, C = pair_constraints(y)
    return sp.csr_matrix(M - C)


@pytest.fixture(scope="module")
def data():
    return partially_labelled_topics()


def test_must_link_components_are_the_labels():
    Z = sp.lil_matrix((7, 7))
    for i, j, z in ((0, 4, 1), (4, 6, 1), (1, 2, 1), (0, 1, -1), (3, 5, -1)):
        Z[i, j] = Z[j, i] = z
    np.testing.assert_array_equal(must_link_labels(sp.csr_matrix(Z)), [0, 1, 1, -1, 0, -1, 0])
    with pytest.raises(ValueError, match="no must-link"):
        must_link_labels(sp.csr_matrix(-abs(Z.tocsr())))


def test_constraints_are_checked():
    Z = sp.csr_matrix(np.array([[0, 1], [1, 0.0]]))
    assert check_constraints(Z, 2).nnz == 2
    for bad, message in ((np.ones((2, 2)), "sparse"), (sp.csr_matrix((3, 3)), "sparse"),
                         (sp.csr_matrix((2, 2)), "no pair"),
                         (sp.csr_matrix(np.array([[0, 1], [0, 0.0]])), "symmetric"),
                         (sp.csr_matrix(np.eye(2)), "symmetric"),
                         (sp.csr_matrix(np.array([[0, 2], [2, 0.0]])), "symmetric")):
        with pytest.raises(ValueError, match=message):
            check_constraints(bad, 2)
    with pytest.raises(ValueError, match="not both"):
        RCF(2).fit_transform(np.eye(2), np.array([0, 1]), constraints=Z)


@pytest.mark.parametrize("make", [
    lambda: CCF(3, random_state=5), lambda: SemiLCCF(3, random_state=5),
    lambda: CNPCF(3, lam_h=10, random_state=5), lambda: GDCF(3, random_state=5)],
    ids=["CCF", "SemiLCCF", "CNPCF", "GDCF"])
def test_the_pairs_of_partial_labels_give_the_labels_fit(data, make):
    """The pairs among the labelled samples, handed as constraints, give the fit of the labels
    themselves (every labelled class has two samples or more, numbered as its components)."""
    X, _, yp = data
    np.testing.assert_array_equal(make().fit_transform(X, constraints=labelled_constraints(yp)),
                                  make().fit_transform(X, yp))


@pytest.mark.parametrize("links", ["both", "must", "cannot"])
def test_propagation_of_constraints_against_the_inverse(data, links):
    """F* = (1 - alpha)^2 P Z P, P = (I - alpha S)^-1 taken dense; the labels' F* is the same
    with Z_ii = 1 on the labelled samples (Eq. 9 of a labelled sample with itself, for both and
    must links), which the constraints leave out."""
    X, _, yp = data
    W = knn_graph(X, 5, "cosine")
    alpha = 0.5
    d = degrees(W)
    S = (W.toarray() / np.sqrt(d)[:, None]) / np.sqrt(d)[None, :]
    P = np.linalg.inv(np.eye(len(d)) - alpha * S)
    Z = labelled_constraints(yp).toarray()
    Z = {"both": Z, "must": np.maximum(Z, 0), "cannot": np.minimum(Z, 0)}[links]
    F = propagate_constraints(W, labelled_constraints(yp), alpha, links)
    np.testing.assert_allclose(F, (1 - alpha) ** 2 * P @ Z @ P, atol=1e-12)
    np.testing.assert_array_equal(F, F.T)
    diagonal = np.diag((yp >= 0) * float(links != "cannot"))
    np.testing.assert_allclose(F + (1 - alpha) ** 2 * P @ diagonal @ P,
                               propagate_constraints(W, yp, alpha, links), atol=1e-12)


@pytest.mark.parametrize("make", [CCF, SemiLCCF, CNPCF, GDCF, RCF])
def test_every_semi_supervised_method_reads_the_pairs(data, make):
    """Two draws of 5% of the pairs: the same start, other fits."""
    X, y, _ = data
    V0, V1 = (make(3, random_state=5).fit_transform(X, constraints=sample_pairs(y, 0.05, 0, 3, r))
              for r in (0, 1))
    assert np.isfinite(V0).all() and not np.allclose(V0, V1)


def protocol_config(tmp_path, name, **protocol):
    """semi_config (tests.test_runner) with its protocol updated."""
    path = semi_config(tmp_path, name=name)
    raw = yaml.safe_load(path.read_text())
    raw["protocol"].update(protocol)
    path.write_text(yaml.safe_dump(raw))
    return path


def test_constraints_enter_the_hashes_only_when_set(tmp_path):
    base = load_config(semi_config(tmp_path))
    same = load_config(protocol_config(tmp_path, "same", constraints="labelled"))
    pairs = load_config(protocol_config(tmp_path, "pairs", constraints="pairs"))
    assert base.constraints == "labelled" and pairs.constraints == "pairs"
    assert base.protocol_hash() == same.protocol_hash() != pairs.protocol_hash()
    methods = {m.name: m for m in base.methods}
    assert row_key(base, methods["CF"]) == row_key(pairs, methods["CF"])
    assert row_key(base, methods["RCF"]) == row_key(same, methods["RCF"])
    assert row_key(base, methods["RCF"]) != row_key(pairs, methods["RCF"])


def test_bad_constraints_setting_is_one_line(tmp_path):
    cfg = protocol_config(tmp_path, "bad", constraints="triples")
    res = run_cli("run", cfg, "--out", tmp_path / "out")
    assert res.exit_code == 2 and "protocol.constraints" in res.output
    assert "must be one of labelled, pairs" in res.output
    raw = yaml.safe_load(cfg.read_text())
    raw["protocol"] = {"k": [2], "runs": 1, "constraints": "pairs"}
    raw["methods"] = {"CF": raw["methods"]["CF"]}
    del raw["published"]
    cfg.write_text(yaml.safe_dump(raw))
    res = run_cli("run", cfg, "--out", tmp_path / "out")
    assert res.exit_code == 2 and "no method of this config uses constraints" in res.output


def test_run_with_pairs_end_to_end(tmp_path):
    """docfact run on 20 Newsgroups with t = 2% of the pairs: the unsupervised rows are those
    of the labelled protocol, the semi-supervised ones are fitted on the pairs."""
    labelled, pairs = tmp_path / "labelled", tmp_path / "pairs"
    res = run_cli("run", protocol_config(tmp_path, "labelled", labelled=0.02), "--out",
                  labelled, "--jobs", 1, "--quiet")
    assert res.exit_code == 0, res.output
    res = run_cli("run", protocol_config(tmp_path, "pairs", labelled=0.02, constraints="pairs"),
                  "--out", pairs, "--jobs", 1, "--quiet")
    assert res.exit_code == 0, res.output
    assert json.loads((pairs / "manifest.json").read_text())["constraints"] == "pairs"
    assert "2% of all document pairs" in (pairs / "tables.md").read_text()
    a, b = (pd.read_csv(f / "runs.csv").set_index("method") for f in (labelled, pairs))
    assert (b["status"] == "ok").all()
    assert a.loc["CF", "objective"] == b.loc["CF", "objective"]
    for name in ("CCF", "RCF"):
        assert a.loc[name, "objective"] != b.loc[name, "objective"]
    # 2% of the ~20000 pairs of two classes of 100: must-links join each class into one
    # component, so CCF sees (nearly) every document's class
    assert b.loc["CCF", "ac"] > 0.95
