"""Clustering and factorization estimators, usable on their own (scikit-learn conventions).

Imports only numpy, scipy and scikit-learn: nothing here knows about configs, data sets or runs.
"""

from docfact.algorithms.cf import CF, LCCF
from docfact.algorithms.graphs import knn_graph
from docfact.algorithms.kernels import polynomial_kernel
from docfact.algorithms.kmeans import KMeans
from docfact.algorithms.lcf import LCF
from docfact.algorithms.nmf import GNMF, NMF
from docfact.algorithms.sparse_nmf import SparseNMF
from docfact.algorithms.spectral import LSIKMeans, SpectralClustering
from docfact.algorithms.symmetric import PSPt, SymmetricNMF

__all__ = ["CF", "GNMF", "LCCF", "LCF", "NMF", "PSPt", "KMeans", "LSIKMeans", "SparseNMF",
           "SpectralClustering", "SymmetricNMF", "knn_graph", "polynomial_kernel"]
