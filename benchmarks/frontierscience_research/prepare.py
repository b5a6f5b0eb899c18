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

from gym.data import sibling_script

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/openai/frontierscience/resolve/main/research/test.jsonl"


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
    olympiad = sibling_script(__file__, "frontierscience_olympiad", "subject filter")
    return olympiad.prepare_subjects(ctx, URL, convert)
