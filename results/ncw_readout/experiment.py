"""How the NC-weighted factorizations' V is read: k-means on its raw rows, on unit rows, argmax.

The LCCF configs read NMF-NCW, CF-NCW and LCCF-NCW by k-means on unit-length rows of V. Their
notes had justified it by 4 uncommitted runs and by a mechanism (the weighted problem's V
carrying each document's weight d_i^1/2 as a row scale), both measured here. On 20 of the
primary table's own draws (`lccf_tdt2`, k = 5 and 10, runs 0-9; the documents, seeds and fits
of `docfact run`), refits each of the three and reads its V three ways with the table's label
reader and label seed (Method.read_out): unit rows (the table's read-out then: `table_ac`, from
its runs.csv at commit TABLE_AT, checks it), raw rows, and argmax (Xu et al.'s). Also records
how V's row norms follow d^1/2 (Spearman correlation; d = X X^T 1, the NC degrees) and the
share of the documents in the largest cluster of each read-out.
Writes readout.csv beside this file, in a few CPU-minutes.
Run from the repository root: .venv/bin/python results/ncw_readout/experiment.py
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import dataclasses
import io
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from docfact import metrics
from docfact.algorithms.kernels import LinearKernel
from docfact.experiment.methods import split_seed
from docfact.experiment.plan import Plan, load

HERE = Path(__file__).parent
TABLE, KS, RUNS = "lccf_tdt2", (5, 10), range(10)
TABLE_AT = "0af77bd"  # the table measured; it reads NMF-NCW and CF-NCW by argmax since
METHODS = ("NMF-NCW", "CF-NCW", "LCCF-NCW")
READERS = {"unit": {"rule": "kmeans", "replicates": 20, "normalize_rows": True},
           "raw": {"rule": "kmeans", "replicates": 20}, "argmax": {"rule": "argmax"}}


def rows():
    plan = Plan.of(load(f"configs/{TABLE}.yaml"), [(k, r) for k in KS for r in RUNS])
    methods = {m.name: m for m in plan.config.methods}
    text = subprocess.run(["git", "show", f"{TABLE_AT}:results/{TABLE}/runs.csv"],
                          capture_output=True, text=True, check=True).stdout
    table = pd.read_csv(io.StringIO(text)).set_index(["k", "run", "method"]).ac
    for task, shared in plan.draws():
        k, r, y = task.k, task.run, task.y
        X = shared.X
        d = LinearKernel(X).row_sums()
        for name in METHODS:
            m = methods[name]
            fit_seed, label_seed = split_seed(plan.seed(task, name))
            _, V = m.fit(shared, k, fit_seed)
            norms = np.linalg.norm(V, axis=1)
            readouts = {how: dataclasses.replace(m, labels=reader).read_out(V, k, label_seed)
                        for how, reader in READERS.items()}
            row = {"table": TABLE, "k": k, "run": r, "n": X.shape[0], "method": name,
                   "table_ac": table.get((k, r, name), np.nan),
                   "norm_vs_sqrt_d": stats.spearmanr(norms, np.sqrt(d)).statistic,
                   "norm_max_over_median": float(norms.max() / np.median(norms))}
            for how, labels in readouts.items():
                row[f"ac_{how}"] = metrics.accuracy(y, labels)
                row[f"nmi_{how}"] = metrics.nmi(y, labels)
                row[f"largest_{how}"] = np.bincount(labels).max() / len(labels)
            print(row, flush=True)
            yield row


if __name__ == "__main__":
    pd.DataFrame(rows()).to_csv(HERE / "readout.csv", index=False, float_format="%.6f")
