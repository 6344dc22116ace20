"""Readings landscapes: the score against the published rows, computed by hand."""

import numpy as np
import pandas as pd
import pytest

from docfact.report.landscape import SE_FLOOR, score


class Published:
    scale = 1.0
    published = {"ac": {"M": {3: (0.9, None), 5: (0.8, None)}},
                 "nmi": {"M": {3: (0.7, None), 5: (0.6, None)}}}


def test_score_is_the_mean_gap_in_standard_errors_with_a_floor():
    ac = {3: [0.8, 0.9, 1.0], 5: [1.0, 1.0, 1.0]}
    nmi = {3: [0.7, 0.7, 0.7], 5: [0.5, 0.6, 0.7]}
    runs = pd.DataFrame([{"k": k, "run": r, "method": "M", "status": "ok", "ac": ac[k][r],
                          "nmi": nmi[k][r]} for k in (3, 5) for r in range(3)])
    got = score(runs, Published(), ["M"], [3, 5])
    se = 0.1 / np.sqrt(3)
    expected = np.mean([0.0, 0.2 / SE_FLOOR, 0.0, 0.0 / se])
    assert got["score"] == pytest.approx(expected) and got["cells"] == 4
    assert got["mean_abs_diff"] == pytest.approx(np.mean([0.0, 0.2, 0.0, 0.0]))
    assert got["M ac"] == pytest.approx(np.mean([0.9, 1.0]))
