"""Readings of unstated settings: declared as data, applied to configs, scored, one chosen."""

import copy
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from docfact.algorithms.engine import Numerics
from docfact.cli import main
from docfact.config import load_config, parse_config
from docfact.errors import ConfigError
from docfact.experiment import readings as rd
from docfact.experiment.plan import load as load_resolved
from docfact.experiment.plan import resolve, row_key
from docfact.report.readings import SE_FLOOR, choose, score_rows, summary
from tests.test_runner import small_config

ROOT = Path(__file__).resolve().parents[1]


def _config(published):
    raw = {"data": {"view": "gnmf_tdt2"}, "protocol": {"k": "2..5", "runs": 4},
           "methods": {"A": {"algorithm": "kmeans"}, "B": {"algorithm": "kmeans"}},
           "report": {"unit": "fraction"}, "published": {"source": "s", **published}}
    return parse_config(raw, "test")


def _runs(values):
    """{(method, k): [ac per run]} -> runs frame (nmi = ac)."""
    rows = [{"k": k, "run": r, "method": m, "status": "ok", "ac": v, "nmi": v}
            for (m, k), vs in values.items() for r, v in enumerate(vs)]
    return pd.DataFrame(rows)


def test_score_is_the_distance_in_standard_errors_at_the_phase_k():
    """ours 0.7 against the published 0.9 (the mean of 0.95 and 0.85 at the odd k), SE 0.041:
    z = 4.9, above the floor, and the row is outside its interval."""
    config = _config({"ac": {"A": {3: 0.95, 5: 0.85, 2: 0.1, 4: 0.1}}})
    runs = _runs({("A", 3): [0.7, 0.9, 0.8, 1.0], ("A", 5): [0.5, 0.7, 0.6, 0.2],
                   ("A", 2): [0.0] * 4, ("A", 4): [0.0] * 4})
    rows = score_rows(config, runs, (3, 5), max_runs=3)  # runs 0-2 at the odd k only
    assert len(rows) == 1  # B and NMI have no published values
    row = rows.iloc[0]
    a3, a5 = np.array([0.7, 0.9, 0.8]), np.array([0.5, 0.7, 0.6])
    ours = (a3.mean() + a5.mean()) / 2
    se = np.sqrt(a3.var(ddof=1) / 3 + a5.var(ddof=1) / 3) / 2
    assert row["ours"] == pytest.approx(ours)
    assert row["published"] == pytest.approx(0.9)
    assert row["se"] == pytest.approx(se) and se > SE_FLOOR
    assert row["z"] == pytest.approx(abs(ours - 0.9) / se) and row["z"] > 4
    assert row["n"] == 6
    assert row["verdict"] == "outside"


def test_a_row_without_spread_is_scored_against_the_floor():
    config = _config({"ac": {"A": {3: 0.9}}, "nmi": {"A": {3: 0.5}}})
    rows = score_rows(config, _runs({("A", 3): [0.95] * 5}), (3,))
    ac, nmi = rows.set_index("metric").loc["AC"], rows.set_index("metric").loc["NMI"]
    assert ac["se"] == 0 and ac["z"] == pytest.approx(0.05 / SE_FLOOR)
    assert ac["verdict"] == "outside"
    assert nmi["z"] == pytest.approx(0.45 / SE_FLOOR)
    s = summary(rows)
    assert s == {"score": pytest.approx((10 + 90) / 2), "agree": 0, "rows": 2}


def test_a_method_missing_a_k_is_not_scored():
    config = _config({"ac": {"A": {3: 0.9, 5: 0.9}}})
    assert score_rows(config, _runs({("A", 3): [0.9, 0.8]}), (3, 5)).empty


def test_choose_takes_the_lowest_score_and_the_first_declared_on_ties():
    assert choose({"a": 3.0, "b": 1.5, "c": np.nan}) == "b"
    assert choose({"a": 2.0, "b": 2.0}) == "a"
    assert choose({"a": np.nan, "b": 9.0}) == "b"
    with pytest.raises(ValueError):
        choose({"a": np.nan})


