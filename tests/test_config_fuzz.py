"""Generated configs never end in a traceback: valid ones validate, invalid ones exit 2 with one
line naming the problem, and `docfact run` writes nothing for them."""

import copy

import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docfact.cli import main

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


@st.composite
def configs(draw):
    cfg = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS))
        node = cfg
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue
        keys = list(node) + [draw(st.text(min_size=1, max_size=6))]
        key = draw(st.sampled_from(keys))
        if draw(st.booleans()) and key in node:
            del node[key]
        else:
            node[key] = draw(values)
    return cfg


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


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60))
def test_arbitrary_text_is_one_line(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "c.yaml"
    path.write_text(text)
    res = CliRunner().invoke(main, ["validate", str(path)])
    one_line_or_ok(res)
    assert res.exit_code == 2
