"""Benchmarks of the kernels `docfact run` computes with, against this machine's measured peak.

docfact is imported first, as `docfact run` does, so NumPy and OpenBLAS run the pinned loops
(docfact/digits.py); when they do not, the bench says so (a warning, and a line in its output).
One BLAS thread, as the runner's workers. Everything is timed side by side in one process,
`--repeat` rounds of every function in turn (a slow spell of the shared machine then falls on
each function of a round alike); medians are printed.

1. Peak: a triad (a = b + s c in NumPy, two passes, 40 bytes moved per element) for the
   bandwidth, a 2000 x 2000 GEMM for the flop rate (float64 and float32).
2. Kernels on TDT2's 10 largest classes (tf-idf, N documents, K = 10, R = 10 starts): each
   product's bytes and flops (algorithms/costs.py), its achieved GB/s and GFLOP/s, and the
   fraction of the peak of the resource that bounds it; RCF's W~ V also on the structured W~
   of products "auto" (graphs.ConstrainedGraph; 2% of each class labelled, alpha 0.5, p 5),
   whose dense blocks are read as the dense K is.
3. The form of K the cost model picks for a CF-family fit, against both forms timed, on
   row subsets of N documents: the fit's K products (10 starts x 31 iterations batched, 69
   more for the chosen start, building K for the dense form).
4. docfact's NMF per iteration against scikit-learn's NMF(solver="mu") on the same matrix.

    python bench/bench.py [--repeat 3] [--out bench/RESULTS.md] [--readme README.md]
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
import os
import platform
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import NMF as SKNMF
from threadpoolctl import threadpool_limits

from docfact.algorithms import NMF, costs, knn_graph
from docfact.algorithms.engine import numerics
from docfact.algorithms.graphs import ConstrainedGraph, propagation_factors
from docfact.algorithms.kernels import LinearKernel
from docfact.datasets import apply_view, load
from docfact.datasets.preprocess import weight
from docfact.digits import deviation
from docfact.experiment.sampling import sample_labelled
from docfact.report.readme import splice

K, R = 10, 10


def data(classes: int = 10):
    """(X, y): the tf-idf documents of TDT2's largest classes, CSR float64, and their classes."""
    corpus = apply_view(load("tdt2"), {"dataset": "tdt2", "largest": classes})
    return sp.csr_matrix(weight(corpus.X)), corpus.y


def structured_graph(X, y) -> ConstrainedGraph:
    """RCF's W~ as products "auto" hold it: 5-NN cosine graph, 2% of each class labelled,
    alpha 0.5 (the TDT2 tables' settings)."""
    W = knn_graph(X, 5, "cosine")
    return ConstrainedGraph(W, propagation_factors(W, sample_labelled(y, 0.02, 0, 10, 0), 0.5),
                            2.0, 1.0)


def block_entries(graph: ConstrainedGraph) -> int:
    """The entries of the structured W~'s dense blocks (sum_c n_c^2)."""
    return sum(len(idx) ** 2 for idx, _ in graph.blocks)


def structured_product(graph: ConstrainedGraph, c: int, itemsize: int) -> costs.Cost:
    """W~ V on the structured W~: each dense block read once and V's rows gathered and
    scattered, the sparse part as a CSR product (flops 2 per stored entry and column)."""
    dense = block_entries(graph)
    rows = sum(len(idx) for idx, _ in graph.blocks)
    nnz, n = graph.sparse.nnz, graph.shape[0]
    b = dense * itemsize + nnz * (itemsize + 4) + 2 * (n + 2 * rows) * c * itemsize
    f = 2 * (dense + nnz) * c
    m = costs.MACHINE
    return costs.Cost(b, f, b / m.dense_bandwidth + f / (m.dense_flops * 8 / itemsize))


def median_times(fns: dict, repeat: int) -> dict:
    """{name: median seconds}, the functions timed in turn, `repeat` rounds."""
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {name: float(np.median(ts)) for name, ts in times.items()}


def peaks(repeat: int) -> dict:
    """{"bandwidth": bytes/s, "float64"/"float32": flop/s} of one core."""
    rng = np.random.default_rng(0)
    n = 10_000_000
    a, b, c = rng.random(n), rng.random(n), rng.random(n)

    def triad():
        np.multiply(c, 3.0, out=a)
        a.__iadd__(b)

    g = {dt: (rng.random((2000, 2000)).astype(dt), rng.random((2000, 2000)).astype(dt))
         for dt in ("float64", "float32")}
    t = median_times({"triad": triad, **{dt: (lambda A=A, B=B: A @ B)
                                         for dt, (A, B) in g.items()}}, repeat)
    return {"bandwidth": 40 * n / t["triad"],
            **{dt: 2 * 2000**3 / t[dt] for dt in ("float64", "float32")}}


