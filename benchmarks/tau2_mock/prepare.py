"""τ²-bench `mock` domain (sierra-research/tau2-bench, MIT): 10 tasks over users, tasks and a user-side
notification inbox; small enough to be gym's offline episode benchmark. See gym.episodes.tau2.prepare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.episodes.tau2 import DOMAINS, prepare_domain

if TYPE_CHECKING:
    from gym.data import PrepareContext


def prepare(ctx: "PrepareContext", split: str | None = None) -> Path:
    return prepare_domain(ctx, DOMAINS["mock"], split=split)
