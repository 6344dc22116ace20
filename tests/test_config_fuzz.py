"""Generated configs never end in a traceback: valid ones validate, invalid ones exit 2 with one
line naming the problem, and `docfact run` writes nothing for them."""

import copy

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docfact.cli import main
from docfact.config import load_config
from docfact.experiment.results import read_runs
from tests.test_hostile import tiny_csv

BASE = {
    "name": "fuzz",
    "data": {"view": "gnmf_tdt2", "weighting": "tfidf", "weight_on": "subset"},
    "protocol": {"k": [2, 3], "runs": 2, "seed": 1},
    "labels": {"rule": "kmeans", "replicates": 3},
    "methods": {"KM": {"algorithm": "kmeans"}, "G": {"algorithm": "gnmf", "lambda": 10, "p": 5}},
    "report": {"layout": "k_by_method", "unit": "percent"},
    "published": {"source": "x", "ac": {"G": {2: "99.9±0.3", "avg": 97.6}}},
    "check": {"pairs": [[2, 0]], "margin": 0.05},
}

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 40), st.floats(allow_nan=True),
                    st.text(max_size=8), st.sampled_from(["kmeans", "gnmf", "tfidf", "2..10",
                                                          "gnmf_tdt2", "argmax", "99±1"]))
values = st.recursive(scalars, lambda c: st.one_of(st.lists(c, max_size=3),
                                                   st.dictionaries(st.text(max_size=6), c,
                                                                   max_size=3)), max_leaves=6)
PATHS = [(), ("data",), ("protocol",), ("labels",), ("methods",), ("methods", "G"),
         ("methods", "KM"), ("report",), ("published",), ("published", "ac"), ("check",)]


def mutated(draw, base, paths, edits, new_keys, new_values):
    """A copy of `base` with up to `edits` mappings along `paths` given a key removed or set."""
    cfg = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, edits))):
        node = cfg
        for key in draw(st.sampled_from(paths)):
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue
        key = draw(st.sampled_from(list(node) + [draw(new_keys)]))
        if draw(st.booleans()) and key in node:
            del node[key]
        else:
            node[key] = draw(new_values)
    return cfg


@st.composite
def configs(draw):
    return mutated(draw, BASE, PATHS, 3, st.text(min_size=1, max_size=6), values)


def one_line_or_ok(res, each=False):
    """Exit 0, or 2 with one line "docfact: error: ..." (with `each`, one such line per problem:
    `validate` lists them all)."""
    assert "Traceback" not in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code in (0, 2), (res.exit_code, res.output)
    if res.exit_code == 2:
        lines = [line for line in res.output.rstrip("\n").split("\n")
                 if not line.startswith("docfact: note")]
        assert len(lines) == 1 or (each and len(lines) > 1), res.output
        assert all(line.startswith("docfact: error: ") for line in lines)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs())
