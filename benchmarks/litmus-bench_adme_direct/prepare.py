"""Litmus ADME Tier-5, the direct subset (the reference's litmus-bench/config_adme_direct): see
benchmarks/litmus-bench/prepare.py (adme_rows) for the rows and where they come from."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import sibling_script

if TYPE_CHECKING:
    from gym.data import PrepareContext

LITMUS = sibling_script(__file__, "litmus-bench", "Litmus export reader")


def prepare(ctx: PrepareContext, source_dir: str | None = None, split: str = "validation") -> Path:
    return ctx.write_rows(LITMUS.adme_rows(ctx, "direct", source_dir, split))
