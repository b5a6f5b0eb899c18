"""τ²-bench `telecom` domain (sierra-research/tau2-bench, MIT): technical support for a phone carrier. The
agent has tools over the carrier's customers, lines, plans and bills; the user has tools over their own
phone (airplane mode, SIM, mobile data, roaming, APN, Wi-Fi calling, VPN, app permissions) and is graded
mostly by checks on the phone's final state. Upstream's tasks.json (over 4 MiB) holds generated tasks; its
split_tasks.json names base 114, train 74, test 40, small 20 and full 2,285 of them. See gym.episodes.tau2.prepare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.episodes.tau2 import DOMAINS, prepare_domain

if TYPE_CHECKING:
    from gym.data import PrepareContext


def prepare(ctx: "PrepareContext", split: str | None = "test") -> Path:
    return prepare_domain(ctx, DOMAINS["telecom"], split=split)
