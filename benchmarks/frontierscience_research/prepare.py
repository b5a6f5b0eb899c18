"""FrontierScience, research part (openai/frontierscience, research/test.jsonl): open-ended research-level
problems in physics, chemistry and biology, each graded against an author-written 10-point rubric.

Upstream JSONL keys: problem, answer (the rubric), subject, task_group_id. Prepared rows:

    {"question": <problem>, "expected_answer": <rubric>, "id": "research-0", "subject": "chemistry",
     "metadata": {"subject": "chemistry", "task_group_id": ..., "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

URL = "https://huggingface.co/datasets/openai/frontierscience/resolve/main/research/test.jsonl"


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, rubric = item.get("problem"), item.get("answer")
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    if not isinstance(rubric, str) or not rubric.strip():
        return None, "missing 'answer' (the rubric)"
    subject = str(item.get("subject") or "").strip().lower()
    return {"question": problem, "expected_answer": rubric.strip(), "id": f"research-{index}", "subject": subject,
            "metadata": {"subject": subject, "task_group_id": item.get("task_group_id"), "source_index": index}}, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw), convert))
