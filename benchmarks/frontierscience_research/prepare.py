"""FrontierScience, research part (openai/frontierscience, research/test.jsonl): open-ended research-level
problems in physics, chemistry and biology, each graded against an author-written 10-point rubric.

Upstream JSONL keys: problem, answer (the rubric), subject, task_group_id. Rows of another subject are left
out, as the reference does (counted in the manifest); a row without a rubric is kept and reported. Prepared rows:

    {"question": <problem>, "expected_answer": <rubric>, "id": "research-0", "subject": "chemistry",
     "metadata": {"subject": "chemistry", "task_group_id": ..., "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

URL = "https://huggingface.co/datasets/openai/frontierscience/resolve/main/research/test.jsonl"


SUBJECTS = ("chemistry", "biology", "physics")  # the reference keeps these three


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, rubric = item.get("problem"), item.get("answer")
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    subject = str(item.get("subject") or "").strip().lower()
    rubric = rubric.strip() if isinstance(rubric, str) else ""
    return {"question": problem, "expected_answer": rubric, "id": f"research-{index}", "subject": subject,
            "metadata": {"subject": subject, "task_group_id": item.get("task_group_id"), "source_index": index}
            }, None if rubric else "missing 'answer' (the rubric)"


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    rows: list[dict[str, Any]] = []
    for index, item in enumerate(ctx.read_jsonl(raw)):
        if str(item.get("subject") or "").strip().lower() not in SUBJECTS:
            ctx.leave_out_row(f"subject outside {', '.join(SUBJECTS)} (as the reference)")
            continue
        ctx.keep(rows, convert(item, index), f"{raw}: record {index + 1}")
    return ctx.write_rows(rows)
