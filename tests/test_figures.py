"""Sweeps (LCCF Figs. 1-2, RCF Figs. 1-2) and convergence curves (LCCF Fig. 3) from the command
line."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from docfact.cli import main
from tests.test_runner import run_cli, semi_config, small_config


def test_sweep_at_the_configs_own_value_reproduces_its_rows(tmp_path):
    cfg = small_config(tmp_path, runs=1, k=(2,))
    table = tmp_path / "table"
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(table), "--quiet"])
    assert res.exit_code == 0
    out = tmp_path / "sweep"
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "gnmf.lambda=0,10",
                                    "--baselines", "NMF", "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    sweep = pd.read_csv(out / "sweep-gnmf-lambda.csv")
    assert list(sweep["method"]) == ["GNMF", "GNMF", "NMF"]
    assert list(sweep["value"][:2]) == [0, 10] and np.isnan(sweep["value"][2])
    ac = pd.read_csv(table / "ac.csv").set_index("k")
    assert sweep["ac"][2] == pytest.approx(ac.loc["avg", "NMF mean"], abs=1e-6)
    swept = pd.read_csv(out / "lambda=10/runs.csv")
    base = pd.read_csv(table / "runs.csv")
    base = base[base.method == "GNMF"].reset_index(drop=True)
    pd.testing.assert_frame_equal(swept[base.columns], base, check_dtype=False)
    assert (out / "sweep-gnmf-lambda.png").exists()


def test_sweep_over_a_setting_that_is_not_a_number(tmp_path):
    """weight=binary,cosine: one folder per setting, a categorical axis; binary reproduces the
    config's own GNMF rows (its weight)."""
    cfg = small_config(tmp_path, runs=1, k=(2,))
    table, out = tmp_path / "table", tmp_path / "sweep"
    assert CliRunner().invoke(main, ["run", str(cfg), "--out", str(table), "--quiet"]
                              ).exit_code == 0
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "GNMF.weight=binary,cosine",
                                    "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    sweep = pd.read_csv(out / "sweep-GNMF-weight.csv")
    assert list(sweep["value"]) == ["binary", "cosine"]
    base = pd.read_csv(table / "runs.csv")
    binary = pd.read_csv(out / "weight=binary/runs.csv")
    assert binary["nmi"].tolist() == base[base.method == "GNMF"]["nmi"].tolist()
    assert (out / "sweep-GNMF-weight.png").exists()


def test_sweep_over_a_boolean_setting(tmp_path):
    """GNMF.ncw=true,false: booleans as a config writes them, one folder each, the NC
    weighting changing GNMF's rows."""
    cfg = small_config(tmp_path, runs=1, k=(2,))
    out = tmp_path / "sweep"
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "GNMF.ncw=true,False",
                                    "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    assert list(pd.read_csv(out / "sweep-GNMF-ncw.csv")["value"]) == [True, False]
    assert "ncw: true" in (out / "ncw=True/config.yaml").read_text()
    on, off = (pd.read_csv(out / f"ncw={v}/runs.csv") for v in (True, False))
    assert (on.status == "ok").all() and on.objective.tolist() != off.objective.tolist()


def test_sweep_over_values_a_config_name_cannot_hold(tmp_path):
    """K-means.init=random,k-means++: '+' may not stand in a config's name, so the swept
    config's name writes it '_'; its folder and the sweep's CSV keep the value."""
    cfg = small_config(tmp_path, runs=1, k=(2,))
    out = tmp_path / "sweep"
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "K-means.init=random,k-means++",
                                    "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    assert list(pd.read_csv(out / "sweep-K-means-init.csv")["value"]) == ["random", "k-means++"]
    runs = pd.read_csv(out / "init=k-means++/runs.csv")
    assert list(runs["status"]) == ["ok"]
    assert "name: small-init-k-means__" in (out / "init=k-means++/config.yaml").read_text()


