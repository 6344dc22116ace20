"""Adding an algorithm is one module and one registry line: a toy estimator defined here,
registered, runs through `docfact run` on a small CSV corpus and gets its row in the table."""

import sys
from numbers import Integral, Real

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from joblib.externals.loky import get_reusable_executor
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import validate_data

from docfact.algorithms.registry import ALGORITHMS, register
from docfact.cli import main
from tests.test_user_data import _labelled_csv


class RandomProjection(TransformerMixin, BaseEstimator):
    """V = X R^T: the documents on k random nonnegative directions R (k, n_features), scaled."""

    _parameter_constraints = {"n_components": [Interval(Integral, 1, None, closed="left")],
                              "scale": [Interval(Real, 0, None, closed="neither")],
                              "random_state": ["random_state"]}

    def __init__(self, n_components, *, scale=1.0, random_state=None):
        self.n_components = n_components
        self.scale = scale
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        rng = check_random_state(self.random_state)
        self.components_ = self.scale * rng.random((self.n_components, X.shape[1]))
        self.n_iter_, self.objective_ = 0, [0.0]
        return np.asarray(X @ self.components_.T)


@pytest.fixture
def toy():
    register("random_projection", RandomProjection)  # the one line
    yield
    del ALGORITHMS["random_projection"]


def _config(tmp_path, **params) -> str:
    cfg = {"name": "toy",
           "data": {"view": {"dataset": "news.csv", "min_docs": 5}},
           "protocol": {"k": [2, 3], "runs": 2, "seed": 3},
           "labels": {"rule": "kmeans", "replicates": 3},
           "methods": {"KM": {"algorithm": "kmeans"},
                       "Toy": {"algorithm": "random_projection", **params}}}
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


def test_a_registered_estimator_runs_through_docfact_run(tmp_path, monkeypatch, toy):
    monkeypatch.chdir(tmp_path)
    _labelled_csv(tmp_path / "news.csv")
    res = CliRunner().invoke(main, ["run", _config(tmp_path, scale=2.0), "--out", "out",
                                    "--jobs", "1"])
    assert res.exit_code == 0, res.output
    runs = pd.read_csv(tmp_path / "out" / "runs.csv")
    toy_runs = runs[runs.method == "Toy"]
    assert len(toy_runs) == 2 * 2 and (toy_runs.status == "ok").all()
    assert toy_runs["ac"].between(0, 1).all()
    headers = [line for line in res.output.splitlines() if line.startswith("| k ")]
    assert headers and all("| Toy " in line for line in headers), res.output


class LastObjectiveOnly(RandomProjection):
    """The same, reporting its objective as a last value rather than a history."""

    def fit_transform(self, X, y=None):
        V = super().fit_transform(X, y)
        self.objective_ = 0.5
        return V


def test_an_estimator_may_report_only_its_last_objective(tmp_path, monkeypatch):
    """objective_ may be the history (docfact's estimators) or the last value (README)."""
    register("last_objective", LastObjectiveOnly)
    try:
        monkeypatch.chdir(tmp_path)
        _labelled_csv(tmp_path / "news.csv")
        cfg = yaml.safe_load(open(_config(tmp_path)))
        cfg["methods"]["Toy"]["algorithm"] = "last_objective"
        (tmp_path / "toy.yaml").write_text(yaml.safe_dump(cfg))
        res = CliRunner().invoke(main, ["run", "toy.yaml", "--out", "out", "--jobs", "1"])
        assert res.exit_code == 0, res.output
        runs = pd.read_csv(tmp_path / "out" / "runs.csv")
        toy_runs = runs[runs.method == "Toy"]
        assert (toy_runs.status == "ok").all() and (toy_runs.objective == 0.5).all()
    finally:
        del ALGORITHMS["last_objective"]


def test_a_registered_estimator_has_its_parameters_checked(tmp_path, monkeypatch, toy):
    monkeypatch.chdir(tmp_path)
    _labelled_csv(tmp_path / "news.csv")
    res = CliRunner().invoke(main, ["run", _config(tmp_path, scale=-1), "--out", "out"])
    assert res.exit_code == 2 and "'scale' parameter of RandomProjection" in res.stderr
    assert len(res.stderr.splitlines()) == 1 and not (tmp_path / "out").exists()


OWN_MODULE = '''
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin


class Projection(TransformerMixin, BaseEstimator):
    """V = X R^T for k random nonnegative directions R."""

    def __init__(self, n_components, *, scale=1.0, random_state=None):
        self.n_components = n_components
        self.scale = scale
        self.random_state = random_state

    def fit_transform(self, X, y=None):
        rng = np.random.default_rng(self.random_state)
        R = self.scale * rng.random((self.n_components, X.shape[1]))
        self.n_iter_, self.objective_ = 0, 0.0
        return np.asarray(X @ R.T)
'''