def _readings_file(tmp_path, **changes):
    spec = {"tables": ["gnmf_tdt2"],
            "settings": {"weighting": {"subset": {"set": {"data": {"weight_on": "subset"}},
                                                  "grounds": "code"},
                                       "corpus": {"set": {"data": {"weight_on": "corpus"}},
                                                  "grounds": "paper"}},
                         "starts": {"one": {"grounds": "code"},
                                    "best10": {"set": {"algorithms": {
                                        "kmeans": {"n_replicates": 10}}},
                                        "grounds": "convention"}},
                         "read-out": {"k-means": {"grounds": "code"},
                                      "argmax": {"set": {"labels": "argmax"},
                                                 "grounds": "paper"}}},
            "readings": {"reference": {"weighting": "subset", "starts": "one",
                                       "read-out": "k-means"},
                         "corpus-best10": {"weighting": "corpus", "starts": "best10",
                                           "read-out": "argmax"}}}
    spec.update(changes)
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def test_a_reading_sets_its_values_on_every_method_it_names(tmp_path):
    spec = rd.load_readings(_readings_file(tmp_path))
    config = load_resolved(ROOT / "configs" / "lccf_tdt2_reference.yaml")
    same = rd.reading_config(config, spec, "reference")
    assert same.protocol_hash() == config.protocol_hash()
    other = rd.reading_config(config, spec, "corpus-best10")
    assert other.weight_on == "corpus"
    kmeans = [m for m in other.methods if m.algorithm == "kmeans"]
    assert len(kmeans) == 4 and all(m.params["n_replicates"] == 10 for m in kmeans)
    assert all(m.params.get("kernel") == c.params.get("kernel")  # the rest untouched
               for m, c in zip(other.methods, config.methods, strict=True))
    # the read-out replaces every factorization's label reader, the NC-weighted ones' too
    assert {m.labels["rule"] for m in other.methods if m.factorizes} == {"argmax"}


def test_the_committed_corpus_table_is_the_corpus_reading():
    """The corpus reading is the committed corpus table but for the numerics: the landscape
    computed NMF and GNMF in float64, the table since in float32 (bench/FLOAT32_NMF.md)."""
    spec = rd.load_readings(ROOT / "configs" / "readings" / "gnmf.yaml")
    for corpus in ("tdt2", "reuters"):
        config = load_config(ROOT / "configs" / f"{spec.bases[f'gnmf_{corpus}']}.yaml")
        committed = load_config(ROOT / "configs" / f"gnmf_{corpus}_corpus.yaml")
        raw = copy.deepcopy(committed.raw)
        for method in raw["methods"].values():
            assert method.pop("numerics", {}).get("precision") in (None, "float32")
        as_computed = parse_config({**raw, "numerics": dict(spec.numerics)}, "corpus")
        assert rd.reading_config(config, spec, "corpus").protocol_hash() == \
            as_computed.protocol_hash() != committed.protocol_hash()


@pytest.mark.parametrize("change, message", [
    ({"starts": {"one": {"grounds": "code"},
                 "lam": {"set": {"algorithms": {"gnmf": {"lam": 100}}}, "grounds": "x"}}},
     "lam is stated by the paper"),
    ({"starts": {"one": {"grounds": "code"},  # the papers' name, as configs write it
                 "lam": {"set": {"methods": {"GNMF": {"lambda": 1}}}, "grounds": "x"}}},
     "lambda is stated by the paper"),
    ({"starts": {"one": {"grounds": "code"},
                 "h": {"set": {"algorithms": {"cnpcf": {"lambda_h": 3}}}, "grounds": "x"}}},
     "lambda_h is stated by the paper"),
    ({"starts": {"one": {"grounds": ""}}}, "needs its grounds"),
    ({"starts": {"one": {"set": {"protocol": {"runs": 3}}, "grounds": "x"}}},
     "may set only best_by, constraints, nmi"),
    ({"starts": {"one": {"set": {"methods": {"GNMF": "fast"}}, "grounds": "x"}}},
     "set.methods.GNMF: a mapping of parameter -> value"),
])
def test_stated_settings_and_ungrounded_values_are_refused(tmp_path, change, message):
    path = _readings_file(tmp_path)
    spec = yaml.safe_load(path.read_text())
    spec["settings"].update(change)
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    with pytest.raises(ConfigError, match=message):
        rd.load_readings(path)


