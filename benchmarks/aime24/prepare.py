"""AIME 2024 (HuggingFaceH4/aime_2024): the 30 problems of AIME I and II 2024, integer answers 0-999.

Upstream parquet columns: id (int64), problem, solution, answer, url, year (strings). Prepared rows:

    {"question": <problem>, "expected_answer": "204", "reference_solution": <solution>,
     "metadata": {"id": 60, "url": ..., "year": "2024", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.converters import math_row

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

URL = "https://huggingface.co/datasets/HuggingFaceH4/aime_2024/resolve/main/data/train-00000-of-00001.parquet"


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    # The answer column is a string upstream; math_row also covers a re-export that stores numbers.
    row, problem = math_row(item.get("problem"), item.get("answer"), item.get("solution"))
    if row is None:
        return None, problem
    row["metadata"] = {"id": item.get("id"), "url": item.get("url"), "year": item.get("year"), "source_index": index}
    return row, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_parquet(raw), convert))
