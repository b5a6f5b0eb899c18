"""gym's SLURM launcher, where Hydra looks for launchers (the hydra_plugins package); the work is in gym.cluster."""