def test_labelled_sweep_at_the_configs_own_fraction_reproduces_its_rows(tmp_path):
    """RCF Figs. 1-2: protocol.labelled varies the labels of the semi-supervised methods only;
    at the config's own fraction their rows are the table's, and more labels change them."""
    cfg = semi_config(tmp_path)
    table, out = tmp_path / "table", tmp_path / "sweep"
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(table), "--quiet"])
    assert res.exit_code == 0, res.output
    assert json.loads((table / "manifest.json").read_text())["labelled"] == 0.1
    assert "labelled: 10% of each class's documents" in (table / "tables.md").read_text()
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "protocol.labelled=0.1,0.5",
                                    "--baselines", "CF", "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    sweep = pd.read_csv(out / "sweep-protocol-labelled.csv")
    assert list(sweep["method"]) == ["CCF", "RCF", "CCF", "RCF", "CF"]
    base = pd.read_csv(table / "runs.csv")
    semi = base[base.method.isin(["CCF", "RCF"])].reset_index(drop=True)
    swept = pd.read_csv(out / "labelled=0.1/runs.csv")
    pd.testing.assert_frame_equal(swept[semi.columns], semi, check_dtype=False)
    more = pd.read_csv(out / "labelled=0.5/runs.csv")
    assert not np.allclose(more["objective"], semi["objective"])
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "protocol.labelled=1.5",
                                    "--out", str(out)])
    assert res.exit_code == 2 and "fractions in (0, 1)" in res.output
    # RCF Fig. 3: --by sets a second parameter within each value, one line per value; the
    # method keeps its name (and so its random stream): links=both is the table's RCF
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "protocol.labelled=0.1",
                                    "--by", "RCF.links=both,must", "--out", str(out / "by"),
                                    "--jobs", "1"])
    assert res.exit_code == 0, res.output
    by = pd.read_csv(out / "by/sweep-protocol-labelled-by-links.csv")
    assert list(by["method"]) == ["RCF (links=both)", "RCF (links=must)"]
    rcf = base[base.method == "RCF"].reset_index(drop=True)
    both = pd.read_csv(out / "by/labelled=0.1/links=both/runs.csv")
    pd.testing.assert_frame_equal(both[rcf.columns], rcf, check_dtype=False)
    must = pd.read_csv(out / "by/labelled=0.1/links=must/runs.csv")
    assert not np.allclose(must["objective"], rcf["objective"])
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "RCF.links=must",
                                    "--by", "RCF.links=both", "--out", str(out / "by")])
    assert res.exit_code == 2 and "--by: 'RCF.links=both' is the parameter" in res.output


def test_sweep_folders_without_semi_supervised_methods_read_back(tmp_path):
    """A labelled table's sweep over an unsupervised method, and its baselines, keep the
    table's protocol.labelled (and so its protocol hash) though none of their methods uses
    labels: their config.yaml validates and `docfact run` on it resumes, computing nothing."""
    cfg, out = semi_config(tmp_path), tmp_path / "sweep"
    res = run_cli("sweep", cfg, "--param", "CF.max_iter=10", "--baselines", "CF", "--out", out,
                  "--jobs", 1)
    assert res.exit_code == 0, res.output
    # CF swept and CF unchanged beside it: two series, named apart
    assert list(pd.read_csv(out / "sweep-CF-max_iter.csv")["method"]) == ["CF", "CF (unchanged)"]
    for folder in (out / "max_iter=10", out / "baselines"):
        assert json.loads((folder / "manifest.json").read_text())["labelled"] == 0.1
        res = run_cli("validate", folder / "config.yaml")
        assert res.exit_code == 0, res.output
        runs = (folder / "runs.csv").read_bytes()
        res = run_cli("run", folder / "config.yaml", "--out", folder, "--quiet", "--jobs", 1)
        assert res.exit_code == 0, res.output
        assert "1 of 1 runs already recorded" in res.output
        assert (folder / "runs.csv").read_bytes() == runs


def test_bad_sweep_parameter_is_one_line(tmp_path):
    cfg = small_config(tmp_path)
    for param, message in [("gnmf.lambda=-1", "'lambda' parameter of GNMF must be"),
                           ("nope.p=3", "--param: no method or algorithm 'nope' in small "
                                        "(GNMF, K-means, LSI+K-means, NMF)"),
                           ("gnmf.p=a", "'p' parameter of GNMF must be an int in the range"),
                           ("gnmf.weight=gauss", "'weight' parameter of GNMF must be a str among"),
                           ("lambda", "METHOD.PARAM"),
                           ("gnmf.lambda=1,10,1.0", "gnmf.lambda lists 1 twice"),
                           ("gnmf.max_iter=null,None", "gnmf.max_iter lists None twice"),
                           ("protocol.seed=1,2", "protocol.seed: the one protocol setting"),
                           ("protocol.labelled=0.1", "has no semi-supervised method"),
                           ("gnmf.ncw=true,yes", "--param gnmf.ncw=yes: The 'ncw' parameter")]:
        res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", param,
                                        "--out", str(tmp_path / "s")])
        assert res.exit_code == 2 and message in res.output, res.output
    # the second parameter's errors name --by, and the methods --param sweeps
    for by, message in [("Foo.p=1", "--by: no method or algorithm 'Foo' among the methods "
                                    "--param sweeps (GNMF)"),
                        ("gnmf.p=x", "--by gnmf.p=x: The 'p' parameter of GNMF"),
                        ("gnmf.p", "--by: write METHOD.PARAM=V1,V2,...")]:
        res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "gnmf.lambda=1",
                                        "--by", by, "--out", str(tmp_path / "s")])
        assert res.exit_code == 2 and message in res.output, res.output
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "gnmf.p=3",
                                    "--baselines", "NMF,XX", "--out", str(tmp_path / "s")])
    assert res.exit_code == 2 and "--baselines: no method 'XX'" in res.output
    # a bad value or baseline after a good one: refused before the good one computes
    res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", "gnmf.lambda=1,-1",
                                    "--out", str(tmp_path / "s")])
    assert res.exit_code == 2 and "'lambda' parameter of GNMF must be" in res.output
    assert not (tmp_path / "s").exists()