@pytest.fixture
def own_folder(tmp_path, monkeypatch):
    """The current folder of a user with news.csv and toy.yaml; sys.path and the module cache
    restored after (a docfact command is a process of its own), no worker of an earlier test
    kept (it would keep the folder and the modules it started with)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", list(sys.path))
    monkeypatch.delitem(sys.modules, "own_mf", raising=False)
    get_reusable_executor().shutdown(wait=True)
    _labelled_csv(tmp_path / "news.csv")
    yield tmp_path
    sys.modules.pop("own_mf", None)
    get_reusable_executor().shutdown(wait=True)


def _own(folder, module, algorithm="own_mf:Projection", **params) -> str:
    """own_mf.py holding `module` (None: no file) and toy.yaml naming `algorithm`."""
    if module is not None:
        (folder / "own_mf.py").write_text(module)
    sys.modules.pop("own_mf", None)  # a new command: the module read again
    cfg = yaml.safe_load(open(_config(folder)))
    cfg["methods"]["Toy"] = {"algorithm": algorithm, **params}
    (folder / "toy.yaml").write_text(yaml.safe_dump(cfg))
    return "toy.yaml"


def _toy_runs(folder):
    runs = pd.read_csv(folder / "runs.csv")
    return runs[runs.method == "Toy"].reset_index(drop=True)


def test_an_estimator_of_ones_own_runs_by_module_and_class_name(own_folder):
    """algorithm: module:Class, a module beside the config (the current folder): no docfact
    file touched, two worker processes import it as the main process does."""
    cfg = _own(own_folder, OWN_MODULE, scale=2.0)
    res = CliRunner().invoke(main, ["run", cfg, "--out", "out", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    toy_runs = _toy_runs(own_folder / "out")
    assert len(toy_runs) == 2 * 2 and (toy_runs.status == "ok").all(), toy_runs
    assert toy_runs["ac"].between(0, 1).all()
    assert not (own_folder / "__pycache__").exists()  # nothing written beside the module


def test_records_of_ones_own_estimator_depend_on_its_code(own_folder):
    """Edited code is a different protocol for the folder it computed (refused, not resumed),
    and a donor's rows of it are never taken: they are computed again."""
    cfg = _own(own_folder, OWN_MODULE)
    assert CliRunner().invoke(main, ["run", cfg, "--out", "out", "--jobs", "1"]).exit_code == 0
    before = (own_folder / "out" / "runs.csv").read_bytes()
    cfg = _own(own_folder, OWN_MODULE.replace("X @ R.T", "X @ (R ** 8).T"))
    res = CliRunner().invoke(main, ["run", cfg, "--out", "out", "--jobs", "1"])
    assert res.exit_code == 2 and "the code of one's own changed" in res.output, res.output
    assert (own_folder / "out" / "runs.csv").read_bytes() == before
    for out, donors in (("fresh", []), ("donated", ["--donors", "out"])):
        res = CliRunner().invoke(main, ["run", cfg, "--out", out, "--jobs", "1", *donors])
        assert res.exit_code == 0, res.output
    fresh, donated = _toy_runs(own_folder / "fresh"), _toy_runs(own_folder / "donated")
    pd.testing.assert_frame_equal(donated, fresh)
    assert not np.allclose(fresh["nmi"], _toy_runs(own_folder / "out")["nmi"])


def test_a_defect_of_ones_own_estimator_stops_the_table_in_one_line(own_folder):
    """A TypeError in its fit_transform, or sys.exit, is a defect: one line naming the
    method, exit 1; a ValueError is a run it cannot cluster, recorded as failed (here: every
    run, exit 1)."""
    broken = OWN_MODULE.replace("rng = np.random", "len(None)\n        rng = np.random")
    res = CliRunner().invoke(main, ["run", _own(own_folder, broken), "--out", "out"])
    assert res.exit_code == 1 and "Traceback" not in res.output, res.output
    assert ("docfact: error: methods.Toy (own_mf:Projection) at k = " in res.output
            and "TypeError: object of type 'NoneType' has no len()" in res.output), res.output
    leaves = OWN_MODULE.replace("rng = np.random", "raise SystemExit(3)\n        rng = np.random")
    res = CliRunner().invoke(main, ["run", _own(own_folder, leaves), "--out", "out3"])
    assert res.exit_code == 1 and "at k = " in res.output and "SystemExit: 3" in res.output
    refuses = OWN_MODULE.replace("rng = np.random",
                                 "raise ValueError('p')\n        rng = np.random")
    res = CliRunner().invoke(main, ["run", _own(own_folder, refuses), "--out", "out2"])
    assert res.exit_code == 1 and "Toy failed on every run" in res.output, res.output
    assert (_toy_runs(own_folder / "out2").status == "failed").all()


