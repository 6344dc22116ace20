"""Objective against iteration for a config's factorizations on one drawn subset (LCCF Fig. 3)."""

import pandas as pd
from threadpoolctl import threadpool_limits

from docfact.config import Config
from docfact.errors import ConfigError
from docfact.experiment.runner import artefacts, base_matrix, draw, load_view, prepare
from docfact.experiment.sampling import method_seed


def convergence(config: Config, k: int, run: int, iterations: int, names=None) -> pd.DataFrame:
    """(method, iteration, objective) from one random start of each factorization, tracked
    over `iterations` iterations on the classes of run `run` of k."""
    methods = [m for m in config.methods if m.factorizes and (not names or m.name in names)]
    unknown = set(names or ()) - {m.name for m in config.methods}
    if unknown or not methods:
        raise ConfigError(f"--methods: choose among the factorizations of {config.name}: "
                          + ", ".join(m.name for m in config.methods if m.factorizes))
    corpus = load_view(config)
    X, y, _ = draw(config, base_matrix(config, corpus), corpus.y, k, run)
    rows = []
    with threadpool_limits(1):
        shared = artefacts(config, prepare(config, X), y, k, run)
        for m in methods:
            seed = int(method_seed(config.seed, k, run, m.name).generate_state(1)[0])
            est, _ = m.fit(shared, k, seed, track_objective=True, n_restarts=1, min_iter=0,
                           max_iter=iterations)
            rows += [{"method": m.name, "iteration": i, "objective": obj}
                     for i, obj in enumerate(est.objective_)]
    return pd.DataFrame(rows)
