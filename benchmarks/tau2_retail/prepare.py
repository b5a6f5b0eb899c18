"""τ²-bench `retail` domain (sierra-research/tau2-bench, MIT): 114 tasks (train 74 / test 40) of an online
shop's customer service: orders, returns, exchanges, address and payment changes over a 2.8 MB database.
See gym.episodes.tau2.prepare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.episodes.tau2 import DOMAINS, prepare_domain

if TYPE_CHECKING:
    from gym.data import PrepareContext


def prepare(ctx: "PrepareContext", split: str | None = "test") -> Path:
    return prepare_domain(ctx, DOMAINS["retail"], split=split)
