"""Why float32 lowers CNPCF at t = 20%: an entry of a factor that falls below float32's range
becomes an exact zero, and zero is a fixed point of a multiplicative update.

In float64 the same entry decays to, say, 1e-60 and can grow back when its ratio num / den
turns above one; in float32 it underflows to 0 (below 1.4e-45) and stays there. Four variants
of one method's fit on the same draws, seeds and products (numerics precision, products auto),
the update step `mu_step` wrapped for the last two:
    float64         the reference;
    float32         as the float32 tables compute;
    float32-floor   float32, every updated entry kept at or above float32's smallest normal
                    number (1.2e-38): no entry becomes zero;
    float64-zeros   float64, every updated entry below float32's smallest subnormal set to 0:
                    float32's absorbing zeros, float64's digits otherwise.
If float32-floor gives float64's labels and float64-zeros float32's, the absorbing zeros are
the cause. Rows are appended to the CSV as they come (a rerun resumes); the Markdown gives the
mean AC and NMI of each variant and its paired difference from float64 (95% interval).

    python bench/float32_zeros.py [--sample SPEC] [--method CNPCF]
                                  [--csv bench/FLOAT32_ZEROS.csv] [--md bench/FLOAT32_ZEROS.md]

SPEC: TABLE:K1/K2/...:R1/R2/..., comma-separated (default: SAMPLE below); --sample "" only
summarises the CSV.
"""

import docfact  # noqa: F401, I001  (first: it pins NumPy's loops, docfact/digits.py)

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate
from threadpoolctl import threadpool_limits

from docfact import metrics
from docfact.algorithms import cf, engine, semisup
from docfact.experiment.plan import Plan
from docfact.experiment.plan import load as load_config

from float32 import pairs  # bench/float32.py, beside this script
from float32_tables import half_width

ROOT = Path(__file__).resolve().parents[1]
K_ALL = "2/3/4/5/6/7/8/9/10"
SAMPLE = f"rcf_20newsgroups_t20:{K_ALL}:0/1/2,rcf_reuters_t20:{K_ALL}:0/1/2"
NORMAL32 = float(np.finfo(np.float32).tiny)
SUBNORMAL32 = float(np.finfo(np.float32).smallest_subnormal)
STEP = engine.mu_step


def floor_step(A, num, den):
    STEP(A, num, den)
    np.maximum(A, NORMAL32, out=A)


def zeros_step(A, num, den):
    STEP(A, num, den)
    A[A < SUBNORMAL32] = 0


VARIANTS = {"float64": ("float64", STEP), "float32": ("float32", STEP),
            "float32-floor": ("float32", floor_step), "float64-zeros": ("float64", zeros_step)}


def run_pair(config, k: int, r: int, method: str) -> list:
    """One row per variant: `method`'s fit on run r of k."""
    plan = Plan.of(config, [(k, r)])
    corpus = plan.corpus()
    task = plan.task(plan.base_matrix(corpus), corpus.y, k, r)
    shared = plan.artefacts(task, plan.prepare(task.X))
    m = next(m for m in config.methods if m.name == method)
    rows = []
    with threadpool_limits(1):
        for variant, (precision, step) in VARIANTS.items():
            cf.mu_step = semisup.mu_step = step  # the name the CF-family rules call
            try:
                t = time.perf_counter()
                out = m.with_numerics({"precision": precision, "products": "auto"}).cluster(
                    shared, k, plan.seed(task, m.name))
                seconds = time.perf_counter() - t
            finally:
                cf.mu_step = semisup.mu_step = STEP
            rows.append({"table": config.name, "k": k, "run": r, "method": method,
                         "n_docs": task.X.shape[0], "variant": variant,
                         "ac": metrics.accuracy(task.y, out["labels"]),
                         "nmi": metrics.nmi(task.y, out["labels"]), "seconds": seconds})
    return rows


def markdown(table: pd.DataFrame) -> str:
    lines = ["# float32's absorbing zeros", "",
             "Made by `bench/float32_zeros.py` (its docstring says how). Mean AC and NMI of each "
             "variant over the draws, and its paired difference from float64 with the 95% "
             "interval; `same AC`: the share of draws whose AC equals float64's.", ""]
    for (name, method), t in table.groupby(["table", "method"], sort=False):
        wide = t.pivot_table(index=["k", "run"], columns="variant", values=["ac", "nmi"])
        rows = []
        for variant in VARIANTS:
            row = {"variant": variant}
            for metric in ("ac", "nmi"):
                d = wide[(metric, variant)] - wide[(metric, "float64")]
                half = half_width(d) if len(d) > 1 else np.nan
                row[metric.upper()] = wide[(metric, variant)].mean()
                row[f"{metric.upper()} - float64 [95% CI]"] = \
                    f"{d.mean():+.4f} [{d.mean() - half:+.4f}, {d.mean() + half:+.4f}]"
            row["same AC"] = float((wide[("ac", variant)] - wide[("ac", "float64")]).abs()
                                   .lt(1e-12).mean())
            rows.append(row)
        ks = wide.index.get_level_values("k").nunique()
        lines += [f"## {name}: {method}", "", f"{len(wide)} draws at {ks} values of k.", "",
                  tabulate(pd.DataFrame(rows), headers="keys", showindex=False,
                           floatfmt=".4f", tablefmt="github"), ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", default=SAMPLE)
    parser.add_argument("--method", default="CNPCF")
    parser.add_argument("--csv", type=Path, default=Path("bench/FLOAT32_ZEROS.csv"))
    parser.add_argument("--md", type=Path, default=Path("bench/FLOAT32_ZEROS.md"))
    args = parser.parse_args()
    done = pd.read_csv(args.csv) if args.csv.exists() else pd.DataFrame()
    for table, k, r in pairs(args.sample):
        if not done.empty and ((done["table"] == table) & (done["k"] == k) & (done["run"] == r)
                               & (done["method"] == args.method)).any():
            continue
        config = load_config(ROOT / "configs" / f"{table}.yaml")
        rows = pd.DataFrame(run_pair(config, k, r, args.method))
        done = pd.concat([done, rows], ignore_index=True)
        done.to_csv(args.csv, index=False, float_format="%.6f")
        print(table, k, r, dict(zip(rows["variant"], rows["ac"].round(4), strict=True)),
              flush=True)
    args.md.write_text(markdown(done) + "\n")
    print(markdown(done))


if __name__ == "__main__":
    main()
