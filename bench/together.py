"""What taking the factorizations of a run side by side would gain: the products K Y of the
seven factorizations of one TDT2 RCF run (CF, LCCF, CCF, SemiLCCF, CNPCF, GDCF, RCF: each a
single start of k columns after the restarts) taken one at a time, as docfact does, against
all seven in one product of 7k columns (engine.dot_all: the same digits), on the largest draw
of the tables (rcf_tdt2_t2, k = 30, run 0: N = 9394), float32, one thread, medians of
interleaved rounds. FLOOR.md bounds the gain from scipy's loops alone; this measures it.

    python bench/together.py [--rounds 7] [--out bench/TOGETHER.md]
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from tabulate import tabulate
from threadpoolctl import threadpool_limits

from docfact.algorithms.kernels import LinearKernel
from docfact.experiment.plan import Plan
from docfact.experiment.results import read_setup

ROOT = Path(__file__).resolve().parents[1]
TABLE, K, RUN, FITS = "rcf_tdt2_t2", 30, 0, 7
WIDTHS = (9, 15, 21, 30)


def largest_kernel() -> LinearKernel:
    """The float32 kernel of rcf_tdt2_t2's run 0 at k = 30, as the run prepares it."""
    config, _ = read_setup(ROOT / "results" / TABLE)
    plan = Plan.of(config, [(K, RUN)])
    corpus = plan.corpus()
    task = plan.task(plan.base_matrix(corpus), corpus.y, K, RUN)
    return LinearKernel(plan.prepare(task.X)).astype(np.float32)


def measure(Kf: LinearKernel, rounds: int) -> list:
    """[{columns, one at a time ms, together ms, ratio}] per width, medians of `rounds`."""
    rng = np.random.default_rng(0)
    rows = []
    with threadpool_limits(1):
        for k in WIDTHS:
            Ys = [rng.random((Kf.n, k)).astype(np.float32) for _ in range(FITS)]
            apart, together = [], []
            for _ in range(rounds):
                t = time.process_time()
                for Y in Ys:
                    Kf.dot(Y)
                apart.append(time.process_time() - t)
                t = time.process_time()
                Kf.dot_all(Ys)
                together.append(time.process_time() - t)
            a, b = statistics.median(apart), statistics.median(together)
            rows.append({"k": k, "columns together": FITS * k, "one at a time ms": 1000 * a,
                         "together ms": 1000 * b, "ratio": a / b})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("bench/TOGETHER.md"))
    args = parser.parse_args()
    Kf = largest_kernel()
    rows = measure(Kf, args.rounds)
    text = "\n".join([
        "# The factorizations of a run side by side", "",
        f"Made by `bench/together.py` (its docstring says how): {TABLE}, k = {K}, run {RUN}, "
        f"N = {Kf.n}, nnz = {Kf.X.nnz}; the products of {FITS} fits of k columns each, one at "
        f"a time against together, float32, one thread, median of {args.rounds} rounds.", "",
        tabulate(rows, headers="keys", floatfmt=".2f", tablefmt="github"), ""])
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