def kernel_rows(X, graph: ConstrainedGraph, peak: dict, repeat: int) -> list:
    """(name, seconds, Cost, bound) of each product of an iteration, both precisions."""
    rng = np.random.default_rng(0)
    n = X.shape[0]
    Kd = (X @ X.T).toarray()
    fns, models = {}, {}
    for dt in ("float64", "float32"):
        Lc, Kc = LinearKernel(X.astype(dt)), Kd.astype(dt)
        b = np.dtype(dt).itemsize
        for c, what in ((K, "1 start"), (K * R, f"{R} starts batched")):
            Y = rng.random((n, c)).astype(dt)
            fns[f"sparse X (X^T Y), {what}, {dt}"] = lambda Lc=Lc, Y=Y: Lc.dot(Y)
            models[f"sparse X (X^T Y), {what}, {dt}"] = costs.sparse_product(*X.shape, X.nnz,
                                                                             c, b)
            fns[f"dense K Y or W~ V, {what}, {dt}"] = lambda Kc=Kc, Y=Y: Kc @ Y
            models[f"dense K Y or W~ V, {what}, {dt}"] = costs.dense_product(n, c, b)
            Gc = graph.astype(dt)
            fns[f"structured W~ V, {what}, {dt}"] = lambda Gc=Gc, Y=Y: Gc @ Y
            models[f"structured W~ V, {what}, {dt}"] = structured_product(graph, c, b)
    t = median_times(fns, repeat)
    rows = [machine(t, models)]
    for name, cost in models.items():
        dt = name.rsplit(", ", 1)[1]
        gbs, gfs = cost.bytes / t[name], cost.flops / t[name]
        frac_bw, frac_fl = gbs / peak["bandwidth"], gfs / peak[dt]
        rows.append((name, t[name], cost, gbs, gfs,
                     "bandwidth" if frac_bw >= frac_fl else "flops", max(frac_bw, frac_fl)))
    return rows


def machine(t: dict, models: dict) -> costs.Machine:
    """The rates of costs.Machine that fit this run's float64 timings: for each form, time =
    bytes / bandwidth + flops / rate solved on its 1-start and batched products."""
    rates = {}
    for form, prefix in (("sparse", "sparse X (X^T Y)"), ("dense", "dense K Y or W~ V")):
        names = [f"{prefix}, 1 start, float64", f"{prefix}, {R} starts batched, float64"]
        A = [[models[n].bytes, models[n].flops] for n in names]
        inv = np.linalg.solve(A, [t[n] for n in names])  # (1 / bandwidth, 1 / rate)
        rates[form] = 1 / np.maximum(inv, 1e-15)
    return costs.Machine(rates["dense"][0], rates["dense"][1], rates["sparse"][0],
                         rates["sparse"][1])


def form_rows(X, repeat: int) -> list:
    """(N, nnz, model choice, measured sparse s, measured dense s, predicted s) of the K
    products of an LCCF fit (10 starts x 31 iterations, then 69) on N-row subsets of X."""
    rng = np.random.default_rng(0)
    rows = []
    for n in (700, 2000, X.shape[0]):
        Xs = X[np.sort(rng.choice(X.shape[0], n, replace=False))]
        Xs = Xs[:, np.flatnonzero(Xs.getnnz(axis=0))]
        sparse, dense = fit_products(Xs, rng, repeat)
        predicted = {f: costs.fit_products(f, Xs, K, R, 30, 100).seconds
                     for f in ("sparse", "dense")}
        rows.append((n, Xs.nnz, costs.kernel_form(Xs, K, R, 30, 100), sparse, dense,
                     predicted["sparse"], predicted["dense"]))
    return rows


def fit_products(X, rng, repeat: int) -> tuple:
    """Measured seconds of an LCCF fit's K products on X, (sparse, dense): 2 x 31 batched
    products, 2 x 69 of one start, and building K for the dense form."""
    n = X.shape[0]
    Xt, L = sp.csr_matrix(X.T), LinearKernel(X)
    Yr, Y1 = rng.random((n, K * R)), rng.random((n, K))
    Kd = (X @ Xt).toarray()
    t = median_times({"sparse_R": lambda: L.dot(Yr), "sparse_1": lambda: L.dot(Y1),
                      "dense_R": lambda: Kd @ Yr, "dense_1": lambda: Kd @ Y1,
                      "build": lambda: (X @ Xt).toarray()}, repeat)
    return (2 * 31 * t["sparse_R"] + 2 * 69 * t["sparse_1"],
            2 * 31 * t["dense_R"] + 2 * 69 * t["dense_1"] + t["build"])


