"""Objective against iteration for a config's factorizations on one drawn subset (LCCF Fig. 3)."""

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from docfact.config import Config
from docfact.errors import ConfigError
from docfact.experiment.methods import RUN_FAILURES
from docfact.experiment.plan import Plan


def convergence(config: Config, k: int, run: int, iterations: int, names=None) -> pd.DataFrame:
    """(method, iteration, objective) from one random start of each factorization, tracked
    over `iterations` iterations on the task (k, run) of the config's plan."""
    plan = Plan.of(config, [(k, run)])
    methods = [m for m in plan.config.methods if m.factorizes and (not names or m.name in names)]
    unknown = set(names or ()) - {m.name for m in plan.config.methods}
    if not any(m.factorizes for m in plan.config.methods):
        raise ConfigError(f"{config.name} has no factorization, whose objective this draws")
    if unknown or not methods:
        raise ConfigError(f"--methods: choose among the factorizations of {config.name}: "
                          + ", ".join(m.name for m in plan.config.methods if m.factorizes))
    rows = []
    with threadpool_limits(1):
        [(task, shared)] = plan.draws()
        for m in methods:
            seed = int(plan.seed(task, m.name).generate_state(1)[0])
            try:  # a run the table would record as failed, or an estimator of one's own
                est, _ = m.fit(shared, k, seed, track_objective=True, n_restarts=1,
                               min_iter=0, max_iter=iterations)
            except Exception as e:  # without the engine's parameters, or of its own making
                if not (isinstance(e, RUN_FAILURES) or m.own_code):
                    raise
                raise ConfigError(f"{m.name} at k = {k}, run {run}: {type(e).__name__}: "
                                  f"{' '.join(str(e).split())}") from None
            history = getattr(est, "objective_", None)
            history = np.ravel([] if history is None else history)
            if len(history) < 2:
                raise ConfigError(f"{m.name} keeps no objective per iteration to draw "
                                  "(objective_, as docfact's factorizations with "
                                  "track_objective)")
            rows += [{"method": m.name, "iteration": i, "objective": obj}
                     for i, obj in enumerate(history)]
    return pd.DataFrame(rows)
