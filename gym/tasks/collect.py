"""task=collect: every task × num_repeats to the model, verified in-process, appended to rollouts.jsonl.

The door: the composed config typed once (gym.core.typed); gym.collect runs the rest on the typed RunConfig
(a resume's rollouts file found, collect's knobs read and checked, the run's settings made).
"""

from __future__ import annotations

from typing import Any

from omegaconf import DictConfig

from gym.collect.pipeline import run_collect
from gym.core.typed import check_own_file, typed
from gym.rollouts import resume


def run(cfg: DictConfig) -> dict[str, Any]:
    check_own_file(cfg.get("benchmark"))  # benchmark=local without its file or family: one line
    with resume.signals_as_interrupts():
        return run_collect(typed(cfg))  # the door: below here, typed objects only