@pytest.mark.parametrize("returned, message", [
    ("np.asarray(X @ R.T).T", "fit_transform returned shape (3, 45), expected V (45, "),
    ("np.asarray(X @ R.T)[:-1]", "expected V ("),
    ("np.zeros((X.shape[0], 0))", "expected V ("),
    ("np.full((X.shape[0], 2), None)", "returned V of object, not numbers"),
])
def test_an_estimator_returning_no_v_stops_the_table_in_one_line(own_folder, returned, message):
    """V transposed, short of a row, or not finite: one line saying what V must be, exit 1,
    where it reached the label reader (scikit-learn's messages about other things)."""
    bad = OWN_MODULE.replace("return np.asarray(X @ R.T)", f"return {returned}")
    res = CliRunner().invoke(main, ["run", _own(own_folder, bad), "--out", "out", "--jobs", "1"])
    assert res.exit_code == 1 and "Traceback" not in res.output, res.output
    assert "docfact: error: methods.Toy (own_mf:Projection) at k = " in res.output
    assert message in res.output, res.output


def test_an_estimator_returning_nan_fails_its_runs_with_the_reason(own_folder):
    """V with NaN or infinite entries is a fit that diverged on a draw: the run is recorded as
    failed with the reason, the other methods' rows kept (here every run: exit 1)."""
    bad = OWN_MODULE.replace("return np.asarray(X @ R.T)",
                             "return np.where(X.shape[0] % 2, np.nan, 1.0) * np.asarray(X @ R.T)")
    res = CliRunner().invoke(main, ["run", _own(own_folder, bad), "--out", "out", "--jobs", "1"])
    assert "Traceback" not in res.output, res.output
    runs = pd.read_csv(own_folder / "out" / "runs.csv")
    toy, km = runs[runs.method == "Toy"], runs[runs.method == "KM"]
    assert (km.status == "ok").all() and len(toy) == len(km)
    failed = toy[toy.status == "failed"]
    assert len(failed) and failed.error.str.fullmatch(
        "ValueError: fit_transform returned V with NaN or infinite entries").all()


