"""Clustering accuracy (AC) and normalised mutual information (NMI) as the papers define them.

AC = (1/n) sum_i delta(s_i, map(r_i)), with `map` the best one-to-one matching of predicted
clusters to classes (Kuhn-Munkres on the contingency table, as bestMap.m).
NMI = MI(C, C') / max(H(C), H(C')), GNMF report Section 4.2 (MutualInfo.m): this equals
scikit-learn's normalized_mutual_info_score with average_method="max" (the log base cancels);
"sqrt" and "arithmetic" divide by the geometric or arithmetic mean of the two entropies instead
(Strehl and Ghosh 2002; scikit-learn's default), readings for papers that do not define NMI.
"""

from scipy.optimize import linear_sum_assignment
from sklearn.metrics import normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix
from sklearn.utils import check_consistent_length


def accuracy(y_true, y_pred) -> float:
    """AC: the fraction of points whose cluster, mapped one-to-one onto classes, is their class.

    With more clusters than classes (or fewer), unmatched clusters count as errors.
    """
    check_consistent_length(y_true, y_pred)  # ValueError naming both lengths
    if len(y_true) == 0:
        raise ValueError("AC of no samples is undefined")
    C = contingency_matrix(y_true, y_pred)  # classes x clusters
    rows, cols = linear_sum_assignment(C, maximize=True)
    return float(C[rows, cols].sum() / len(y_true))


def nmi(y_true, y_pred, average: str = "max") -> float:
    """NMI = MI / max(H(truth), H(prediction)) (average "max"; or their geometric ("sqrt") or
    arithmetic mean); 1.0 when both labelings are a single cluster."""
    if average not in ("max", "sqrt", "arithmetic"):
        raise ValueError(f"average must be max, sqrt or arithmetic, got {average!r}")
    method = "geometric" if average == "sqrt" else average
    return float(normalized_mutual_info_score(y_true, y_pred, average_method=method))
