"""MATH (Hendrycks et al.), full 5,000-problem test split, from the copy in QwenLM/Qwen2.5-Math
(evaluation/data/math/test.jsonl) that the reference harness downloads.

Upstream rows: {"problem", "solution", "answer", "subject", "level" ("Level 3"), "unique_id"}; some
copies name the problem "question" instead, which is accepted too. Answers are LaTeX and kept verbatim.
Prepared rows:

    {"question": <problem>, "expected_answer": "\\dfrac{1}{9}", "reference_solution": <solution>,
     "metadata": {"subject": "Prealgebra", "level": "Level 4", "unique_id": "test/prealgebra/1397.json",
                  "source_index": 1}}

Any other upstream keys are kept under metadata as well, as the reference keeps them on the row.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import math_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://raw.githubusercontent.com/QwenLM/Qwen2.5-Math/refs/heads/main/evaluation/data/math/test.jsonl"
CONSUMED = {"problem", "question", "answer", "solution"}  # keys that become top-level row fields


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem = item.get("problem") if "problem" in item else item.get("question")
    return math_row(problem, item.get("answer"), item.get("solution"), index=index,
                    metadata={key: value for key, value in item.items() if key not in CONSUMED})


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw), convert, label="record", first=1))
