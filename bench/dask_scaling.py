"""One small table on a dask LocalCluster of 1 and 2 workers (one thread each), beside joblib.

The table: gnmf_reuters (K-means, LSI+K-means, NMF, GNMF on Reuters) at k = 2..5, 2 runs each,
recomputed into fresh folders. Per backend: the command's wall time (starting the cluster
included), the time per run, and the efficiency against the 1-worker cluster,
T_1 / (workers x T_workers). Every backend must write the same runs.csv, byte for byte.
The machine's load average is printed beside: on a shared machine the second worker may find
no free core. joblib runs the tasks of one effective job in the submitting process (its rule
for n_jobs = 1, and a 1-worker cluster counts as one job), so the 1-worker rows are sequential
runs plus, for dask, the cluster's start.

    python bench/dask_scaling.py [--out bench/DASK.md]
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
import os
import tempfile
import time
from pathlib import Path

from docfact.config import load_config
from docfact.experiment.runner import run

from bench import emit  # bench/bench.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
SETUPS = (("dask", 1), ("dask", 2), ("loky", 2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    args = ap.parse_args()
    config = load_config(ROOT / "configs" / "gnmf_reuters.yaml").with_overrides(
        k=range(2, 6), runs=2)
    n_runs = len(config.k) * config.runs
    rows, outputs = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for backend, workers in SETUPS:
            load = os.getloadavg()[0]
            t = time.perf_counter()
            out = run(config, Path(tmp) / f"{backend}{workers}", jobs=workers, progress=False,
                      backend=backend)
            wall = time.perf_counter() - t
            outputs[(backend, workers)] = (out / "runs.csv").read_bytes()
            rows.append((backend, workers, wall, load))
    same = len(set(outputs.values())) == 1
    base = rows[0][2]  # dask, 1 worker: joblib runs it sequentially (module docstring)
    lines = [f"gnmf_reuters at k = 2..5, 2 runs each ({n_runs} runs of 4 methods), fresh folders; "
             f"{os.cpu_count()} cores shared with other work (load average at the start of "
             "each setup in the last column). Efficiency = T(1 worker) / (workers x T), "
             "against dask's 1 worker. With one worker joblib runs the tasks in the "
             "submitting process (its rule for one job), so the 1-worker rows are sequential "
             "runs plus, for dask, starting the cluster.", "",
             "| backend | workers (1 thread each) | wall s | s per run | efficiency | "
             "load average |", "|---|---|---|---|---|---|"]
    for backend, workers, wall, load in rows:
        lines.append(f"| {'dask LocalCluster' if backend == 'dask' else 'joblib loky'} | "
                     f"{workers} | {wall:.1f} | {wall / n_runs:.2f} | "
                     f"{base / (workers * wall):.2f} | {load:.1f} |")
    lines += ["", f"runs.csv identical across the setups: {'yes' if same else 'NO'}."]
    emit("\n".join(lines), args.out, None, "")


if __name__ == "__main__":
    main()
