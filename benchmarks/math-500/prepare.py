"""MATH-500: the 500-problem MATH test subset from openai/prm800k (math_splits/test.jsonl).

Upstream rows: {"problem", "solution", "answer", "subject", "level" (int), "unique_id"}; answers are
LaTeX ("\\left( 3, \\frac{\\pi}{2} \\right)") and kept verbatim. Prepared rows:

    {"question": <problem>, "expected_answer": <answer>, "reference_solution": <solution>,
     "metadata": {"subject": "Precalculus", "level": 2, "unique_id": "test/precalculus/807.json",
                  "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import prepare_math

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://github.com/openai/prm800k/raw/main/prm800k/math_splits/test.jsonl"


def prepare(ctx: PrepareContext) -> Path:
    return prepare_math(ctx, URL, ("subject", "level", "unique_id"), label="record", first=1)
