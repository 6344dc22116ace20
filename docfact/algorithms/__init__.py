"""Clustering and factorization estimators, usable on their own (scikit-learn conventions).

Imports only numpy, scipy and scikit-learn: no estimator knows about configs, data sets or runs
(registry.py, the names a config's `algorithm:` may take, is the one door the runner uses).

Glossary, the same in every module: X the data, one sample per row (n_samples, n_features), the
papers' X^T; U and V the factors, V (n_samples, k) the new representation of the samples (U the
basis of NMF, U (n_samples, k) the association of samples to concepts in the CF family, as the
reference code); W an affinity between the samples (n_samples, n_samples): the p-NN graph of a
regulariser, or the affinity a symmetric factorization approximates; K a kernel matrix of the
samples (n_samples, n_samples); k = `n_components` (or `n_clusters`), the rank, the number of
clusters; lambda (`lam`, a Python keyword) the weight of a regulariser.

The estimator contract (read by registry.py; a new algorithm is a module and a `register` line):
- a scikit-learn estimator whose parameters are declared in `_parameter_constraints`, with
  `random_state`; a clusterer (ClusterMixin: `n_clusters`, `labels_`) or a factorization
  (TransformerMixin: `n_components`, `fit_transform(X)` -> V, `n_iter_`, `objective_` (the
  objective history: its last entry the final value with `track_objective`, else, for a fixed
  `max_iter`, the value at the choice of start), `track_objective` to record every
  iteration);
- class attributes say what a run hands over: `uses_kernel` (parameters `kernel` and `degree`;
  kernel="precomputed" takes K in place of X, so that a run computes a kernel once); to a
  factorization also `semi_supervised` (fit_transform(X, y=...): y the partial labels, -1 for
  the unlabelled samples, a run's labelled ones numbered 0 .. c - 1 in the order of the
  classes' own labels; or fit_transform(X, constraints=Z), Z sparse (n_samples, n_samples),
  +1 must-link, -1 cannot-link) and `uses_graph` (fit_transform(X, W=...): the run's p-NN
  graph, built with the parameters `p` and `weight`).
"""

from docfact.algorithms.cf import CF, LCCF
from docfact.algorithms.graphs import knn_graph
from docfact.algorithms.kernels import polynomial_kernel
from docfact.algorithms.kmeans import KMeans
from docfact.algorithms.lcf import LCF
from docfact.algorithms.nmf import GNMF, NMF
from docfact.algorithms.semisup import CCF, CNPCF, GDCF, RCF, SemiLCCF
from docfact.algorithms.sparse_nmf import SparseNMF
from docfact.algorithms.spectral import LSIKMeans, SpectralClustering
from docfact.algorithms.symmetric import PSPt, SymmetricNMF

__all__ = ["CCF", "CF", "CNPCF", "GDCF", "GNMF", "LCCF", "LCF", "NMF", "PSPt", "RCF", "KMeans",
           "LSIKMeans", "SemiLCCF", "SparseNMF", "SpectralClustering", "SymmetricNMF",
           "knn_graph", "polynomial_kernel"]