@pytest.mark.parametrize("fixed, message", [
    (["a", "b"], "fixed: a mapping of setting -> grounds"),
    ({"NMI": ""}, r"fixed.NMI: its grounds \(paper, code or convention\)"),
    ({"NMI": 3}, "fixed.NMI: its grounds"),
    ({"NMI": {"set": {"methods": {}}}}, "fixed.NMI: needs its grounds"),
])
def test_a_fixed_setting_without_grounds_is_refused(tmp_path, fixed, message):
    path = _readings_file(tmp_path)
    spec = yaml.safe_load(path.read_text())
    spec["fixed"] = fixed
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    with pytest.raises(ConfigError, match=message):
        rd.load_readings(path)


def test_unknown_keys_algorithms_and_bytes_are_refused(tmp_path):
    """A readings file with a key docfact does not read, an algorithm no method could have, or
    bytes that are not UTF-8: one ConfigError naming it, not a setting silently ignored."""
    with pytest.raises(ConfigError, match="unknown key 'reruns'"):
        rd.load_readings(_readings_file(tmp_path, reruns=3))
    path = _readings_file(tmp_path)
    spec = yaml.safe_load(path.read_text())
    spec["settings"]["starts"]["best10"]["set"] = {"algorithms": {"nosuch": {"x": 1}}}
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    with pytest.raises(ConfigError, match="unknown algorithm 'nosuch'"):
        rd.load_readings(path)
    spec["settings"]["starts"]["best10"]["set"] = {"algorithms": {"kmeans": {"n_replicates": 9}}}
    spec["readings"]["reference"]["starts"] = ["one"]  # a list where a value is asked
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    with pytest.raises(ConfigError, match=r"readings.reference.starts: \['one'\] is not a value"):
        rd.load_readings(path)
    path.write_text(path.read_text().replace("starts:\n    - one", "starts: !!set {one}"))
    with pytest.raises(ConfigError, match=r"readings.reference.starts: \{'one'\} is not a value"):
        rd.load_readings(path)
    path.write_bytes(b"tables: [\xff]\n")
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        rd.load_readings(path)


def test_a_value_a_method_refuses_stops_the_command_before_any_reading_runs(tmp_path,
                                                                             monkeypatch):
    """n_replicates = -10 in the second reading: refused before the first one computes."""
    computed = []
    monkeypatch.setattr(rd, "run_reading", lambda *a, **k: computed.append(a))
    configs = tmp_path / "configs"
    (configs / "readings").mkdir(parents=True)
    shutil.copy(ROOT / "configs" / "gnmf_tdt2.yaml", configs)
    path = _readings_file(tmp_path)
    spec = yaml.safe_load(path.read_text())
    spec["settings"]["starts"]["best10"]["set"]["algorithms"]["kmeans"]["n_replicates"] = -10
    (configs / "readings" / "toy.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    res = CliRunner().invoke(main, ["readings", "toy", "--configs", str(configs),
                                    "--results", str(tmp_path / "results")])
    assert res.exit_code == 2 and "n_replicates" in res.output, res.output
    assert res.output.count("\n") == 1 and "Traceback" not in res.output
    assert computed == [] and not (tmp_path / "results").exists()


def test_a_reading_must_give_every_setting_a_declared_value(tmp_path):
    with pytest.raises(ConfigError, match="one value for each setting"):
        rd.load_readings(_readings_file(tmp_path, readings={"r": {"weighting": "subset"}}))
    with pytest.raises(ConfigError, match="not a value of that setting"):
        rd.load_readings(_readings_file(tmp_path, readings={"r": {
            "weighting": "idf", "starts": "one", "read-out": "k-means"}}))


