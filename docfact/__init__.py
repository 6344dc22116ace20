"""docfact: reproduce the clustering tables of matrix-factorization papers from real data."""

from docfact.digits import pin as _pin

_pin()  # before NumPy is imported: see docfact/digits.py

__version__ = "0.1.0"
