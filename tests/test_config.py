"""Config errors come from the schema: one line naming the file, the line, the key path and the
allowed values; what the schema cannot say is checked after it."""

import pytest

from docfact.config import dump_yaml, parse_yaml
from tests.test_runner import run_cli

GOOD = ("name: x\ndata:\n  view: gnmf_tdt2\n  weighting: tfidf\n"
        "protocol: {k: [2], runs: 1}\nmethods:\n  KM: {algorithm: kmeans}\n")

CLAIM = ("  KM: {{algorithm: kmeans}}\npublished:\n  source: s\n"
         "  claims: [{{method: KM, over: {over}, source: 'leads'}}]\n")


@pytest.mark.parametrize("edit, expected", [
    (("weighting: tfidf", "weighting: idf"),
     "line 4 (data.weighting): must be one of tfidf, tfidf_raw, sklearn, l2, none; got 'idf'"),
    (("  view: gnmf_tdt2\n", "  view: gnmf_tdt2\n  colour: red\n"),
     "line 4 (data.colour): unknown key 'colour'; allowed: view, weight_on, weighting"),
    (("runs: 1", "runs: 0"), "line 5 (protocol.runs): must be >= 1; got 0"),
    (("k: [2]", "k: [2, 2]"),
     "line 5 (protocol.k): must be a list without repeated values; got [2, 2]"),
    (("k: [2]", "k: two"),
     "line 5 (protocol.k): must be a list of integers >= 2, or a range 'a..b'; got 'two'"),
    (("k: [2]", "k: 9..3"), "line 5 (protocol.k): the range 'a..b' needs 2 <= a <= b, got '9..3'"),
    (("{algorithm: kmeans}", "{algorithm: kmeans, labels: {rule: mode}}"),
     "line 7 (methods.KM.labels.rule): must be one of kmeans, argmax; got 'mode'"),
    (("{algorithm: kmeans}", "{labels: argmax}"), "line 7 (methods.KM): missing key 'algorithm'"),
    (("name: x", "name: a b"),
     "line 1 (name): must be letters, digits, '_', '-' or '.' (a folder name of at "
     "most 100, not starting with '.'); got 'a b'"),
    (("k: [2]", "k: [2, 40]"),
     "line 5 (protocol.k): k=40 exceeds the 30 classes of view 'gnmf_tdt2'"),
    (("{algorithm: kmeans}", "{algorithm: rcf}"),
     "line 5 (protocol.labelled): the semi-supervised method(s) KM need the fraction of "
     "each class to label, e.g. labelled: 0.02"),
    (("runs: 1", "runs: 1, labelled: 0.1"),
     "line 5 (protocol.labelled): no method of this config uses labels"),
    (("runs: 1", "runs: 1, labelled: 2"), "line 5 (protocol.labelled): must be < 1; got 2"),
    (("{algorithm: kmeans}", "{algorithm: kmeans, labels: {rule: kmeans, metric: l1}}"),
     "line 7 (methods.KM.labels.metric): must be one of euclidean, cosine; got 'l1'"),
    (("name: x\n", "name: x\nshares: x\n"), "line 2 (shares): names this table itself; "
     "name the table whose rows it takes"),
    (("name: x\n", "name: x\nshares: [a]\n"), "line 2 (shares): must be the name of another "
     "table (its results folder beside this one's); got ['a']"),
    (("  KM: {algorithm: kmeans}\n", CLAIM.format(over="[NMF]")),
     "line 10 (published.claims[0]): 'NMF' is not a method of this config; methods: KM"),
    (("  KM: {algorithm: kmeans}\n", CLAIM.format(over="[KM]")),
     "line 10 (published.claims[0]): 'KM' cannot lead itself"),
    (("  KM: {algorithm: kmeans}\n", CLAIM.format(over="some")),
     "line 10 (published.claims[0].over): must be 'all' or a list of the method names it "
     "leads; got 'some'"),
])
def test_schema_errors_name_line_key_and_allowed_values(tmp_path, edit, expected):
    path = tmp_path / "c.yaml"
    path.write_text(GOOD.replace(*edit))
    res = run_cli("validate", path)
    assert res.exit_code == 2 and res.output == f"docfact: error: {path}, {expected}\n"


def test_run_names_a_misspelt_key_not_the_key_it_leaves_missing(tmp_path):
    """`protocl:` for `protocol:`: `run` (which stops at the first problem) names the unknown
    key with the allowed ones, not only the missing `protocol`."""
    path = tmp_path / "c.yaml"
    path.write_text(GOOD.replace("protocol:", "protocl:"))
    res = run_cli("run", path, "--out", tmp_path / "out")
    assert res.exit_code == 2 and res.output.startswith(
        f"docfact: error: {path}, line 5 (protocl): unknown key 'protocl'; allowed: "), res.output
    assert not (tmp_path / "out").exists()


