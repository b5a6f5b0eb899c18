"""PHYSICS (desimfj/PHYSICS, test split): textbook and exam physics problems across mechanics,
electromagnetism, thermodynamics, optics, atomic and modern physics; English rows only, as the reference.

Read from Hugging Face's parquet conversion (default/test); columns question, answer (a list per
sub-question, each a list of accepted forms, usually \\boxed{...}), answer_type, domain, difficulty,
language, solution. The gold answer joins the first form of every sub-answer with ", " after removing
\\boxed{} wrappers. Prepared rows:

    {"question": ..., "expected_answer": "2.5 m/s, 10 J", "reference_solution": ...,
     "metadata": {"domain": "mechanics", "difficulty": "hard", "answer_type": [...], "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.multilingual import hf_converted_parquet
from gym.verifiers.base import last_boxed

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

URL = hf_converted_parquet("desimfj/PHYSICS", "default", "test")


def unbox(text: str) -> str:
    text = text.strip()
    inner = last_boxed(text) if text.startswith("\\boxed") else None
    return (inner if inner is not None else text).strip().strip("$").strip()


def gold_answer(answer: Any) -> str:
    """Sub-answers (each a list of accepted forms, or a string) -> "first, second, ..."."""
    if isinstance(answer, str):
        return unbox(answer)
    parts = []
    for sub in answer if isinstance(answer, (list, tuple)) else []:
        form = sub[0] if isinstance(sub, (list, tuple)) and sub else sub
        if isinstance(form, str) and unbox(form):
            parts.append(unbox(form))
    return ", ".join(parts)


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    gold = gold_answer(item.get("answer"))
    if not gold:
        return None, "missing 'answer'"
    answer_type = item.get("answer_type")
    row = {"question": question.strip(), "expected_answer": gold,
           "metadata": {"domain": item.get("domain"), "difficulty": item.get("difficulty"),
                        "answer_type": list(answer_type) if isinstance(answer_type, (list, tuple)) else answer_type,
                        "source_index": index}}
    if isinstance(item.get("solution"), str):
        row["reference_solution"] = item["solution"]
    return row, None


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    """`languages`: the upstream language codes to keep (default ["en"], as the reference)."""
    keep = {"en"} if languages is None else {str(language) for language in ([languages] if isinstance(languages, str) else languages)}
    raw = ctx.fetch(URL)
    items = ctx.read_parquet(raw, required=("question", "answer", "language"), layout="desimfj/PHYSICS")
    kept = [item for item in items if str(item.get("language") or "").strip() in keep]
    return ctx.write_rows(ctx.convert_rows(raw, kept, convert))
