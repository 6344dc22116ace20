"""Audit landscapes: scored on the readings' scale, restricted to the methods audited."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from docfact.experiment.store import FIELDS
from docfact.report.landscape import landscape
from docfact.report.readings import SE_FLOOR

CONFIG = {"name": "t", "data": {"view": "gnmf_tdt2"}, "protocol": {"k": "3..5", "runs": 3},
          "methods": {"M": {"algorithm": "kmeans"}, "O": {"algorithm": "kmeans"}},
          "report": {"unit": "fraction"},
          "published": {"source": "s",
                        "ac": {"M": {3: "0.9", 5: "0.8"}, "O": {3: "0.5", 5: "0.5"}},
                        "nmi": {"M": {3: "0.7", 5: "0.6"}, "O": {3: "0.5", 5: "0.5"}}}}


def test_score_is_the_readings_score_of_the_audited_rows(tmp_path):
    ac = {3: [0.8, 0.9, 1.0, 0.0], 5: [1.0, 1.0, 1.0, 0.0]}
    nmi = {3: [0.7, 0.7, 0.7, 0.0], 5: [0.5, 0.6, 0.7, 0.0]}
    runs = [{"k": k, "run": r, "method": m, "status": "ok", "ac": ac[k][r], "nmi": nmi[k][r],
             "n_docs": 100} for k in (3, 5) for r in range(4) for m in ("M", "O")]
    pd.DataFrame(runs).reindex(columns=FIELDS).to_csv(tmp_path / "runs.csv", index=False)
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(CONFIG))
    got = landscape(tmp_path / "c.yaml", {"r": tmp_path}, [3, 5], 3, ["M"]).iloc[0]
    # AC: ours (0.9 + 1.0) / 2 against (0.9 + 0.8) / 2, SE of the average over k of the means
    se_ac = np.sqrt(0.1 ** 2 / 3) / 2
    se_nmi = np.sqrt(0.1 ** 2 / 3) / 2
    z_ac = 0.1 / max(se_ac, SE_FLOOR)
    z_nmi = abs(0.65 - 0.65) / max(se_nmi, SE_FLOOR)
    assert got["rows"] == 2 and got["runs_per_k"] == "3 3"
    assert got["score"] == pytest.approx(np.mean([z_ac, z_nmi]))
    assert got["mean_abs_diff"] == pytest.approx(np.mean([0.1, 0.0]))
    assert got["M ac"] == pytest.approx(0.95) and "O ac" not in got.index
    assert got["agree"] == 1  # NMI within 0.02; AC 0.1 away, beyond 1.96 SE


@pytest.mark.parametrize("args, words", [
    (["--k", "3", "foo"], "error: each reading is NAME=FOLDER"),
    (["--k", "3,x", "r=."], "error: --k: comma-separated integers, not '3,x'"),
    (["--k", "3", "r=nope"], "error: nope/runs.csv: No such file or directory"),
])
def test_the_landscape_command_refuses_bad_arguments_in_one_line(tmp_path, capsys, args, words):
    """python -m docfact.report.landscape: a reading without its folder, a k that is no
    integer or a folder without runs: one line and exit 1 or 2, no traceback, nothing written."""
    from docfact.report.landscape import main

    config = Path(__file__).resolve().parents[1] / "configs" / "lccf_tdt2_reference.yaml"
    with pytest.raises(SystemExit) as e:
        main([str(config), str(tmp_path / "l.csv"), "--runs", "2", "--methods", "KM", *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code in (1, 2) and err[-1].endswith(words), err
    assert not (tmp_path / "l.csv").exists()