def test_a_readings_file_with_a_reading_given_twice_is_refused(tmp_path):
    path = _readings_file(tmp_path)  # readings: the file's last mapping
    path.write_text(path.read_text() + "  reference: {weighting: corpus, starts: one, "
                    "read-out: k-means}\n")
    with pytest.raises(ConfigError, match="key 'reference' given twice"):
        rd.load_readings(path)


def test_phases_split_the_k_into_odd_and_held_out_even():
    config = load_config(ROOT / "configs" / "gnmf_tdt2.yaml")
    assert rd.phase_ks(config, "select") == (3, 5, 7, 9)
    assert rd.phase_ks(config, "validate") == (2, 4, 6, 8, 10)
    sub = rd.phase_config(config, "select")
    assert (sub.k, sub.runs) == ((3, 5, 7, 9), rd.RUNS)
    assert rd.phase_config(config, "full").k == config.k
    # the full phase runs the paper's protocol, the primary table's, though the readings start
    # from a sensitivity table of fewer runs
    base = load_config(ROOT / "configs" / "lccf_tdt2_reference.yaml")
    table = load_config(ROOT / "configs" / "lccf_tdt2.yaml")
    full = rd.phase_config(base, "full", table=table)
    assert base.runs < table.runs and (full.k, full.runs) == (table.k, table.runs)


def test_readings_command_reuses_committed_rows_chooses_and_validates(tmp_path):
    """End to end on the real data: the reference reading takes every row of the committed
    table (no method runs), the other computes only the method it changes; one is chosen on
    k = 3 and validated on k = 2; the landscape files are written. The file asks 10 runs, the
    table has 2: the sub-protocol is 2 runs, and complete with them."""
    configs, results = tmp_path / "configs", tmp_path / "results"
    (configs / "readings").mkdir(parents=True)
    small_config(configs, runs=2, k=(2, 3), name="gnmf_tdt2")
    spec = yaml.safe_load(_readings_file(tmp_path).read_text())
    spec["settings"] = {"starts": spec["settings"]["starts"]}
    spec["readings"] = {"reference": {"starts": "one"}, "best10": {"starts": "best10"}}
    (configs / "readings" / "toy.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    ok = CliRunner().invoke(main, ["run", str(configs / "gnmf_tdt2.yaml"), "--out",
                                   str(results / "gnmf_tdt2"), "--quiet", "--jobs", "1"])
    assert ok.exit_code == 0, ok.output
    timings = results / "gnmf_tdt2" / "timings.csv"  # marked: a row computed again cannot
    marked = pd.read_csv(timings)                      # record these seconds
    marked.loc[marked.seconds > 0, "seconds"] = 1000.0
    marked.to_csv(timings, index=False)
    res = CliRunner().invoke(main, ["readings", "toy", "--configs", str(configs),
                                    "--results", str(results)])
    assert res.exit_code == 0, res.output
    out = results / "toy_readings"
    # taken rows keep the seconds recorded where they were computed: a method run again
    # would record other seconds
    table = pd.read_csv(results / "gnmf_tdt2" / "timings.csv").set_index(["k", "run", "method"])
    ref = pd.read_csv(out / "reference" / "gnmf_tdt2" / "timings.csv")
    ref = ref.set_index(["k", "run", "method"]).seconds
    assert ref.equals(table.seconds.loc[ref.index])  # every row taken from the committed table
    best = pd.read_csv(out / "best10" / "gnmf_tdt2" / "timings.csv")
    best = best.set_index(["k", "run", "method"]).seconds
    kmeans = best.index.get_level_values("method") == "K-means"
    assert best[~kmeans].equals(ref[best[~kmeans].index])
    assert (ref[best[kmeans].index] == 1000.0).all() and (best[kmeans] < 1000.0).all()
    committed = pd.read_csv(results / "gnmf_tdt2" / "runs.csv")
    mine = pd.read_csv(out / "reference" / "gnmf_tdt2" / "runs.csv")
    assert 3 in set(mine.k)
    pd.testing.assert_frame_equal(mine, committed[committed.k.isin(set(mine.k))]
                                  .reset_index(drop=True))
    land = pd.read_csv(out / "readings.csv")
    assert list(land["reading"]) == ["reference", "best10"]
    assert land["chosen"].sum() == 1
    winner = land[land["chosen"]].iloc[0]
    assert winner["select_score"] == land["select_score"].min()
    assert not np.isnan(winner["validate_score"]) and winner["validate_status"] == "complete"
    assert (out / "readings.png").exists() and (out / "readings.md").exists()
    chosen_runs = pd.read_csv(out / winner["reading"] / "gnmf_tdt2" / "runs.csv")
    assert set(chosen_runs["k"]) == {2, 3}  # validated on the held-out k = 2
    assert (land["status"] == "complete").all() and set(chosen_runs["run"]) == {0, 1}
    res = CliRunner().invoke(main, ["readings", "toy", "--configs", str(configs), "--results",
                                    str(results), "--score-only", "--only", "nope"])
    assert res.exit_code == 2 and "--score-only computes none" in res.output, res.output


