"""AA's degree-2 kernel row: is it the read-out of the spectral embedding?

AA (Zha et al. 2001, the LCCF paper's [27]) relaxes k-means to the top-k eigenvectors Y (n, k)
of the affinity K; how the clusters are read from Y is left to the user. The tables run k-means
(the baseline starts: best of 10) on the rows of Y. On each table's own draws (`lccf_tdt2`,
`lccf_reuters`: the odd k, runs 0-9, the readings' sub-protocol; the same documents and
seeds as `docfact run`) this refits AA and AA-poly as the table does and reads the same Y five
ways (the k-means of the three added ones as the table's, best of 10 starts, from one seed):

- `Y`: k-means on the rows of Y (the table; `table_ac` from its runs.csv checks it);
- `Y sqrt(Lambda)`: k-means on the kernel PCA coordinates, the documents projected on the
  top-k principal directions of the kernel's feature space (the linear kernel's U_k S_k, LSI's
  coordinates): the k-means objective restricted to that subspace, the reading under which AA
  is k-means (the paper: 'KM and AA ... are equivalent with respect of their objective
  functions [27][11]');
- `unit rows`: k-means on the rows of Y scaled to unit length (Ng, Jordan and Weiss 2002);
- `pivoted QR`: Zha et al.'s own read-out, the QR decomposition with column pivoting of Y^T:
  Y^T P = Q [R11 R12], document j in the cluster of the largest |[I, R11^-1 R12] P^T|_ij;
- `30 dimensions`: k-means on the kernel PCA coordinates in 30 dimensions whatever k (more
  principal directions than AA's k, towards the kernel k-means of KM and KM-poly, which uses
  all of them);
- `one cluster`: every document in one cluster (no read-out: AC is the share of the draw's
  largest class, NMI 0), the floor a collapsed partition comes to.

Writes draws.csv (one row per draw, method and read-out) and summary.csv (averages over the
draws against the paper's averages over the same k) beside this file, in about ten
CPU-minutes. One cluster's AC over all 50 draws per k: results/largest_class_share/by_k.csv.
Run from the repository root: .venv/bin/python results/lccf_aa_readout/experiment.py
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.linalg import qr, solve_triangular

from docfact import algorithms as alg
from docfact import metrics
from docfact.experiment.methods import split_seed
from docfact.algorithms.kernels import leading_eigenpairs
from docfact.algorithms.spectral import top_singular
from docfact.experiment.plan import Plan, load

HERE = Path(__file__).parent
TABLES, KS, RUNS = ("lccf_tdt2", "lccf_reuters"), (3, 5, 7, 9), range(10)
METHODS = ("AA", "AA-poly")
WIDE = 30  # the dimensions of the widest read-out


def eigenvalues(artefacts, method, Y) -> np.ndarray:
    """The Rayleigh quotients y_j^T K y_j (k,) of the affinity the method factorizes: its
    eigenvalues, Y being its top-k eigenvectors."""
    if method.params.get("kernel") == "polynomial":
        return np.einsum("ij,ij->j", Y, artefacts.kernel("polynomial", 2) @ Y)
    XtY = artefacts.X.T @ Y
    return np.einsum("ij,ij->j", XtY, XtY)


def kernel_pca(artefacts, method, d: int) -> np.ndarray:
    """The documents' coordinates (n, d) on the d leading principal directions of the
    affinity's feature space, Y_d Lambda_d^1/2: past d = k, towards the kernel k-means of every
    direction (KM and KM-poly)."""
    if method.params.get("kernel") == "polynomial":
        values, Y = leading_eigenpairs(artefacts.kernel("polynomial", 2), d)
        return Y * np.sqrt(np.maximum(values, 0))
    U, s = top_singular(artefacts.X, d, np.random.default_rng(0))
    return U * s


def pivoted_qr(Y) -> np.ndarray:
    """Zha et al. (2001), Sec. 4: clusters from the QR decomposition with column pivoting of Y^T."""
    k = Y.shape[1]
    _, R, P = qr(Y.T, mode="economic", pivoting=True)
    Rhat = solve_triangular(R[:, :k], R)  # [I, R11^-1 R12], columns in pivot order
    labels = np.empty(len(Y), dtype=int)
    labels[P] = np.abs(Rhat).argmax(axis=0)
    return labels


def readouts(labels, Y, values, wide, k, label_seed) -> dict:
    """{read-out: labels (n,)}: the table's (k-means on Y, from the fit) and the others, their
    k-means from one label seed (best of 10 starts, as the table's); `wide` the kernel PCA
    coordinates in WIDE dimensions."""
    def km(E):
        return alg.KMeans(k, n_replicates=10, random_state=label_seed).fit(E).labels_

    return {"Y": labels, "Y sqrt(Lambda)": km(Y * np.sqrt(np.maximum(values, 0))),
            "unit rows": km(Y / np.maximum(np.linalg.norm(Y, axis=1, keepdims=True), 1e-300)),
            "pivoted QR": pivoted_qr(Y), f"{WIDE} dimensions": km(wide),
            "one cluster": np.zeros(len(Y), dtype=int)}


def rows():
    for name in TABLES:
        plan = Plan.of(load(f"configs/{name}.yaml"), [(k, r) for k in KS for r in RUNS])
        methods = {m.name: m for m in plan.config.methods}
        table = pd.read_csv(f"results/{name}/runs.csv").set_index(["k", "run", "method"]).ac
        for task, shared in plan.draws():
            for mname in METHODS:
                m = methods[mname]
                fit_seed, label_seed = split_seed(plan.seed(task, mname))
                est, labels = m.fit(shared, task.k, fit_seed)  # the table's run: k-means on Y
                Y = est.embedding_
                for readout, pred in readouts(labels, Y, eigenvalues(shared, m, Y),
                                              kernel_pca(shared, m, WIDE), task.k,
                                              label_seed).items():
                    row = {"table": name, "k": task.k, "run": task.run, "n": len(task.y),
                           "method": mname, "readout": readout,
                           "ac": metrics.accuracy(task.y, pred),
                           "nmi": metrics.nmi(task.y, pred, plan.config.nmi),
                           "table_ac": table.get((task.k, task.run, mname), np.nan)}
                    yield row
            print(name, task.k, task.run, flush=True)


def summary(draws: pd.DataFrame) -> pd.DataFrame:
    out = []
    for name, d in draws.groupby("table", sort=False):
        published = load(f"configs/{name}.yaml").published_average
        for (mname, readout), g in d.groupby(["method", "readout"], sort=False):
            row = {"table": name, "method": mname, "readout": readout, "draws": len(g)}
            for metric in ("ac", "nmi"):
                row[metric] = g[metric].mean()
                row[f"{metric}_se"] = g[metric].sem()
                row[f"paper_{metric}"] = published(metric, mname, KS)[0]
            out.append(row)
    return pd.DataFrame(out)


if __name__ == "__main__":
    draws = pd.DataFrame(rows())
    draws.to_csv(HERE / "draws.csv", index=False, float_format="%.6g")
    summary(draws).to_csv(HERE / "summary.csv", index=False, float_format="%.4f")
