"""The committed digits depend on NumPy's SIMD loops and OpenBLAS's kernels: docfact pins them."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from docfact.config import load_config
from docfact.digits import ABOVE_AVX2, deviation, has_avx2
from docfact.experiment.plan import Plan
from docfact.experiment.runner import run
from docfact.experiment.sweep import baseline_config
from tests.test_runner import run_cli, small_config

ROOT = Path(__file__).resolve().parents[1]
AVX2 = pytest.mark.skipif(not has_avx2(), reason="the committed loops need x86-64 with AVX2")


def _python(code: str, **env) -> str:
    """Run code in a fresh interpreter without the pinning variables (plus env); its stdout."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")}
    out = subprocess.run([sys.executable, "-c", code], env={**base, **env}, cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


@AVX2
def test_this_test_process_computes_with_the_committed_loops():
    assert deviation() is None


@AVX2
def test_importing_docfact_first_pins_numpy_and_openblas():
    code = ("import docfact, numpy, os; from docfact.digits import deviation; "
            "print(os.environ['NPY_DISABLE_CPU_FEATURES'], os.environ['OPENBLAS_CORETYPE'], "
            "deviation(), sep='|')")
    assert _python(code) == f"{' '.join(ABOVE_AVX2)}|Haswell|None"


@AVX2
def test_the_users_own_settings_are_kept_and_reported():
    code = ("import docfact, numpy, os; from docfact.digits import deviation; "
            "print(os.environ['OPENBLAS_CORETYPE'], deviation(), sep='|')")
    kept, reason = _python(code, OPENBLAS_CORETYPE="Sandybridge").split("|")
    assert kept == "Sandybridge"
    assert "Sandybridge kernels" in reason and "OPENBLAS_CORETYPE=Haswell" in reason


@AVX2
def test_a_run_whose_labels_depend_on_the_loops_gives_the_committed_row(tmp_path):
    """LCCF on TDT2 in float64 (rcf_tdt2_t2_reference's draw k = 9, run 0, as that table
    computed it before its float32 regeneration), a draw whose labels moved when NumPy ran its
    AVX-512 loops, gives the committed row (`git show 2e9dbde:results/rcf_tdt2_t2_reference/
    runs.csv`, AC 0.741). Without AVX-512 NumPy picks the AVX2 loops itself, so here this holds
    the committed row, not the pin (which test_importing_docfact_first_pins_numpy_and_openblas
    holds)."""
    text = (ROOT / "configs" / "rcf_tdt2_t2_reference.yaml").read_text()
    float64 = tmp_path / "rcf_tdt2_t2_reference.yaml"  # the table's numerics line dropped
    float64.write_text("".join(line for line in text.splitlines(keepends=True)
                               if not line.startswith("numerics:")))
    config = baseline_config(load_config(float64), ["LCCF"])
    out = run(Plan.of(config, [(9, 0)]), tmp_path / "lccf", jobs=1, progress=False)
    new = pd.read_csv(out / "runs.csv").iloc[0]
    committed = {"ac": 0.7414311485267588, "nmi": 0.6912720996208189,
                 "objective": 3251.2162911984447}
    assert {column: new[column] for column in committed} == committed


def test_a_run_off_the_committed_loops_says_so_in_one_line(tmp_path, monkeypatch):
    """The runner (shared by run, check and sweep) warns; the command line shows one line."""
    from docfact.experiment import runner

    monkeypatch.setattr(runner, "deviation", lambda: "NumPy uses its X86_V4 loops")
    res = run_cli("run", small_config(tmp_path, runs=1, k=(2,)), "--jobs", "1",
              "--quiet", "--out", tmp_path / "out")
    assert res.exit_code == 0, res.output
    notes = [line for line in res.stderr.splitlines() if line.startswith("docfact: note:")]
    assert notes == ["docfact: note: NumPy uses its X86_V4 loops; runs may differ from the "
                     "committed results in their last digits, and some then in their labels"]


SCRIPTS = sorted([*ROOT.glob("bench/*.py"), *ROOT.glob("results/*/*.py")])


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_script_imports_docfact_before_any_numeric_module(path):
    """A script of bench/ or results/ run as `python script.py` computes with the committed
    loops only when docfact is imported before NumPy (a package that is not the standard
    library may load NumPy): results/rcf_constraints/experiment.py, importing NumPy first,
    recomputed a SemiLCCF fit to AC 0.321 where `docfact run` records 0.371."""
    imported = []
    for node in ast.parse(path.read_text()).body:  # the module's top-level imports, in order
        if isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported.append(node.module)
    first = next(name for name in imported
                 if name.split(".")[0] not in sys.stdlib_module_names)
    assert first == "docfact"
