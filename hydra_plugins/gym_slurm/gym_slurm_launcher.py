"""hydra/launcher=slurm: submitit's SLURM launcher, with gym's way of submitting and following the jobs
(gym.cluster.launch): a dry run, job states from squeue (no accounting needed), requeues and failures said
in one line each. Hydra imports every module here at start-up (without registering it in sys.modules, so no
`from __future__ import annotations`: the dataclass needs real types), so this one stays light."""

from dataclasses import dataclass
from typing import Any, Sequence

try:
    from hydra_plugins.hydra_submitit_launcher.config import SlurmQueueConf
    from hydra_plugins.hydra_submitit_launcher.submitit_launcher import SlurmLauncher
except ImportError:  # without the slurm extra there is nothing to register (gym's CLI names the extra)
    SlurmLauncher = None

if SlurmLauncher is not None:
    from hydra.core.config_store import ConfigStore

    @dataclass
    class GymSlurmConf(SlurmQueueConf):
        _target_: str = "hydra_plugins.gym_slurm.gym_slurm_launcher.GymSlurmLauncher"
        dry_run: bool = False  # print the sbatch script and each job's overrides; submit nothing

    class GymSlurmLauncher(SlurmLauncher):
        def __init__(self, dry_run: bool = False, **params: Any) -> None:
            super().__init__(**params)
            self.dry_run = bool(dry_run)

        def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[Any]:
            from gym.cluster.launch import launch

            return launch(self, job_overrides, initial_job_idx)

    ConfigStore.instance().store(group="hydra/launcher", name="gym_slurm", node=GymSlurmConf, provider="gym")