def test_tables_limits_what_is_computed_not_what_is_scored(tmp_path):
    """One reading per paper: scoring with --tables naming one of GNMF's two tables still
    scores, chooses and writes the landscape over both, the committed one to the byte."""
    committed = _rescored_to_the_byte(tmp_path, "gnmf", "--tables", "gnmf_tdt2")
    assert set(pd.read_csv(committed / "rows.csv")["table"]) == {"gnmf_tdt2", "gnmf_reuters"}


def _rescored_to_the_byte(tmp_path, paper: str, *options) -> Path:
    """Score a copy of results/PAPER_readings again (`docfact readings PAPER --score-only`) and
    assert it writes readings.csv, rows.csv and readings.md as committed; the committed folder."""
    committed = ROOT / "results" / f"{paper}_readings"
    shutil.copytree(committed, tmp_path / committed.name)
    res = CliRunner().invoke(main, ["readings", paper, "--score-only", *options,
                                    "--configs", str(ROOT / "configs"),
                                    "--results", str(tmp_path)])
    assert res.exit_code == 0, res.output
    for name in ("readings.csv", "rows.csv", "readings.md"):
        assert (tmp_path / committed.name / name).read_text() == (committed / name).read_text()
    return committed


@pytest.mark.parametrize("paper", sorted(p.stem for p in (ROOT / "configs" / "readings")
                                         .glob("*.yaml")))
def test_every_committed_landscape_is_what_its_runs_and_declaration_give(tmp_path, paper):
    """Scoring a paper's committed readings again (their runs, configs/readings/PAPER.yaml's
    settings and notes) writes readings.md, readings.csv and rows.csv to the byte: a page
    edited by hand, or a declaration changed without rescoring, fails here."""
    _rescored_to_the_byte(tmp_path, paper)


def test_a_fixed_setting_sets_its_methods_in_every_reading(tmp_path):
    path = _readings_file(tmp_path)
    raw = yaml.safe_load(path.read_text())
    raw["fixed"] = {"KM-NCW form": {"set": {"methods": {"KM-NCW": {"form": "ncut_hollow"}}},
                                    "grounds": "audit: the weighted kernel k-means"}}
    path.write_text(yaml.safe_dump(raw))
    spec = rd.load_readings(path)
    config = load_config(ROOT / "configs" / "lccf_tdt2_reference.yaml")
    for reading in spec.readings:
        got = {m.name: m for m in rd.reading_config(config, spec, reading).methods}
        assert got["KM-NCW"].params["form"] == "ncut_hollow"
        assert "form" not in got["KM"].params and "form" not in got["KM-NCW-poly"].params
    raw["fixed"]["KM-NCW form"]["set"] = {"methods": {"KM-NCW": {"p": 3}}}
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="stated by the paper"):
        rd.load_readings(path)


