"""How one LCCF fit grows with N: 20 Newsgroups, the c largest classes, c = 2..20.

Each size runs in a fresh process (one BLAS thread, as the runner's workers), so its peak
resident memory is its own. Steps timed: tf-idf weighting of the subset, the cosine 5-NN graph
(brute force, O(N^2 M) on sparse rows), the LCCF fit with the protocol's starts (10 x 31
iterations, the best continued to 100), and the k-means label step (20 replicates).

    python bench/scaling.py [--classes 2,5,10,15,20] [--out bench/SCALING.md] [--readme README.md]

`--readme FILE` replaces the file's section between `<!-- scaling:start/end -->`.
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

from bench import emit  # bench/bench.py, beside this script


def one(c: int) -> dict:
    """Time and peak memory of one LCCF run on the c largest classes, in this process."""
    from threadpoolctl import threadpool_limits

    from docfact.algorithms import LCCF, knn_graph
    from docfact.algorithms.kmeans import KMeans
    from docfact.datasets import apply_view, load
    from docfact.datasets.preprocess import weight
    from docfact.metrics import accuracy, nmi

    corpus = apply_view(load("20newsgroups"), {"dataset": "20newsgroups", "largest": c,
                                               "drop_empty": True})
    times = {}
    with threadpool_limits(1):
        t = time.perf_counter()
        X = weight(corpus.X)
        times["tfidf"] = time.perf_counter() - t
        t = time.perf_counter()
        W = knn_graph(X, 5, "cosine")
        times["graph"] = time.perf_counter() - t
        t = time.perf_counter()
        V = LCCF(c, lam=100, random_state=0).fit_transform(X, W=W)
        times["fit"] = time.perf_counter() - t
        t = time.perf_counter()
        labels = KMeans(c, n_replicates=20, random_state=0).fit_predict(V)
        times["labels"] = time.perf_counter() - t
    return {"classes": c, "n": X.shape[0], "m": X.shape[1], "nnz": int(X.nnz), **times,
            "ac": accuracy(corpus.y, labels), "nmi": nmi(corpus.y, labels),
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--classes", default="2,5,10,15,20")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--out")
    ap.add_argument("--readme")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one)))
        return
    rows = []
    for c in map(int, args.classes.split(",")):
        out = subprocess.run([sys.executable, __file__, "--one", str(c)], check=True,
                             capture_output=True, text=True).stdout
        rows.append(json.loads(out.splitlines()[-1]))
        print(rows[-1], file=sys.stderr)
    steps = ("tfidf", "graph", "fit", "labels")
    lines = ["20 Newsgroups, the c largest classes; one LCCF run (lambda = 100, p = 5, 10 starts); "
             "one BLAS thread; peak = the process's maximum resident memory.", "",
             "| classes | N | terms | tf-idf s | graph s | LCCF fit s | k-means s | peak MiB "
             "| AC | NMI |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['classes']} | {r['n']} | {r['m']} | "
                     + " | ".join(f"{r[s]:.2f}" for s in steps)
                     + f" | {r['peak_mib']:.0f} | {r['ac']:.3f} | {r['nmi']:.3f} |")
    if len(rows) > 1:
        n = np.log([rows[0]["n"], rows[-1]["n"]])
        growth = {s: np.diff(np.log([rows[0][s], rows[-1][s]]))[0] / np.diff(n)[0] for s in steps}
        lines += ["", "Growth exponent in N between the smallest and largest size (time ~ N^e): "
                  + ", ".join(f"{s} {e:.2f}" for s, e in growth.items()) + "."]
    emit("\n".join(lines), args.out, args.readme, "scaling")


if __name__ == "__main__":
    main()
