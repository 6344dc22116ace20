"""Objective against iteration for a config's factorizations on one drawn subset (LCCF Fig. 3)."""

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from docfact.config import Config
from docfact.errors import ConfigError
from docfact.experiment.methods import RUN_FAILURES
from docfact.experiment.plan import Plan

ENGINE = ("track_objective", "n_restarts", "min_iter", "max_iter")


def _tracks(method) -> bool:
    """Whether the method's estimator takes the engine's parameters (docfact's factorizations
    do; an estimator of one's own may not)."""
    return set(ENGINE) <= set(method.estimator(2).get_params())


def convergence(config: Config, k: int, run: int, iterations: int, names=None) -> pd.DataFrame:
    """(method, iteration, objective) from one random start of each factorization, tracked
    over `iterations` iterations on the task (k, run) of the config's plan."""
    plan = Plan.of(config, [(k, run)])
    factorizations = [m for m in plan.config.methods if m.factorizes]
    if not factorizations:
        raise ConfigError(f"{config.name} has no factorization, whose objective this draws")
    unknown = set(names or ()) - {m.name for m in plan.config.methods}
    if unknown or (names and not any(m.name in names for m in factorizations)):
        raise ConfigError(f"--methods: choose among the factorizations of {config.name}: "
                          + ", ".join(m.name for m in factorizations))
    named = [m for m in factorizations if m.name in names] if names else factorizations
    tracks = {m.name: _tracks(m) for m in named}
    methods = [m for m in named if tracks[m.name]]  # by default, those that can be drawn
    lacking = [name for name, ok in tracks.items() if not ok]
    if not methods or (names and lacking):
        raise ConfigError(f"{', '.join(lacking)} take(s) none of the engine's parameters "
                          f"{', '.join(ENGINE)}, which plot convergence sets (one start, the "
                          "objective at every iteration)")
    rows = []
    with threadpool_limits(1):
        [(task, shared)] = plan.draws()
        for m in methods:
            seed = int(plan.seed(task, m.name).generate_state(1)[0])
            try:  # a run the table would record as failed, or an estimator of one's own
                est, _ = m.fit(shared, k, seed, track_objective=True, n_restarts=1, min_iter=0,
                               max_iter=iterations)
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