def test_a_setting_may_name_the_methods_it_sets(tmp_path):
    """A setting's `methods` sets those rows only (NC's embedding leaves AA's rows, which
    share NC's algorithm, to be taken from other readings); a stated parameter or a method the
    table lacks is refused."""
    path = _readings_file(tmp_path)
    raw = yaml.safe_load(path.read_text())
    raw["settings"]["starts"]["best10"]["set"]["methods"] = {
        "NC": {"embedding": "shi_malik"}, "NC-poly": {"embedding": "shi_malik"}}
    path.write_text(yaml.safe_dump(raw))
    config = load_config(ROOT / "configs" / "lccf_tdt2_reference.yaml")
    spec = rd.load_readings(path)
    got = {m.name: m for m in rd.reading_config(config, spec, "corpus-best10").methods}
    assert got["NC"].params["embedding"] == got["NC-poly"].params["embedding"] == "shi_malik"
    assert got["KM"].params["n_replicates"] == 10  # and the setting's algorithms
    assert all("embedding" not in got[m].params for m in ("AA", "AA-poly"))
    assert all("embedding" not in m.params
               for m in rd.reading_config(config, spec, "reference").methods)
    raw["settings"]["starts"]["best10"]["set"]["methods"] = {"Nope": {"embedding": "shi_malik"}}
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="names method 'Nope'"):
        rd.reading_config(config, rd.load_readings(path), "corpus-best10")
    raw["settings"]["starts"]["best10"]["set"]["methods"] = {"NC": {"degree": 3}}
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="methods.NC: degree is stated"):
        rd.load_readings(path)
    # method-level values come after every algorithm-level one; two that disagree are refused
    # (the settings in the file's order: read-out, starts, weighting)
    del raw["settings"]["starts"]["best10"]["set"]["methods"]
    raw["settings"]["read-out"]["argmax"]["set"]["methods"] = {"KM": {"n_replicates": 3}}
    path.write_text(yaml.safe_dump(raw))
    got = {m.name: m for m in rd.reading_config(config, rd.load_readings(path),
                                                "corpus-best10").methods}
    assert got["KM"].params["n_replicates"] == 3 and got["KM-NCW"].params["n_replicates"] == 10
    raw["fixed"] = {"KM": {"set": {"methods": {"KM": {"n_replicates": 5}}}, "grounds": "x"}}
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="two settings give KM's n_replicates"):
        rd.reading_config(config, rd.load_readings(path), "corpus-best10")


CHOSEN = {"gnmf": "corpus-best10-unit", "lccf": "corpus-best10-130-sources-sm-spectral",
          "pspt": "corpus-relative-zero-trials", "lcf": "objective-argmax", "rcf": "corpus"}
CORPORA = {"lcf": ("yale", "orl"),
           "rcf": ("tdt2_t2", "tdt2_t20", "reuters_t2", "reuters_t20", "20newsgroups_t2",
                   "20newsgroups_t20")}


@pytest.mark.parametrize("paper, table", [(p, f"{p}_{c}") for p in CHOSEN
                                          for c in CORPORA.get(p, ("tdt2", "reuters"))])
