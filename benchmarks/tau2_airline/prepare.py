"""τ²-bench `airline` domain (sierra-research/tau2-bench, MIT): 50 tasks (train 30 / test 20) of an
airline's customer service: bookings, cancellations, flight, cabin, baggage and passenger changes,
compensation, over a 7 MB database of 300 flights, 500 users and 2,000 reservations.
See gym.episodes.tau2.prepare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.episodes.tau2 import DOMAINS, prepare_domain

if TYPE_CHECKING:
    from gym.data import PrepareContext


def prepare(ctx: "PrepareContext", split: str | None = "test") -> Path:
    return prepare_domain(ctx, DOMAINS["airline"], split=split)
