"""Benchmarks, side by side in one process on the same matrices (never timed assertions).

TDT2's K largest classes (K = 10 by default), tf-idf weighted, K factors, one BLAS thread (as
the runner's workers). Prints a Markdown table of medians and ratios; `--out FILE` also writes
it and `--readme FILE` replaces the file's benchmark section (between `<!-- benchmark:start/end
-->`). The full tables' run times are in the reproduction report (`docfact report`).

    python bench/bench.py [--classes 10] [--repeat 3] [--out bench/RESULTS.md] [--readme README.md]
"""

import argparse
import os
import platform
import time
import tracemalloc

import numpy as np
from sklearn.decomposition import NMF as SKNMF
from threadpoolctl import threadpool_limits

from docfact.algorithms import CF, GNMF, LCCF, NMF, knn_graph, polynomial_kernel
from docfact.datasets import apply_view, load
from docfact.datasets.preprocess import weight
from docfact.report.readme import splice

ITER = dict(n_restarts=1, min_iter=0, max_iter=100)  # 100 iterations from one start


def data(K):
    """The tf-idf documents of TDT2's K largest classes."""
    return weight(apply_view(load("tdt2"), {"dataset": "tdt2", "largest": K}).X)


def median_times(fns: dict, repeat: int) -> dict:
    """{name: median seconds}, the functions timed in turn, `repeat` rounds: a slow spell of
    the machine then falls on every function of a round, not on one function's block."""
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {name: float(np.median(ts)) for name, ts in times.items()}


def peak_mb(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--readme")
    args = ap.parse_args()
    K = args.classes
    X = data(K)
    n, m = X.shape
    S = knn_graph(X, 5, "cosine")
    W = knn_graph(X, 5, "binary")
    Kdense = (X @ X.T).toarray()
    Kpoly = polynomial_kernel(X, 2)
    r = args.repeat
    with threadpool_limits(1):
        t = median_times({
            "nmf": lambda: NMF(K, random_state=0, **ITER).fit_transform(X),
            "sk_nmf": lambda: SKNMF(K, solver="mu", init="random", tol=0, max_iter=100,
                                    random_state=0).fit_transform(X),
            "gnmf": lambda: GNMF(K, random_state=0, **ITER).fit_transform(X, W=W),
            "cf_sparse": lambda: CF(K, random_state=0, **ITER).fit_transform(X),
            "cf_dense": lambda: CF(K, kernel="precomputed", random_state=0,
                                   **ITER).fit_transform(Kdense),
            "lccf_fit": lambda: LCCF(K, random_state=0).fit_transform(X, S=S),
            "graph": lambda: knn_graph(X, 5, "cosine"),
            "poly_kernel": lambda: polynomial_kernel(X, 2),
        }, r)
        t |= median_times({  # the dense-kernel fits take minutes: once
            "lccf_dense_fit": lambda: LCCF(K, kernel="precomputed", random_state=0)
            .fit_transform(Kdense, S=S),
            "cf_poly_fit": lambda: CF(K, kernel="precomputed", random_state=0)
            .fit_transform(Kpoly),
        }, 1)
        mem_poly = peak_mb(lambda: CF(K, kernel="polynomial", random_state=0, n_restarts=1,
                                      max_iter=5).fit_transform(X))
    rows = [
        ("NMF, 100 iterations", t["nmf"], "sklearn NMF(solver='mu')", t["sk_nmf"],
         t["nmf"] / t["sk_nmf"], "<= 1.0"),
        ("GNMF, 100 iterations", t["gnmf"], "docfact NMF", t["nmf"], t["gnmf"] / t["nmf"],
         "<= 1.3"),
        ("CF sparse form, 100 iterations", t["cf_sparse"], "CF dense K", t["cf_dense"],
         t["cf_dense"] / t["cf_sparse"], ">= 5x faster"),
        ("LCCF fit (10 starts x 31 it. + 69), sparse", t["lccf_fit"], "same, dense K",
         t["lccf_dense_fit"], t["lccf_dense_fit"] / t["lccf_fit"], ""),
        ("CF degree-2 kernel fit (K given)", t["cf_poly_fit"], "building K", t["poly_kernel"],
         None, f"peak {mem_poly:.0f} MiB"),
        ("p-NN graph (p = 5, cosine)", t["graph"], "", None, None, ""),
    ]
    lines = [f"TDT2, {K} largest classes: {n} documents x {m} terms, K = {K}; one BLAS thread; "
             f"median of {r}; {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} cores.", "",
             "| measured | seconds | against | seconds | ratio | target |",
             "|---|---|---|---|---|---|"]
    for a, ta, b, tb, ratio, target in rows:
        lines.append(f"| {a} | {ta:.2f} | {b} | {'' if tb is None else f'{tb:.2f}'} | "
                     f"{'' if ratio is None else f'{ratio:.2f}'} | {target} |")
    emit("\n".join(lines), args.out, args.readme, "benchmark")


def emit(text: str, out, readme, section: str) -> None:
    """Print a benchmark's Markdown, write it to `out` and into `readme`'s `section`."""
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")
    if readme:
        splice(readme, section, text)


if __name__ == "__main__":
    main()
