"""docfact: reproduce the clustering tables of matrix-factorization papers from real data."""

__version__ = "0.1.0"