def test_convergence_curves(tmp_path):
    cfg = small_config(tmp_path)
    res = CliRunner().invoke(main, ["plot", "convergence", str(cfg), "--k", "3",
                                    "--iterations", "40", "--out", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    curves = pd.read_csv(tmp_path / "c/convergence.csv")
    assert set(curves["method"]) == {"NMF", "GNMF"}
    for _, c in curves.groupby("method"):
        h = c["objective"].to_numpy()
        assert len(h) == 41 and np.all(np.diff(h) <= 1e-9 * h[:-1])
    assert (tmp_path / "c/convergence.svg").exists()


def test_lcf_anchors_sit_in_the_gaussians_and_nmf_bases_do_not(tmp_path):
    """LCF Fig. 5: with the locality term each anchor lands near its own Gaussian's centre."""
    out = tmp_path / "anchors"
    res = CliRunner().invoke(main, ["plot", "anchors", "--out", str(out)])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out / "anchors.csv")
    assert (table.kind == "point").sum() == 150
    lcf, nmf = table[table.kind == "LCF"], table[table.kind == "NMF"]
    assert sorted(lcf["label"]) == [0, 1, 2] and (lcf["distance"] < 0.5).all()
    assert (nmf["distance"] > 2).all()
    assert (out / "anchors.png").exists() and (out / "anchors.svg").exists()
    res = CliRunner().invoke(main, ["plot", "anchors", "--lam", "-1", "--out", str(out)])
    assert res.exit_code == 2 and "--lambda must be a finite number >= 0" in res.output
    for option, value in (("--lambda", "inf"), ("--seed", "-1"), ("--seed", str(2**32))):
        res = CliRunner().invoke(main, ["plot", "anchors", option, value, "--out", str(out)])
        assert res.exit_code == 2 and res.output.count("\n") == 1 and option in res.output, \
            res.output


def test_a_sweep_takes_the_rows_it_shares_with_the_table_and_earlier_sweeps(tmp_path,
                                                                            monkeypatch):
    """With the table under results/, a sweep's value at the table's setting takes the table's
    rows (equal to computing them: the test above) in no time, other values are computed, and a
    later sweep takes the rows of an earlier one (p = 5: the default, written or not)."""
    monkeypatch.chdir(tmp_path)
    cfg = small_config(tmp_path, runs=1, k=(2,))
    assert CliRunner().invoke(main, ["run", str(cfg), "--quiet", "--jobs", "1"]).exit_code == 0
    table = pd.read_csv(tmp_path / "results/small/runs.csv").set_index("method")
    for param in ("gnmf.lambda=1,10", "gnmf.p=5,3"):
        res = CliRunner().invoke(main, ["sweep", str(cfg), "--param", param,
                                        "--baselines", "NMF", "--jobs", "1"])
        assert res.exit_code == 0, res.output
    sweep = tmp_path / "results/small/sweep"
    seconds = {f: pd.read_csv(sweep / f / "timings.csv").set_index("method")["seconds"]
               for f in ("lambda=1", "lambda=10", "p=5", "p=3", "baselines")}
    assert seconds["lambda=10"]["GNMF"] == seconds["p=5"]["GNMF"] == 0
    assert seconds["baselines"]["NMF"] == 0
    assert seconds["lambda=1"]["GNMF"] > 0 and seconds["p=3"]["GNMF"] > 0
    for folder, method in (("lambda=10", "GNMF"), ("p=5", "GNMF"), ("baselines", "NMF")):
        rows = pd.read_csv(sweep / folder / "runs.csv").set_index("method")
        assert rows.loc[method, "ac"] == table.loc[method, "ac"]
