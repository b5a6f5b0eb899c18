"""MMLU-Pro (TIGER-Lab/MMLU-Pro, test split): 12,032 questions over 14 subjects, up to ten choices.

Upstream parquet columns: question_id (int64), question, options (list of strings), answer (the
letter), answer_index (int64), cot_content, category, src. Prepared rows:

    {"question": ..., "options": {"A": ..., ..., "J": ...}, "expected_answer": "I",
     "metadata": {"question_id": 70, "category": "business", "src": "ori_mmlu-business_ethics",
                  "uuid": ..., "source_index": 0}}
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/TIGER-Lab/MMLU-Pro/resolve/main/data/test-00000-of-00001.parquet"
LETTERS = "ABCDEFGHIJ"
PLACEHOLDER = "N/A"  # padding some releases put after the real choices


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    question, choices, answer = item.get("question"), item.get("options"), item.get("answer")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    if not isinstance(choices, (list, tuple)) or not all(isinstance(c, str) for c in choices):
        return None, "'options' must be a list of strings"
    choices = list(choices)
    # Drop trailing padding only: letters of the real choices stay where upstream put them.
    while choices and choices[-1].strip() == PLACEHOLDER:
        choices.pop()
    if not 2 <= len(choices) <= len(LETTERS):
        return None, f"expected 2 to {len(LETTERS)} options, got {len(choices)}"
    letters = LETTERS[: len(choices)]
    gold = answer.strip() if isinstance(answer, str) else ""
    if gold not in letters:
        return None, f"answer {answer!r} is not one of the option letters {letters[0]}-{letters[-1]}"
    answer_index = item.get("answer_index")
    if answer_index is not None and answer_index != letters.index(gold):
        return None, f"answer {gold!r} disagrees with answer_index {answer_index}"
    # The same question text appears under several categories with different options, so both seed the id.
    seed_text = json.dumps({"question": question, "options": list(item["options"])}, sort_keys=True)
    return {
        "question": question,
        "options": dict(zip(letters, choices)),
        "expected_answer": gold,
        "metadata": {
            "question_id": item.get("question_id"),
            "category": item.get("category"),
            "src": item.get("src"),
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, seed_text)),
            "source_index": index,
        },
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_parquet(raw), convert, id_field="question_id"))
