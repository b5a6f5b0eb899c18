"""FrontierScience, olympiad part (openai/frontierscience, olympiad/test.jsonl).

Upstream JSONL keys: problem, answer, subject (physics | chemistry | biology), task_group_id. Answers
are often wrapped in backticks (`...`), which are removed as the reference does; rows whose subject is
none of the three are left out, like the reference (and counted in the manifest); a row without
an answer is kept and reported, as the reference keeps it. Prepared rows:

    {"question": <problem>, "expected_answer": <answer without backticks>, "id": "olympiad-0",
     "subject": "physics", "metadata": {"task_group_id": ..., "source_index": 0}}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/openai/frontierscience/resolve/main/olympiad/test.jsonl"
SUBJECTS = ("chemistry", "biology", "physics")
_BACKTICKS = re.compile(r"^`+|`+$")


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, answer = item.get("problem"), item.get("answer")
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    gold = _BACKTICKS.sub("", answer.strip()).strip() if isinstance(answer, str) else ""
    return {
        "question": problem,
        "expected_answer": gold,
        "id": f"olympiad-{index}",
        "subject": str(item.get("subject") or "").strip().lower(),
        "metadata": {"task_group_id": item.get("task_group_id"), "source_index": index},
    }, None if gold else "missing 'answer'"


def prepare_subjects(ctx: PrepareContext, url: str, convert_item: Callable[[dict, int], tuple]) -> Path:
    """Both FrontierScience parts: rows of the three subjects converted, the others left out and counted."""
    raw = ctx.fetch(url)
    rows: list[dict[str, Any]] = []
    for index, item in enumerate(ctx.read_jsonl(raw)):
        if str(item.get("subject") or "").strip().lower() not in SUBJECTS:
            ctx.leave_out_row(f"subject outside {', '.join(SUBJECTS)} (as the reference)")
            continue
        ctx.keep(rows, convert_item(item, index), f"{raw}: record {index + 1}")
    return ctx.write_rows(rows)


def prepare(ctx: PrepareContext) -> Path:
    return prepare_subjects(ctx, URL, convert)
