"""Humanity's Last Exam with its image questions (the reference's hle/config_vision): hle's prepare with
include_vision, so all 2,500 questions are kept and each image is written to images/ beside the rows."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import sibling_script

if TYPE_CHECKING:
    from gym.data import PrepareContext


def prepare(ctx: PrepareContext, include_vision: bool = True) -> Path:
    return sibling_script(__file__, "hle", "HLE reader").prepare(ctx, include_vision=include_vision)
