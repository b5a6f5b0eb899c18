"""hydra/sweeper=gym: every job of a sweep is checked before any runs, and each is composed once."""

from __future__ import annotations

import pytest
from omegaconf import DictConfig

from gym.core.paths import CONF_DIR


class CountingLoader:
    """Hydra's config loader, counting compositions per job (and failing the one named `broken`)."""

    def __init__(self, loader, broken: str | None = None):
        self.loader, self.broken, self.composed = loader, broken, []

    def __getattr__(self, name):
        return getattr(self.loader, name)

    def load_sweep_config(self, master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
        self.composed.append(tuple(sweep_overrides))
        if self.broken in sweep_overrides:
            raise ValueError(f"cannot compose {self.broken}")
        return self.loader.load_sweep_config(master_config=master_config, sweep_overrides=sweep_overrides)


def sweep(tmp_path, query: str, broken: str | None = None):
    """A real Hydra sweep over gym's config in this process: (the loader's compositions, the jobs' configs)."""
    from hydra import compose, initialize_config_dir
    from hydra._internal.callbacks import Callbacks
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.hydra_config import HydraConfig
    from hydra.core.plugins import Plugins
    from hydra.types import HydraContext, RunMode

    from gym.core.config import to_plain

    ran = []
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="gym"):
        config = compose("config", ["task=search", f"hydra.sweep.dir={tmp_path}", "hydra/job_logging=none",
                                    "hydra/hydra_logging=none"], return_hydra_config=True)
        config.hydra.mode = RunMode.MULTIRUN
        HydraConfig.instance().set_config(config)
        loader = CountingLoader(GlobalHydra.instance().hydra.config_loader, broken)
        context = HydraContext(config_loader=loader, callbacks=Callbacks())
        sweeper = Plugins.instance().instantiate_sweeper(
            hydra_context=context, task_function=lambda cfg: ran.append(to_plain(cfg.query)), config=config)
        try:
            sweeper.sweep([f"query={query}"])
        finally:
            HydraConfig.instance().cfg = None  # the jobs' Hydra config stays out of later tests
    return loader.composed, ran


def test_each_job_is_composed_once_and_runs_with_its_own_overrides(tmp_path):
    composed, ran = sweep(tmp_path, "aime,gsm8k,mmlu")
    assert composed == [("query=aime",), ("query=gsm8k",), ("query=mmlu",)]
    assert ran == ["aime", "gsm8k", "mmlu"]


def test_a_job_that_cannot_be_composed_stops_the_sweep_before_any_job_runs(tmp_path):
    with pytest.raises(ValueError, match="cannot compose query=mmlu"):
        sweep(tmp_path, "aime,gsm8k,mmlu", broken="query=mmlu")