def test_an_estimator_without_n_iter_or_objective_is_recorded_without_them(own_folder):
    """scikit-learn's TruncatedSVD, named as module:Class, follows all of the contract but
    n_iter_ and objective_: its runs are recorded, those fields empty."""
    cfg = _own(own_folder, None, "sklearn.decomposition:TruncatedSVD")
    res = CliRunner().invoke(main, ["run", cfg, "--out", "out", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    toy_runs = _toy_runs(own_folder / "out")
    assert (toy_runs.status == "ok").all() and toy_runs.objective.isna().all()


ENGINE_MODULE = OWN_MODULE.replace(  # taking the engine's parameters, as plot convergence asks
    "*, scale=1.0, random_state=None", "*, scale=1.0, random_state=None, "
    "track_objective=False, n_restarts=1, min_iter=0, max_iter=10").replace(
    "self.random_state = random_state", "self.random_state = random_state\n"
    "        self.track_objective, self.n_restarts = track_objective, n_restarts\n"
    "        self.min_iter, self.max_iter = min_iter, max_iter")


def test_convergence_of_an_estimator_keeping_one_objective_is_one_line(own_folder):
    """plot convergence of an estimator that takes the engine's parameters but keeps its last
    objective only: one line, no figure."""
    res = CliRunner().invoke(main, ["plot", "convergence", _own(own_folder, ENGINE_MODULE),
                                    "--k", "2", "--methods", "Toy", "--out", "c"])
    assert res.exit_code != 0 and "Traceback" not in res.output, res.output
    assert res.output.strip().splitlines() == [
        "docfact: error: Toy keeps no objective per iteration to draw (objective_, as "
        "docfact's factorizations with track_objective)"] and not (own_folder / "c").exists()


def test_convergence_draws_by_default_the_factorizations_taking_the_engines_parameters(
        own_folder):
    """An estimator of one's own without track_objective and the others is left out of plot
    convergence's default (docfact's NMF is drawn); named with --methods, one line says what
    it lacks."""
    cfg = _own(own_folder, OWN_MODULE)
    spec = yaml.safe_load(open(cfg))
    spec["methods"]["NMF"] = {"algorithm": "nmf"}
    (own_folder / cfg).write_text(yaml.safe_dump(spec))
    res = CliRunner().invoke(main, ["plot", "convergence", cfg, "--k", "2", "--iterations", "5",
                                    "--out", "c"])
    assert res.exit_code == 0, res.output
    assert set(pd.read_csv(own_folder / "c" / "convergence.csv").method) == {"NMF"}
    res = CliRunner().invoke(main, ["plot", "convergence", cfg, "--k", "2", "--methods", "Toy",
                                    "--out", "d"])
    assert res.exit_code == 2 and res.output.strip().splitlines() == [
        "docfact: error: Toy take(s) none of the engine's parameters track_objective, "
        "n_restarts, min_iter, max_iter, which plot convergence sets (one start, the "
        "objective at every iteration)"], res.output


def test_convergence_of_an_estimator_with_a_defect_is_one_line(own_folder):
    """plot convergence of an estimator of one's own whose fit_transform raises (a KeyError,
    not a run the table records as failed): one line naming the method, as `docfact run`."""
    broken = ENGINE_MODULE.replace("rng = np.random", "{}['boom']\n        rng = np.random")
    res = CliRunner().invoke(main, ["plot", "convergence", _own(own_folder, broken), "--k", "2",
                                    "--methods", "Toy", "--out", "c"])
    assert res.exit_code != 0 and "Traceback" not in res.output, res.output
    assert res.output.strip().splitlines() == [
        "docfact: error: Toy at k = 2, run 0: KeyError: 'boom'"]
    assert not (own_folder / "c").exists()


def test_sub_runs_chosen_by_an_objective_ones_own_estimator_lacks_is_one_line(own_folder):
    """best_by: objective with an estimator that sets no objective_: one line naming it, exit 1,
    no run recorded (its sub-runs could not be chosen as the protocol says)."""
    cfg = _own(own_folder, None, "sklearn.decomposition:TruncatedSVD")
    text = yaml.safe_load(open(cfg))
    text["protocol"].update(best_of=2, best_by="objective")
    text["methods"].pop("KM")
    (own_folder / cfg).write_text(yaml.safe_dump(text))
    res = CliRunner().invoke(main, ["run", cfg, "--out", "out", "--jobs", "1", "--quiet"])
    assert res.exit_code == 1 and "Traceback" not in res.output, res.output
    assert res.output.strip().splitlines()[-1] == (
        "docfact: error: protocol.best_by: objective: methods.Toy "
        "(sklearn.decomposition:TruncatedSVD) sets no objective_ to choose its sub-runs by")


@pytest.mark.parametrize("algorithm, module, message", [
    ("no_such_mf:Projection", None, "no module no_such_mf in the current folder or on PYTHONPATH"),
    ("own_mf:Nope", OWN_MODULE, "own_mf.py) has no Nope"),
    ("own_mf:np", OWN_MODULE, "not a scikit-learn estimator"),
    ("own_mf:Projection", "import numpyy\n", "importing own_mf failed: No module named 'numpyy'"),
    ("own_mf:Projection", "import own\n", "importing own_mf failed: No module named 'own'"),
    ("own_mf:Projection", "def f(:\n", "importing own_mf failed: SyntaxError"),
    ("own_mf:Projection", "raise RuntimeError('boom')\n", "failed: RuntimeError: boom"),
    ("own mf", None, "unknown algorithm 'own mf'; known: "),
    ("own_mf:Projection", OWN_MODULE.replace(", random_state=None", "").replace(
        "self.random_state = random_state", ""), "takes no random_state, which the protocol"),
    ("own_mf:Projection", OWN_MODULE.replace("*, scale=1.0", "*, scale, alpha"),
     "Projection needs parameter(s) alpha"),
    ("own_mf:Projection", OWN_MODULE.replace("self.scale = scale", "raise ValueError('no')"),
     "Projection(scale) raised ValueError: no"),
    ("own_mf:Projection", OWN_MODULE.replace("self.scale = scale", "raise TypeError('no')"),
     "Projection(scale) raised TypeError: no"),
    ("own_mf.py:Projection", OWN_MODULE, "name the module, not its file: own_mf:Projection"),
    ("./own_mf:Projection", OWN_MODULE, "name the module, not its file: own_mf:Projection"),
])
def test_an_estimator_of_ones_own_that_cannot_be_had_is_one_line(own_folder, algorithm, module,
                                                                 message):
    res = CliRunner().invoke(main, ["validate", _own(own_folder, module, algorithm, scale=1.0)])
    assert res.exit_code == 2 and message in res.output, res.output
    assert len(res.output.strip().splitlines()) == 1, res.output
