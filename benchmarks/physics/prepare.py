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

from gym.converters import joined_answers, text_row, unboxed
from gym.multilingual import hf_converted_parquet

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

URL = hf_converted_parquet("desimfj/PHYSICS", "default", "test")


def gold_answer(answer: Any) -> str:
    """Sub-answers (each a list of accepted forms, or a string) -> "first, second, ..."."""
    if isinstance(answer, str):
        return unboxed(answer)
    firsts = [sub[0] if isinstance(sub, (list, tuple)) and sub else sub
              for sub in (answer if isinstance(answer, (list, tuple)) else [])]
    return joined_answers(form for form in firsts if isinstance(form, str))


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    solution, answer_type = item.get("solution"), item.get("answer_type")
    return text_row({**item, "answer": gold_answer(item.get("answer"))}, index,
                    **({"reference_solution": solution} if isinstance(solution, str) else {}),
                    metadata={"domain": item.get("domain"), "difficulty": item.get("difficulty"),
                              "answer_type": list(answer_type) if isinstance(answer_type, (list, tuple))
                              else answer_type})


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    """`languages`: the upstream language codes to keep (default ["en"], as the reference)."""
    keep = {"en"} if languages is None else {str(language) for language in ([languages] if isinstance(languages, str) else languages)}
    raw = ctx.fetch(URL)
    items = ctx.read_parquet(raw, required=("question", "answer", "language"), layout="desimfj/PHYSICS")
    kept = [item for item in items if str(item.get("language") or "").strip() in keep]
    return ctx.write_rows(ctx.convert_rows(raw, kept, convert))
