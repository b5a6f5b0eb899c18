"""AIME 2026 (MathArena/aime_2026): the 30 problems of AIME I and II 2026, integer answers 0-999.

Upstream parquet (MathArena/aime_2026, train split) columns: problem_idx (int64), answer (int64),
problem (string). Prepared rows:

    {"question": <problem>, "expected_answer": "70",
     "metadata": {"problem_idx": 1, "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.download import PrepareContext

URL = "https://huggingface.co/datasets/MathArena/aime_2026/resolve/main/data/train-00000-of-00001.parquet"
EXTRA_FIELDS = ("problem_type",)  # upstream columns kept in metadata when present


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, answer = item.get("problem"), item.get("answer")
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    if isinstance(answer, float) and answer.is_integer():
        answer = int(answer)  # a float column would otherwise give "70.0"
    gold = "" if answer is None or isinstance(answer, bool) else str(answer).strip()
    if not gold:
        return None, "missing 'answer'"
    metadata: dict[str, Any] = {"problem_idx": item.get("problem_idx")}
    for field in EXTRA_FIELDS:
        if item.get(field) is not None:
            value = item[field]
            metadata[field] = list(value) if isinstance(value, (list, tuple)) else value
    metadata["source_index"] = index
    return {"question": problem, "expected_answer": gold, "metadata": metadata}, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    rows = []
    for index, item in enumerate(ctx.read_parquet(raw)):
        row, problem = convert(item, index)
        if problem:
            ctx.bad_row(f"{raw}: row {index} (problem_idx {item.get('problem_idx')})", problem)
            continue
        rows.append(row)
    return ctx.write_rows(rows)
