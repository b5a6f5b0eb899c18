"""AIME 2025 (MathArena/aime_2025): the 30 problems of AIME I and II 2025, integer answers 0-999.

Upstream parquet columns: problem_idx (int64), problem (string), answer (int64),
problem_type (list of strings). Prepared rows:

    {"question": <problem>, "expected_answer": "70",
     "metadata": {"problem_idx": 1, "problem_type": ["Number Theory"], "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.download import PrepareContext

URL = "https://huggingface.co/datasets/MathArena/aime_2025/resolve/main/data/train-00000-of-00001.parquet"


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, answer = item.get("problem"), item.get("answer")
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    if answer is None or isinstance(answer, bool) or str(answer).strip() == "":
        return None, "missing 'answer'"
    if isinstance(answer, float) and answer == int(answer):
        answer = int(answer)  # a float column would otherwise give "70.0"
    problem_type = item.get("problem_type")
    return {
        "question": problem,
        "expected_answer": str(answer).strip(),
        "metadata": {
            "problem_idx": item.get("problem_idx"),
            "problem_type": list(problem_type) if problem_type is not None else [],
            "source_index": index,
        },
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    rows = []
    for index, item in enumerate(ctx.read_parquet(raw)):
        row, problem = convert(item, index)
        if problem:
            ctx.bad_row(f"{raw}: row {index}", problem)
            continue
        rows.append(row)
    return ctx.write_rows(rows)