def test_readings_start_from_the_reference_config_named_beside_the_table(paper, table):
    """Once the primary config carries the chosen reading, the readings start from the
    reference config; the reading's config keeps the table's name, the reference reading is the
    reference table itself (up to the fixed settings), and the chosen reading is the primary."""
    spec = rd.load_readings(ROOT / "configs" / "readings" / f"{paper}.yaml")
    assert spec.bases[table] == f"{table}_reference"
    base = load_config(ROOT / "configs" / f"{spec.bases[table]}.yaml")
    if "reference" in spec.readings:  # RCF's readings all fix Eq. 2's weighting: none is it
        reference = rd.reading_config(base, spec, "reference", table)
        assert reference.name == table
        fixed = rd.fixed_methods(spec)
        assert [(m.name, m.params) for m in reference.methods] == \
            [(m.name, {**m.params, **fixed.get(m.name, {})}) for m in base.methods]
        if not fixed:  # a landscape may declare the float64 its base tables left
            raw = copy.deepcopy(base.raw)
            if spec.numerics:
                raw["numerics"] = dict(spec.numerics)
                for method in raw["methods"].values():
                    method.pop("numerics", None)
            assert reference.protocol_hash() == resolve(parse_config(raw, table)).protocol_hash()
    chosen = rd.reading_config(base, spec, CHOSEN[paper], table)
    assert chosen.protocol_hash() != base.protocol_hash()
    if Numerics(**spec.numerics) != Numerics():  # computed as the primary, but for a method whose
        # statistics float32 moves (bench/FLOAT32_TABLES.md): the primary computes it in float64
        primary = load_resolved(ROOT / "configs" / f"{table}.yaml")
        assert [(m.name, m.algorithm, m.params, m.labels) for m in chosen.methods] == \
            [(m.name, m.algorithm, m.params, m.labels) for m in primary.methods]
        assert chosen.inputs() == primary.inputs()
        assert [m.name for m in primary.methods if m.factorizes and m.numerics != spec.numerics] \
            == (["CNPCF"] if table.endswith("_t20") else [])
        return
    # the primary computes its factorizations in float32 or mixed precision (numerics, for all
    # or per method), the readings in float64
    primary = load_config(ROOT / "configs" / f"{table}.yaml")
    raw = {key: value for key, value in copy.deepcopy(primary.raw).items() if key != "numerics"}
    for method in raw["methods"].values():
        method.pop("numerics", None)
    assert chosen.protocol_hash() == parse_config(raw, table).protocol_hash()


COMMITTED_READINGS = sorted(
    (spec, reading, table)
    for spec, readings in ((s, rd.load_readings(s))
                           for s in (ROOT / "configs" / "readings").glob("*.yaml"))
    for reading in readings.readings for table in readings.bases
    if (ROOT / "results" / f"{spec.stem}_readings" / reading / table / "manifest.json").exists())


@pytest.mark.parametrize("spec, reading, table", COMMITTED_READINGS,
                         ids=[f"{s.stem}-{r}-{t}" for s, r, t in COMMITTED_READINGS])
def test_every_committed_reading_folder_is_what_the_configs_give(spec, reading, table):
    """`docfact readings` resumes from the committed folders only while the configs give the
    protocol they were computed with: a change to a base config (e.g. a method's own
    numerics in a reference table) must not move a reading's protocol."""
    readings = rd.load_readings(spec)
    base = load_resolved(ROOT / "configs" / f"{readings.bases[table]}.yaml")
    manifest = yaml.safe_load((ROOT / "results" / f"{spec.stem}_readings" / reading / table /
                               "manifest.json").read_text())
    assert rd.reading_config(base, readings, reading, table).protocol_hash() == \
        manifest["protocol_hash"]


def test_the_files_runs_and_numerics_set_every_readings_sub_protocol(tmp_path):
    """`runs` sets the sub-protocol's runs per k; `numerics` how every reading's
    factorizations compute, which leaves the clustering methods' rows shared with the
    float64 tables; a bad value of either is refused."""
    path = _readings_file(tmp_path)
    raw = yaml.safe_load(path.read_text())
    raw.update(runs=3, numerics={"precision": "float64", "products": "auto"})
    path.write_text(yaml.safe_dump(raw))
    spec = rd.load_readings(path)
    config = load_resolved(ROOT / "configs" / "gnmf_tdt2_reference.yaml")  # NMF, GNMF: float32
    fast = rd.reading_config(config, spec, "reference")
    assert rd.phase_config(fast, "select", spec.runs).runs == 3
    for m, base in zip(fast.methods, config.methods, strict=True):
        assert m.numerics == ({"products": "auto"} if base.factorizes else {})  # float64
        assert (row_key(fast, m) == row_key(config, base)) == (not base.factorizes), m.name
    for bad in ({"runs": 1}, {"runs": "ten"}, {"numerics": {"precision": "half"}},
                {"numerics": {"speed": "max"}}, {"numerics": [1]}):
        path.write_text(yaml.safe_dump({**raw, **bad}))
        with pytest.raises(ConfigError, match=next(iter(bad))):
            rd.load_readings(path)
