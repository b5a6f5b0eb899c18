"""AIME 2024 (HuggingFaceH4/aime_2024): the 30 problems of AIME I and II 2024, integer answers 0-999.

Upstream parquet columns: id (int64), problem, solution, answer, url, year (strings). Prepared rows:

    {"question": <problem>, "expected_answer": "204", "reference_solution": <solution>,
     "metadata": {"id": 60, "url": ..., "year": "2024", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.download import PrepareContext

URL = "https://huggingface.co/datasets/HuggingFaceH4/aime_2024/resolve/main/data/train-00000-of-00001.parquet"


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, answer = item.get("problem"), item.get("answer")
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    # The column is a string upstream; str() also covers a re-export that stores it as a number.
    gold = "" if answer is None else str(answer).strip()
    if not gold:
        return None, "missing 'answer'"
    row: dict[str, Any] = {"question": problem, "expected_answer": gold}
    if isinstance(item.get("solution"), str):
        row["reference_solution"] = item["solution"]
    row["metadata"] = {"id": item.get("id"), "url": item.get("url"), "year": item.get("year"), "source_index": index}
    return row, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_parquet(raw), convert))
