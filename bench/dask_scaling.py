"""One table on a dask LocalCluster of 1 and 2 workers (one thread each), beside joblib.

The table: gnmf_reuters (K-means, LSI+K-means, NMF, GNMF on Reuters) at k = 2..10, 4 runs each,
recomputed into fresh folders. The cluster is started before the clock (as a real cluster is
running before `--scheduler` points at it), so the time is the runs': the time per run and the
efficiency against one worker, T_1 / (workers x T_workers), say how the runs scale. The cluster's
start is timed apart. Every setup must write the same runs.csv, byte for byte. The machine's load
average is printed beside: on a shared machine the second worker may find no free core.

    python bench/dask_scaling.py [--runs 4] [--out bench/DASK.md]
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
import os
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from dask.distributed import Client, LocalCluster

from docfact.config import load_config
from docfact.experiment.plan import Plan
from docfact.experiment.runner import run

from bench import emit  # bench/bench.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
SETUPS = (("dask", 1), ("dask", 2), ("loky", 1), ("loky", 2))


@contextmanager
def cluster(backend: str, workers: int):
    """(scheduler address or None, seconds to start it) of a LocalCluster of `workers`
    single-threaded workers for dask; nothing for joblib."""
    if backend != "dask":
        yield None, 0.0
        return
    t = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as local, Client(local):
        yield local.scheduler_address, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--out")
    args = ap.parse_args()
    config = load_config(ROOT / "configs" / "gnmf_reuters.yaml").with_overrides(
        k=range(2, 11), runs=args.runs)
    n_runs = len(config.k) * config.runs
    rows, outputs = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for backend, workers in SETUPS:
            with cluster(backend, workers) as (scheduler, start):
                load = os.getloadavg()[0]
                t = time.perf_counter()
                out = run(Plan.of(config), Path(tmp) / f"{backend}{workers}", jobs=workers,
                          progress=False, backend=backend, scheduler=scheduler)
                wall = time.perf_counter() - t
            outputs[(backend, workers)] = (out / "runs.csv").read_bytes()
            rows.append((backend, workers, start, wall, load))
    same = len(set(outputs.values())) == 1
    base = {backend: wall for backend, workers, _, wall, _ in rows if workers == 1}
    lines = [f"gnmf_reuters at k = 2..10, {config.runs} runs each ({n_runs} runs of 4 methods), "
             f"fresh folders; {os.cpu_count()} cores shared with other work (load average at "
             "the start of each setup in the last column). The cluster is started before the "
             "clock (its start in its own column); efficiency = T(1 worker) / (workers x T) "
             "within each backend. joblib runs one job in the submitting process.", "",
             "| backend | workers (1 thread each) | start s | wall s | s per run | efficiency | "
             "load average |", "|---|---|---|---|---|---|---|"]
    for backend, workers, start, wall, load in rows:
        lines.append(f"| {'dask LocalCluster' if backend == 'dask' else 'joblib loky'} | "
                     f"{workers} | {start:.1f} | {wall:.1f} | {wall / n_runs:.2f} | "
                     f"{base[backend] / (workers * wall):.2f} | {load:.1f} |")
    lines += ["", f"runs.csv identical across the setups: {'yes' if same else 'NO'}."]
    emit("\n".join(lines), args.out, None, "")


if __name__ == "__main__":
    main()
