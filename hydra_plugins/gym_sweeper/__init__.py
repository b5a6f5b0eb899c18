"""gym's sweeper, where Hydra looks for sweepers (the hydra_plugins package)."""
