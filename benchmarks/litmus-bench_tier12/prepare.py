"""Litmus paired Tier 1/2 example (the reference's litmus-bench/config_tier12): see
benchmarks/litmus-bench/prepare.py (tier12_rows)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import sibling_script

if TYPE_CHECKING:
    from gym.data import PrepareContext

LITMUS = sibling_script(__file__, "litmus-bench", "Litmus export reader")


def prepare(ctx: PrepareContext, methods: list[str] | None = None) -> Path:
    return ctx.write_rows(LITMUS.tier12_rows(ctx, list(methods or ["direct"])))
