"""LCCF's iteration count: the table's 100 in all, or the reference code's 100 after the restarts?

docfact's engine continues the best of 10 random starts (31 iterations each) to max_iter = 100
iterations in all, as GNMF_Multi.m v2.1 counts. LCCF_Multi.m (v2.0, April 2010, the code of
the LCCF paper's time) continues it for maxIter = 100 iterations after the 30 of the restarts:
max_iter = 131 in docfact's count. On 16 of the primary table's own draws (`lccf_tdt2`,
k = 3..10, runs 0-1; the same documents, seeds and read-out as `docfact run`), fits CF, LCCF,
CF-NCW and LCCF-NCW with max_iter 100, 131 and 300, recording AC, NMI and the
objective at the end (track_objective: the factors are the same; runs.csv records the
objective at the restarts' selection). The table's config and runs.csv are read as they were
when this was measured (commit TABLE_AT; git history): the table then ran 100 iterations and
`table_ac`, its AC, equals the 100 column; it now runs 131 and reads CF and CF-NCW by argmax.
Writes iterations.csv beside this file, in about twenty CPU-minutes.
Run from the repository root: .venv/bin/python results/lccf_iterations/experiment.py
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import dataclasses
import io
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from docfact import metrics
from docfact.experiment.plan import Plan, load

HERE = Path(__file__).parent
TABLE, KS, RUNS = "lccf_tdt2", range(3, 11), range(2)
METHODS, CAPS = ("CF", "LCCF", "CF-NCW", "LCCF-NCW"), (100, 131, 300)
TABLE_AT = "5b8a950"


def at(path: str) -> str:
    """The text of the file `path` at commit TABLE_AT."""
    return subprocess.run(["git", "show", f"{TABLE_AT}:{path}"], capture_output=True,
                          text=True, check=True).stdout


def rows():
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp, f"{TABLE}.yaml")
        config.write_text(at(f"configs/{TABLE}.yaml"))
        plan = Plan.of(load(config), [(k, r) for k in KS for r in RUNS])
    methods = {m.name: m for m in plan.config.methods}
    table = pd.read_csv(io.StringIO(at(f"results/{TABLE}/runs.csv")))
    table = table.set_index(["k", "run", "method"]).ac
    for task, shared in plan.draws():
        k, r = task.k, task.run
        for name in METHODS:
            m = methods[name]
            row = {"table": TABLE, "k": k, "run": r, "n": task.X.shape[0], "method": name,
                   "table_ac": table.get((k, r, name), np.nan)}
            for cap in CAPS:
                capped = dataclasses.replace(m, params={**m.params, "max_iter": cap,
                                                        "track_objective": True})
                out = capped.cluster(shared, k, plan.seed(task, name))
                row[f"ac_{cap}"] = metrics.accuracy(task.y, out["labels"])
                row[f"nmi_{cap}"] = metrics.nmi(task.y, out["labels"])
                row[f"objective_{cap}"] = out["objective"]
            print(row, flush=True)
            yield row


if __name__ == "__main__":
    pd.DataFrame(rows()).to_csv(HERE / "iterations.csv", index=False, float_format="%.6g")
