"""SecQue (nogabenyoash/SecQue): 565 expert-written questions on SEC filings (comparisons, ratios,
risk analysis), each with the filing excerpts it needs and a reference answer.

Read from Hugging Face's parquet conversion (default/train); columns used: qid, question, answer,
context, question_type (column names are matched case-insensitively). Prepared rows:

    {"question": ..., "expected_answer": ..., "context": <filing excerpts>,
     "metadata": {"qid": ..., "question_type": ..., "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.multilingual import hf_converted_parquet

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

URL = hf_converted_parquet("nogabenyoash/SecQue", "default", "train")


def _field(item: dict[str, Any], name: str) -> Any:
    for key, value in item.items():
        if str(key).strip().lower() == name:
            return value
    return None


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    question, answer, context = _field(item, "question"), _field(item, "answer"), _field(item, "context")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    if not isinstance(answer, str) or not answer.strip():
        return None, "missing 'answer'"
    if isinstance(context, (list, tuple)):
        context = "\n\n".join(str(part) for part in context if part)
    return {
        "question": question.strip(), "expected_answer": answer.strip(),
        "context": context.strip() if isinstance(context, str) else "",
        "metadata": {"qid": _field(item, "qid"), "question_type": _field(item, "question_type"), "source_index": index},
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_parquet(raw), convert))
