"""task=collect: every task × num_repeats to the model, verified in-process, appended to rollouts.jsonl.

The door: the composed config typed once (gym.core.typed), a resume's rollouts file found
(gym.rollouts.resume), collect's knobs read and checked (gym.rollouts.settings.CollectKnobs); gym.collect
runs the rest on those typed objects.
"""

from __future__ import annotations

from typing import Any

from omegaconf import DictConfig

from gym.collect.pipeline import run_collect
from gym.core.typed import typed
from gym.rollouts import resume
from gym.rollouts.settings import CollectKnobs


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.data import local

    local.check_required(cfg.get("benchmark"))  # benchmark=local without its file or family: one line
    with resume.signals_as_interrupts():
        typed_run = resume.resolve(typed(cfg))  # the door: below here, typed objects only
        return run_collect(typed_run, CollectKnobs.read(typed_run))
