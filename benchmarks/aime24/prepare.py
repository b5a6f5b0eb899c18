"""AIME 2024 (HuggingFaceH4/aime_2024): the 30 problems of AIME I and II 2024, integer answers 0-999.

Upstream parquet columns: id (int64), problem, solution, answer, url, year (strings). Prepared rows:

    {"question": <problem>, "expected_answer": "204", "reference_solution": <solution>,
     "metadata": {"id": 60, "url": ..., "year": "2024", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import prepare_math

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/HuggingFaceH4/aime_2024/resolve/main/data/train-00000-of-00001.parquet"


def prepare(ctx: PrepareContext) -> Path:
    return prepare_math(ctx, URL, ("id", "url", "year"))
