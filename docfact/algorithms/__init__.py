"""Clustering and factorization estimators, usable on their own (scikit-learn conventions).

Imports only numpy, scipy and scikit-learn: nothing here knows about configs, data sets or runs.
"""

from docfact.algorithms.graphs import knn_graph
from docfact.algorithms.kmeans import KMeans
from docfact.algorithms.lsi import LSIKMeans
from docfact.algorithms.nmf import GNMF, NMF

__all__ = ["GNMF", "NMF", "KMeans", "LSIKMeans", "knn_graph"]
