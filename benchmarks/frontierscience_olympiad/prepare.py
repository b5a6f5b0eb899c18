"""FrontierScience, olympiad part (openai/frontierscience, olympiad/test.jsonl).

Upstream JSONL keys: problem, answer, subject (physics | chemistry | biology), task_group_id. Answers
are often wrapped in backticks (`...`), which are removed as the reference does; rows whose subject is
none of the three are dropped, like the reference. Prepared rows:

    {"question": <problem>, "expected_answer": <answer without backticks>, "id": "olympiad-0",
     "subject": "physics", "metadata": {"task_group_id": ..., "source_index": 0}}
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

URL = "https://huggingface.co/datasets/openai/frontierscience/resolve/main/olympiad/test.jsonl"
SUBJECTS = ("chemistry", "biology", "physics")
_BACKTICKS = re.compile(r"^`+|`+$")
log = logging.getLogger("gym.prepare.frontierscience_olympiad")


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, answer = item.get("problem"), item.get("answer")
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    if not isinstance(answer, str) or not _BACKTICKS.sub("", answer.strip()).strip():
        return None, "missing 'answer'"
    return {
        "question": problem,
        "expected_answer": _BACKTICKS.sub("", answer.strip()).strip(),
        "id": f"olympiad-{index}",
        "subject": str(item.get("subject") or "").strip().lower(),
        "metadata": {"task_group_id": item.get("task_group_id"), "source_index": index},
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    rows, other_subjects = [], 0
    for index, item in enumerate(ctx.read_jsonl(raw)):
        row, problem = convert(item, index)
        if problem:
            ctx.bad_row(f"{raw}: record {index + 1}", problem)
            continue
        if row["subject"] not in SUBJECTS:
            other_subjects += 1
            continue
        rows.append(row)
    if other_subjects:
        log.warning("%d problems outside %s dropped", other_subjects, ", ".join(SUBJECTS))
    return ctx.write_rows(rows)
