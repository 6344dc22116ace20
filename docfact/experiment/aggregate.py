"""Per-k means and standard deviations over runs, and the average over k."""

import numpy as np
import pandas as pd

METRICS = ("ac", "nmi")


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
