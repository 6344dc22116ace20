"""LCF Fig. 5: the bases NMF and LCF learn for 150 points drawn from three Gaussians in 2-D.

The paper gives neither the Gaussians nor the seed; three well-separated round clusters in the
positive quadrant (so that NMF applies) are used, 50 points each.
"""

import numpy as np
import pandas as pd

from docfact.algorithms import LCF, NMF

CENTERS = np.array([[1.0, 4.0], [4.0, 1.0], [4.0, 4.0]])
SD = 0.4


def gaussians(seed: int, n: int = 150) -> tuple:
    """(X (n, 2), labels): n // 3 points around each of CENTERS, negatives clipped to 0."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(CENTERS)), n // len(CENTERS))
    X = CENTERS[labels] + SD * rng.standard_normal((len(labels), 2))
    return np.maximum(X, 0.0), labels


def anchors(seed: int = 2011, lam: float = 0.3) -> pd.DataFrame:
    """Rows (kind, x, y, label, distance): the points, NMF's three basis vectors (columns of
    U at unit norm, as the reference code leaves them: NMF fixes only their directions) and
    LCF's three anchors X^T u_k (U = association_), each with its nearest Gaussian centre and
    distance."""
    X, labels = gaussians(seed)
    bases = {"NMF": NMF(3, random_state=seed).fit(X).components_,
             "LCF": LCF(3, lam=lam, random_state=seed).fit(X).association_.T @ X}
    rows = [{"kind": "point", "x": x, "y": y, "label": int(c), "distance": np.nan}
            for (x, y), c in zip(X, labels, strict=True)]
    for kind, B in bases.items():
        for x, y in B:
            d = np.linalg.norm(CENTERS - [x, y], axis=1)
            rows.append({"kind": kind, "x": x, "y": y, "label": int(d.argmin()),
                         "distance": float(d.min())})
    return pd.DataFrame(rows)
