"""Tables, plots and the fidelity report, rebuilt from result files alone."""
