"""τ²-bench `telecom-workflow` (sierra-research/tau2-bench, MIT): the telecom domain's tasks, tools and phone
(benchmarks/tau2_telecom) under the other policy upstream publishes for it, where the tech-support manual is
replaced by a step-by-step troubleshooting workflow. See gym.episodes.tau2.prepare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.episodes.tau2 import DOMAINS, prepare_domain

if TYPE_CHECKING:
    from gym.data import PrepareContext


def prepare(ctx: "PrepareContext", split: str | None = "test") -> Path:
    return prepare_domain(ctx, DOMAINS["telecom-workflow"], split=split)
