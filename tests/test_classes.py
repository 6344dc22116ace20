"""protocol.classes: largest (every run clusters the k classes with the most documents) against
the default uniform draw: the sampler, the config's hashes and an end-to-end run."""

import json

import numpy as np
import pandas as pd
import yaml

from docfact.datasets import apply_view, load, resolve_view
from docfact.experiment.plan import load as load_config
from docfact.experiment.plan import row_key
from docfact.experiment.sampling import largest_classes, method_seed, sample_classes
from tests.test_runner import run_cli, small_config


def test_every_seed_is_pinned_to_seed_k_run_and_method():
    """The committed records were computed from these streams: the classes of run r of k from
    (seed, k, r), a method's seed from (seed, k, r, crc32(name)). A change of derivation moves
    every table; the values are pinned, and each of k, run and method moves its seed."""
    assert sample_classes(np.arange(30), 3, 2008, 7).tolist() == [4, 5, 15]
    assert method_seed(2008, 3, 7, "NMF").generate_state(2).tolist() == [2681794275, 3117526659]
    states = {tuple(method_seed(2008, k, run, name).generate_state(2))
              for k in (2, 3) for run in (0, 1) for name in ("NMF", "GNMF")}
    assert len(states) == 8


def test_largest_classes_are_the_k_most_frequent_ties_to_the_smaller_label():
    y = np.repeat([9, 3, 5, 7, 1], [4, 10, 6, 6, 2])
    np.testing.assert_array_equal(largest_classes(y, 1), [3])
    np.testing.assert_array_equal(largest_classes(y, 2), [3, 5])  # 5 and 7 tie: 5
    np.testing.assert_array_equal(largest_classes(y, 4), [3, 5, 7, 9])
    np.testing.assert_array_equal(largest_classes(y, 5), [1, 3, 5, 7, 9])
    # a uniform draw is another set on some run, so the two protocols differ
    draws = {tuple(sample_classes(np.unique(y), 2, 7, r)) for r in range(10)}
    assert len(draws) > 1


def largest_config(tmp_path, name="largest", **protocol):
    path = small_config(tmp_path, name=name)
    raw = yaml.safe_load(path.read_text())
    raw["protocol"].update(protocol)
    raw["methods"] = {"K-means": raw["methods"]["K-means"]}
    del raw["published"]
    path.write_text(yaml.safe_dump(raw))
    return path


def test_classes_enter_the_hashes_only_when_not_drawn(tmp_path):
    base = load_config(largest_config(tmp_path, "base"))
    same = load_config(largest_config(tmp_path, "same", classes="random"))
    largest = load_config(largest_config(tmp_path, "largest", classes="largest"))
    assert base.classes == "random" and largest.classes == "largest"
    assert base.protocol_hash() == same.protocol_hash() != largest.protocol_hash()
    [m] = base.methods
    assert row_key(base, m) == row_key(same, m) != row_key(largest, m)


def test_bad_classes_setting_is_one_line(tmp_path):
    res = run_cli("run", largest_config(tmp_path, classes="biggest"), "--out", tmp_path / "o")
    assert res.exit_code == 2 and "protocol.classes" in res.output
    assert "must be one of random, largest" in res.output
    assert not (tmp_path / "o").exists()


def test_run_on_the_largest_classes_end_to_end(tmp_path):
    """Every run of k clusters the documents of TDT2's k largest classes, and says so."""
    out = tmp_path / "out"
    res = run_cli("run", largest_config(tmp_path, classes="largest"), "--out", out, "--jobs", 1,
                  "--quiet")
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["class_rule"] == "largest" and manifest["classes"] == 30
    assert "the k largest of the view in every run" in (out / "tables.md").read_text()
    runs = pd.read_csv(out / "runs.csv", dtype={"classes": str})
    before = (out / "runs.csv").read_bytes()
    view = resolve_view("gnmf_tdt2")
    y = apply_view(load(view["dataset"]), view).y
    for k, group in runs.groupby("k"):
        expected = " ".join(map(str, largest_classes(y, k)))
        assert (group["classes"] == expected).all() and group["run"].nunique() == 2
        assert (group["n_docs"] == np.isin(y, largest_classes(y, k)).sum()).all()
    again = run_cli("run", largest_config(tmp_path, classes="largest"), "--out", out, "--quiet")
    assert again.exit_code == 0, again.output  # the folder resumes: nothing left to compute
    assert (out / "runs.csv").read_bytes() == before
