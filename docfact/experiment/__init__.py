"""Experiment protocol: class sampling, the run grid, run records, aggregation."""
