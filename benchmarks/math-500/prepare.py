"""MATH-500: the 500-problem MATH test subset from openai/prm800k (math_splits/test.jsonl).

Upstream rows: {"problem", "solution", "answer", "subject", "level" (int), "unique_id"}; answers are
LaTeX ("\\left( 3, \\frac{\\pi}{2} \\right)") and kept verbatim. Prepared rows:

    {"question": <problem>, "expected_answer": <answer>, "reference_solution": <solution>,
     "metadata": {"subject": "Precalculus", "level": 2, "unique_id": "test/precalculus/807.json",
                  "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.converters import math_row

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

URL = "https://github.com/openai/prm800k/raw/main/prm800k/math_splits/test.jsonl"


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    row, problem = math_row(item.get("problem"), item.get("answer"), item.get("solution"))
    if row is None:
        return None, problem
    row["metadata"] = {
        "subject": item.get("subject"),
        "level": item.get("level"),
        "unique_id": item.get("unique_id"),
        "source_index": index,
    }
    return row, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw), convert, label="record", first=1))
