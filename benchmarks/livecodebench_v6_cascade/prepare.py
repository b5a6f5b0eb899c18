"""LiveCodeBench v6 with the Nemotron Cascade prompt: the rows of benchmarks/livecodebench/prepare.py (same
release files, window and hidden tests) plus `function_header`, the starter code introduced as the cascade
prompt does (empty for stdin problems)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import sibling_script

if TYPE_CHECKING:
    from gym.data import PrepareContext

LIVECODEBENCH = sibling_script(__file__, "livecodebench", "LiveCodeBench reader")


def prepare(ctx: PrepareContext, release: str, start_date: str, end_date: str, files: list[str] | None = None) -> Path:
    return LIVECODEBENCH.prepare_cascade(ctx, release, start_date, end_date, files)
