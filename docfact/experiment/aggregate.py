"""The statistics of run records: per-k means and standard deviations over runs, the average
over k, and their standard errors (for tables, the report, checks, sweeps, readings, plots)."""

import numpy as np
import pandas as pd

from docfact.config import METRICS

__all__ = ["METRICS", "Z95", "average_se", "mean_se", "summarize"]

Z95 = 1.96  # the normal quantile of a two-sided 95% interval


def summarize(runs: pd.DataFrame, methods: list, ks: list) -> pd.DataFrame:
    """One row per (metric, method, k) with mean, std (n - 1 denominator, as MATLAB's std),
    n (successful runs) and failed; k = "avg" holds the mean of the per-k means, over the k values
    that have runs."""
    rows = []
    for metric in METRICS:
        for method in methods:
            means = []
            for k in ks:
                sel = runs[(runs["method"] == method) & (runs["k"] == k)]
                ok = sel.loc[sel["status"] == "ok", metric].to_numpy(float)
                mean = float(ok.mean()) if len(ok) else np.nan
                std = float(ok.std(ddof=1)) if len(ok) > 1 else np.nan
                if len(ok):
                    means.append(mean)
                failed = int((sel["status"] != "ok").sum())
                rows.append({"metric": metric, "method": method, "k": k, "mean": mean,
                             "std": std, "n": len(ok), "failed": failed})
            rows.append({"metric": metric, "method": method, "k": "avg",
                         "mean": float(np.mean(means)) if means else np.nan, "std": np.nan,
                         "n": len(means), "failed": 0})
    return pd.DataFrame(rows)


def mean_se(std, n) -> np.ndarray:
    """Standard errors s / sqrt(n) of per-k means (0 where one run gives no spread)."""
    return np.nan_to_num(np.asarray(std, float)) / np.sqrt(np.maximum(n, 1))


def average_se(std, n) -> float:
    """Standard error of the average over k of per-k means (std s_k over n_k runs each):
    sqrt(sum_k s_k^2 / n_k) / |k|, runs of different k being independent; NaN when some k
    has no spread to tell (one run: its std is NaN), not an interval of zero width."""
    std, n = np.asarray(std, float), np.asarray(n)
    return float(np.sqrt(np.sum(std**2 / n))) / len(std)