def test_generated_configs_validate_or_fail_in_one_line(tmp_path_factory, cfg):
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "c.yaml"
    path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
    res = CliRunner().invoke(main, ["validate", str(path)])
    one_line_or_ok(res, each=True)
    if res.exit_code == 2:
        out = folder / "out"
        res = CliRunner().invoke(main, ["run", str(path), "--out", str(out)])
        one_line_or_ok(res)
        assert res.exit_code == 2 and not out.exists()


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=60))
def test_arbitrary_text_is_one_line(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "c.yaml"
    path.write_text(text)
    res = CliRunner().invoke(main, ["validate", str(path)])
    one_line_or_ok(res, each=True)
    assert res.exit_code == 2


# Configs on a tiny data set of 3 classes, so that every generated config that validates can
# run end to end: a complete table or one line, never a traceback or a lost run.
TINY_BASE = {
    "name": "fuzz",
    "data": {"view": None, "weighting": "tfidf", "weight_on": "subset"},
    "protocol": {"k": [2, 3], "runs": 1, "seed": 1},
    "labels": {"rule": "kmeans", "replicates": 2},
    "methods": {"KM": {"algorithm": "kmeans"}, "N": {"algorithm": "nmf", "max_iter": 20}},
    "report": {"layout": "k_by_method", "unit": "percent"},
    "published": {"source": "x", "ac": {"N": {2: "99.9±0.3", "avg": 97.6}}},
}
TINY_PATHS = [(), ("data",), ("protocol",), ("labels",), ("methods",), ("methods", "N"),
              ("methods", "KM"), ("report",), ("published",)]
tiny_values = st.recursive(
    st.one_of(scalars, st.sampled_from(["nmf", "cf", "lsi_kmeans", "2..3", 3, 1, 0.5,
                                        "a\nb", "1", 1])),
    lambda c: st.one_of(st.lists(c, max_size=3),
                        st.dictionaries(st.sampled_from(["algorithm", "max_iter", "k", "x"]),
                                        c, max_size=2)), max_leaves=4)


@st.composite
def tiny_configs(draw, data_path):
    base = {**TINY_BASE, "data": {**TINY_BASE["data"], "view": data_path}}
    return mutated(draw, base, TINY_PATHS, 2, st.sampled_from(["1", 1, "x\ny", "z"]),
                   tiny_values)


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny-data")
    return str(tiny_csv(folder))


def test_configs_that_validate_run_end_to_end(tmp_path_factory, tiny_data):
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cfg=tiny_configs(tiny_data))
    def check(cfg):
        folder = tmp_path_factory.mktemp("run")
        path = folder / "c.yaml"
        path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
        valid = CliRunner().invoke(main, ["validate", str(path)])
        one_line_or_ok(valid, each=True)
        out = folder / "out"
        res = CliRunner().invoke(main, ["run", str(path), "--out", str(out), "--jobs", "1",
                                        "--quiet", "--runs", "1"])
        assert "Traceback" not in res.output, res.output
        assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
        if valid.exit_code == 2:  # refused before any folder is written
            assert res.exit_code == 2 and not out.exists(), res.output
        elif res.exit_code == 0:  # every (k, run) recorded for every method
            config = load_config(path)
            runs = read_runs(out / "runs.csv")
            assert len(runs) == len(config.k) * len(config.methods), runs
            assert set(runs["method"]) == {m.name for m in config.methods}
        else:
            assert res.output.startswith("docfact: error: ") and res.output.count("\n") == 1

    check()


@settings(max_examples=300, deadline=None)
@given(data=st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from([b"a:", b" ", b"\n", b"- ", b"&x ", b"*x", b"[", b"]", b"{", b"}",
                              b"\xff", b"\xc3", b'"', b"'", b"1", b"!!python/object:os.system",
                              b"!!binary", b"? ", b": ", b"name: ..", b"\t", b"\x00", b"%YAML",
                              b"---", b"...", b"<<: ", b"\xef\xbb\xbf", b"#"]),
             max_size=40).map(b"".join)))
def test_arbitrary_bytes_are_one_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "c.yaml"
    path.write_bytes(data)
    res = CliRunner().invoke(main, ["validate", str(path)])
    one_line_or_ok(res, each=True)
    assert res.exit_code == 2


@st.composite
def deep_or_aliased(draw) -> tuple:
    """(text, expected words): YAML that nests up to 10^5 levels (the outer mapping of a config
    adds one), or whose aliases expand to up to 9^9 values."""
    kind = draw(st.sampled_from(["flow list", "flow map", "block list", "aliases", "anchor"]))
    depth = draw(st.sampled_from([1, 5, 30, 31, 32, 33, 100, 1000, 100_000]))
    deeper = "nested deeper than 32 levels"
    if kind == "flow list":
        return ("protocol: " + "[" * depth + "2" + "]" * depth,
                deeper if depth >= 32 else "missing key 'data'")
    if kind == "flow map":
        return "{a: " * depth + "1" + "}" * depth, deeper if depth > 32 else "missing key"
    if kind == "block list":
        return "- " * depth + "x", deeper if depth > 32 else "must be a mapping"
    if kind == "anchor":  # an anchor that no alias uses expands nothing: legal
        return ("name: &n fuzz\ndata: {view: gnmf_tdt2}\nprotocol: {k: [2], runs: 1}\n"
                "methods: {KM: {algorithm: kmeans}}\n", None)
    levels, fan = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    lines = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fan)}]"
                               for i in range(1, levels)]
    return ("\n".join(lines) + f"\nmethods: {{KM: *a{levels - 1}}}\n",
            "alias *a" if levels > 1 else "alias *a0")


@settings(max_examples=60, deadline=None)
@given(case=deep_or_aliased())
def test_deep_or_aliased_yaml_is_one_line(tmp_path_factory, case):
    text, words = case
    path = tmp_path_factory.mktemp("fuzz") / "c.yaml"
    path.write_text(text)
    res = CliRunner().invoke(main, ["validate", str(path)])
    one_line_or_ok(res, each=True)
    assert res.exit_code == (0 if words is None else 2), res.output
    assert words is None or words in res.output, res.output
