"""hydra/sweeper=gym (gym's default): Hydra's basic sweeper, with each job composed once.

Before a batch runs, Hydra's sweeper composes every job's config to catch a bad override before any job
starts; its in-process launcher then composes each job again to run it. With that launcher, the configs
the check composed are the ones the jobs run (the whole-catalog dry run: 118 CPU-s against 130,
docs/performance.md). Other launchers (joblib, SLURM) compose in their own processes and are left as
Hydra has them. Hydra imports every module here at start-up, so this one stays light."""

from typing import Any, Dict, List, Sequence, Tuple

from hydra._internal.core_plugins.basic_launcher import BasicLauncher
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.types import HydraContext
from omegaconf import DictConfig


class ComposedOnce:
    """Hydra's config loader, except that a job's config composed while the sweeper checks the batch is
    kept and handed to the launcher when it composes that job."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.checking = False
        self.checked: Dict[Tuple[str, ...], List[DictConfig]] = {}

    def __getattr__(self, name: str) -> Any:
        if name == "loader":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.loader, name)

    def load_sweep_config(self, master_config: DictConfig, sweep_overrides: List[str]) -> DictConfig:
        key = tuple(sweep_overrides)
        if not self.checking and self.checked.get(key):
            config = self.checked[key].pop(0)
            if not self.checked[key]:
                del self.checked[key]
            return config
        config = self.loader.load_sweep_config(master_config=master_config, sweep_overrides=list(sweep_overrides))
        if self.checking:
            self.checked.setdefault(key, []).append(config)
        return config


class GymSweeper(BasicSweeper):
    def setup(self, *, hydra_context: HydraContext, task_function: Any, config: DictConfig) -> None:
        super().setup(hydra_context=hydra_context, task_function=task_function, config=config)
        if type(self.launcher) is BasicLauncher:  # jobs run here, one after another
            context = HydraContext(config_loader=ComposedOnce(hydra_context.config_loader),
                                   callbacks=hydra_context.callbacks)
            self.hydra_context = self.launcher.hydra_context = context

    def validate_batch_is_legal(self, batch: Sequence[Sequence[str]]) -> None:
        loader = self.hydra_context.config_loader if self.hydra_context is not None else None
        if not isinstance(loader, ComposedOnce):
            return super().validate_batch_is_legal(batch)
        loader.checking = True
        try:
            super().validate_batch_is_legal(batch)
        finally:
            loader.checking = False
