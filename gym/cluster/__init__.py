"""Sweeps on a SLURM cluster (hydra/launcher=slurm): submitting a sweep's jobs as one array, following them
with squeue, dry runs, and how a job ended when it left no result. The launcher class Hydra instantiates is
in hydra_plugins/gym_slurm (Hydra finds launchers there only); the job side (requeue counts, the
pre-emption signal) is in gym.rollouts.resume."""