def nmf_rows(X, repeat: int) -> dict:
    """Seconds per iteration of 100 NMF iterations from one start: docfact (float64, float32)
    and scikit-learn's mu solver (float64, and on float32 data)."""
    one = dict(n_restarts=1, min_iter=0, max_iter=100)

    def ours(precision):
        with numerics(precision=precision):
            NMF(K, random_state=0, **one).fit_transform(X)

    X32 = X.astype(np.float32)
    t = median_times({
        "docfact float64": lambda: ours("float64"),
        "scikit-learn mu float64": lambda: SKNMF(K, solver="mu", init="random", tol=0,
                                                 max_iter=100, random_state=0).fit_transform(X),
        "docfact float32": lambda: ours("float32"),
        "scikit-learn mu float32": lambda: SKNMF(K, solver="mu", init="random", tol=0,
                                                 max_iter=100, random_state=0).fit_transform(X32),
    }, repeat)
    return {name: s / 100 for name, s in t.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--readme")
    args = ap.parse_args()
    reason = deviation()
    if reason:
        warnings.warn(f"{reason}: these are not the kernels `docfact run` uses", stacklevel=1)
    X, y = data()
    graph = structured_graph(X, y)
    share = block_entries(graph) / X.shape[0] ** 2
    n, m = X.shape
    r = args.repeat
    with threadpool_limits(1):
        peak = peaks(r)
        fitted, *kernels = kernel_rows(X, graph, peak, r)
        forms = form_rows(X, r)
        nmf = nmf_rows(X, r)
    lines = [f"One core of {platform.processor() or platform.machine()} ({os.cpu_count()} cores, "
             f"load average {os.getloadavg()[0]:.0f} at the end), "
             f"one BLAS thread, median of {r} interleaved rounds; NumPy "
             f"{np.__version__}; loops: {reason or 'the pinned AVX2 / Haswell ones'}.", "",
             f"Peak: triad {peak['bandwidth'] / 1e9:.1f} GB/s; GEMM "
             f"{peak['float64'] / 1e9:.1f} GFLOP/s (float64), "
             f"{peak['float32'] / 1e9:.1f} GFLOP/s (float32).", "",
             f"Kernels on TDT2's 10 largest classes: N = {n} documents x {m} terms, "
             f"nnz = {X.nnz}, K = {K}, R = {R} starts. Bytes and flops from algorithms/costs.py; "
             "fraction = of the peak of the bounding resource (triad bandwidth or GEMM rate of "
             "the precision). The structured W~ (RCF's, products \"auto\"): "
             f"{len(graph.blocks)} dense blocks covering {share:.1%} of N^2, "
             f"{graph.sparse.nnz} sparse entries.", "",
             "| product | ms | MB moved | MFLOP | GB/s | GFLOP/s | bound | fraction of peak "
             "| model ms |", "|---|---|---|---|---|---|---|---|---|"]
    for name, s, cost, gbs, gfs, bound, frac in kernels:
        lines.append(f"| {name} | {1e3 * s:.1f} | {cost.bytes / 1e6:.1f} | "
                     f"{cost.flops / 1e6:.0f} | {gbs / 1e9:.2f} | {gfs / 1e9:.2f} | {bound} | "
                     f"{frac:.2f} | {1e3 * cost.seconds:.1f} |")
    lines += ["", "The rates of algorithms/costs.py's Machine that fit these float64 timings "
              "(bytes / bandwidth + flops / rate, solved on the 1-start and batched products): "
              f"dense {fitted.dense_bandwidth / 1e9:.1f} GB/s and "
              f"{fitted.dense_flops / 1e9:.1f} GFLOP/s, sparse "
              f"{fitted.sparse_bandwidth / 1e9:.1f} GB/s and "
              f"{fitted.sparse_flops / 1e9:.1f} GFLOP/s (the model's: dense "
              f"{costs.MACHINE.dense_bandwidth / 1e9:.1f} and "
              f"{costs.MACHINE.dense_flops / 1e9:.1f}, sparse "
              f"{costs.MACHINE.sparse_bandwidth / 1e9:.1f} and "
              f"{costs.MACHINE.sparse_flops / 1e9:.1f}).", ""]
    lines += ["", "The K products of one LCCF fit (10 starts x 31 iterations batched, 69 more; "
              "float64), on N documents drawn from the same matrix: both forms measured "
              "(dense includes building K), the form the cost model picks, and its predictions.",
              "", "| N | nnz | picked | sparse s | dense s | faster | model sparse s "
              "| model dense s |", "|---|---|---|---|---|---|---|---|"]
    for n_, nnz, picked, s, d, ps, pd_ in forms:
        faster = "sparse" if s <= d else "dense"
        lines.append(f"| {n_} | {nnz} | {picked}{'' if picked == faster else ' (wrong)'} | "
                     f"{s:.2f} | {d:.2f} | {faster} | {ps:.2f} | {pd_:.2f} |")
    lines += ["", f"NMF, seconds per iteration (one start, 100 iterations, K = {K}, same X):", "",
              "| solver | ms per iteration | against scikit-learn mu float64 |",
              "|---|---|---|"]
    base = nmf["scikit-learn mu float64"]
    for name, s in nmf.items():
        lines.append(f"| {name} | {1e3 * s:.1f} | {s / base:.2f} |")
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
