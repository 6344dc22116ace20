"""Clustering and factorization estimators, usable on their own (scikit-learn conventions).

Imports only numpy, scipy and scikit-learn: nothing here knows about configs, data sets or runs.
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