def test_an_empty_config_is_said_to_be_empty(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("# nothing yet\n")
    for command in ("run", "validate"):
        res = run_cli(command, path)
        assert res.exit_code == 2 and res.output == (
            f"docfact: error: {path}: empty: a config is a YAML mapping of data, protocol and "
            "methods\n"), res.output


def test_the_good_config_validates(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(GOOD)
    assert run_cli("validate", path).exit_code == 0


def test_only_a_sweeps_part_keeps_a_labelled_fraction_no_method_uses(tmp_path):
    """docfact sweep marks the folders of a labelled table's unsupervised methods report.kind
    sweep: they keep the table's protocol.labelled (its protocol hash)."""
    path = tmp_path / "c.yaml"
    path.write_text(GOOD.replace("runs: 1", "runs: 1, labelled: 0.1") + "report: {kind: sweep}\n")
    assert run_cli("validate", path).exit_code == 0


def test_validate_lists_every_problem_at_once(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(GOOD.replace("weighting: tfidf", "weighting: idf").replace("runs: 1", "runs: 0")
                    .replace("  view: gnmf_tdt2\n", "  view: gnmf_tdt2\n  colour: red\n"))
    res = run_cli("validate", path)
    assert res.exit_code == 2
    lines = res.output.splitlines()
    assert len(lines) == 3
    assert all(line.startswith(f"docfact: error: {path}, line ") for line in lines)
    for expected in ("(data.weighting): must be one of", "(data.colour): unknown key 'colour'",
                     "(protocol.runs): must be >= 1"):
        assert sum(expected in line for line in lines) == 1
    bad_methods = GOOD.replace("KM: {algorithm: kmeans}\n", "A: {algorithm: gnmf, lambda: -1}\n"
                               "  B: {algorithm: nmf, colour: 3}\n")
    path.write_text(bad_methods)
    lines = run_cli("validate", path).output.splitlines()
    assert len(lines) == 2
    assert "(methods.A): The 'lambda' parameter of GNMF must be" in lines[0]
    assert "(methods.B): unknown parameter(s) colour" in lines[1]


def test_lambda_is_the_config_name_and_lam_is_read_with_a_note(tmp_path):
    from docfact.config import load_config

    path = tmp_path / "c.yaml"
    path.write_text(GOOD.replace("{algorithm: kmeans}", "{algorithm: gnmf, lambda: 10}"))
    new = load_config(path)
    assert new.methods[0].params == {"lam": 10}  # the estimator's keyword
    path.write_text(GOOD.replace("{algorithm: kmeans}", "{algorithm: gnmf, lam: 10}"))
    with pytest.warns(UserWarning, match="write lambda .as the papers. rather than lam"):
        old = load_config(path)
    assert old.protocol_hash() == new.protocol_hash()  # folders of either resume alike
    res = run_cli("validate", path)
    assert res.exit_code == 0 and "docfact: note: " in res.output
    # read thrice (validate, run, its folder's copy), said once
    res = run_cli("run", path, "--out", tmp_path / "out", "--runs", 1, "--k", 2, "--jobs", 1)
    assert res.exit_code == 0 and res.output.count("rather than lam") == 1, res.output
    other = tmp_path / "d.yaml"  # another file of the same words: its own note
    other.write_text(path.read_text())
    res = run_cli("validate", path, other)
    assert [line.split(":")[2] for line in res.output.splitlines() if "rather than lam" in line
            ] == [f" {path}", f" {other}"], res.output
    path.write_text(GOOD.replace("{algorithm: kmeans}", "{algorithm: gnmf, lam: 1, lambda: 2}"))
    assert "lambda is given twice" in run_cli("validate", path).output


def test_a_key_given_twice_is_refused_with_its_line(tmp_path):
    """PyYAML keeps the last of two equal keys: a method written twice would silently
    replace the first, so the loader refuses it, naming the second."""
    path = tmp_path / "c.yaml"
    path.write_text(GOOD + "  KM: {algorithm: nmf}\n")
    res = run_cli("validate", path)
    assert res.exit_code == 2
    assert "invalid YAML at line 8, column 3: key 'KM' given twice" in res.output
    path.write_text(GOOD.replace("{k: [2], runs: 1}", "{k: [2], runs: 1, runs: 2}"))
    assert "key 'runs' given twice" in run_cli("validate", path).output
    assert parse_yaml("a: {<<: {b: 1}, b: 2}", "c.yaml") == {"a": {"b": 2}}  # a merge: legal


def test_a_value_shared_by_two_methods_is_written_out_and_reads_back():
    """A sweep gives every method the same label reader object; the folder's config.yaml must
    not hold an alias, which the loader refuses."""
    labels = {"rule": "kmeans", "replicates": 20}
    raw = {"methods": {"A": {"algorithm": "nmf", "labels": labels},
                       "B": {"algorithm": "gnmf", "labels": labels}}}
    text = dump_yaml(raw)
    assert "&" not in text and "*" not in text
    assert parse_yaml(text, "config.yaml") == raw


@pytest.mark.parametrize("unit, value, ok", [("percent", "50.00", True), ("percent", "5000", False),
                                             ("fraction", "0.5", True), ("fraction", "50", False),
                                             ("percent", "-1", False)])
def test_a_published_value_outside_its_units_range_is_refused(tmp_path, unit, value, ok):
    """A typo in a paper's number (5000 for 50.00) would give a verdict against a value no
    paper printed: a mean outside 0..100 (percent) or 0..1 (fraction) is refused."""
    path = tmp_path / "c.yaml"
    path.write_text(GOOD + f"report: {{unit: {unit}}}\n"
                    f"published:\n  source: s\n  ac:\n    KM: {{2: '{value}'}}\n")
    res = run_cli("validate", path)
    assert (res.exit_code == 0) == ok, res.output
    if not ok:
        assert f"(published.ac.KM.2): {float(value):g} is outside 0 to " in res.output


@pytest.mark.parametrize("value", ["9.7.6", ".", "1..", "97.6±6.7.1", "-"])
def test_a_malformed_published_number_is_one_line(tmp_path, value):
    path = tmp_path / "c.yaml"
    path.write_text(GOOD + f"published:\n  source: s\n  ac:\n    KM: {{2: '{value}'}}\n")
    res = run_cli("validate", path)
    assert res.exit_code == 2, res.output
    assert res.output == (f"docfact: error: {path}, line 11 (published.ac.KM.2): expected a "
                          f"number or 'mean±std', got {value!r}\n")
