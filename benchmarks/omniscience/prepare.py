"""AA-Omniscience, public part (ArtificialAnalysis/AA-Omniscience-Public): factual questions across
domains (business, humanities, health, law, software engineering, science and more) with short reference
answers, meant to reward knowing and to penalise guessing over abstaining.

Read from Hugging Face's parquet conversion (default/train); columns question_id, domain, topic,
question, answer. Prepared rows:

    {"question": ..., "expected_answer": ..., "domain": "Law", "topic": ...,
     "metadata": {"question_id": ..., "domain": "Law", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import hf_converted_parquet

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = hf_converted_parquet("ArtificialAnalysis/AA-Omniscience-Public", "default", "train")


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    question, answer = item.get("question"), item.get("answer")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    gold = "" if answer is None else str(answer).strip()
    domain, topic = str(item.get("domain") or "").strip(), str(item.get("topic") or "").strip()
    return {"question": question.strip(), "expected_answer": gold, "domain": domain or "general knowledge",
            "topic": topic or domain or "general knowledge",
            "metadata": {"question_id": item.get("question_id"), "domain": domain, "source_index": index}
            }, None if gold else "missing 'answer'"  # kept, as the reference keeps it, and reported


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    items = ctx.read_parquet(raw, required=("question", "answer"), layout="AA-Omniscience-Public")
    return ctx.write_rows(ctx.convert_rows(raw, items, convert, id_field="question_id"))
