"""GPQA Diamond (Idavidrein/gpqa, gated): 198 graduate-level science questions, four choices.

Upstream is `gpqa_diamond.csv` (one column per field, e.g. "Question", "Correct Answer",
"Incorrect Answer 1".."Incorrect Answer 3", "Record ID", "High-level domain", "Subdomain",
"Writer's Difficulty Estimate"). The dataset is gated: accept its terms on the Hugging Face page and
set HF_TOKEN. Prepared rows:

    {"question": ..., "options": {"A": ..., "B": ..., "C": ..., "D": ...}, "expected_answer": "C",
     "metadata": {"record_id": ..., "domain": ..., "subdomain": ..., "difficulty": ..., "uuid": ...}}

The choices are shuffled with a seed derived from the question (md5 of the question text), exactly as
the reference harness does, so the correct letter of every question is reproducible across machines
and matches the reference's prepared file.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/Idavidrein/gpqa/resolve/main/gpqa_diamond.csv"
TOKEN_ENV = "HF_TOKEN"
LETTERS = ("A", "B", "C", "D")
CHOICE_COLUMNS = ("Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3")


def choice_order(question: str, seed: int | None = None) -> list[int]:
    """Permutation of the CHOICE_COLUMNS indices (0 = correct) for this question.

    With seed=None this is the reference's order: random.Random(int(md5(question), 16)) shuffling the
    list [correct, incorrect 1, incorrect 2, incorrect 3]. A list.shuffle depends only on the list's
    length and the generator, so shuffling indices gives the same order as shuffling the texts, and
    stays right when two choice texts happen to be equal. An integer seed gives another, equally
    reproducible order (for checking position bias).
    """
    key = question if seed is None else f"{seed}\n{question}"
    order = list(range(len(CHOICE_COLUMNS)))
    random.Random(int(hashlib.md5(key.encode()).hexdigest(), 16)).shuffle(order)
    return order


def convert(item: dict[str, Any], seed: int | None = None) -> tuple[dict[str, Any] | None, str | None]:
    question = item.get("Question")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'Question'"
    choices = [item.get(column) for column in CHOICE_COLUMNS]
    missing = [column for column, text in zip(CHOICE_COLUMNS, choices) if not isinstance(text, str) or not text.strip()]
    if missing:
        return None, f"empty choice column(s): {', '.join(missing)}"
    order = choice_order(question, seed)  # the seed uses the raw text, as upstream has it
    options = {letter: choices[source].strip() for letter, source in zip(LETTERS, order)}
    return {
        "question": question.strip(),
        "options": options,
        "expected_answer": LETTERS[order.index(0)],
        "metadata": {
            "record_id": item.get("Record ID"),
            "domain": item.get("High-level domain"),
            "subdomain": item.get("Subdomain"),
            "difficulty": item.get("Writer's Difficulty Estimate"),
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, question)),
        },
    }, None


def prepare(ctx: PrepareContext, seed: int | None = None) -> Path:
    """`seed`: None keeps the reference's choice order; an integer reshuffles every question."""
    raw = ctx.fetch(URL, token_env=TOKEN_ENV)
    rows = []
    for index, item in enumerate(ctx.read_csv(raw)):
        row, problem = convert(item, seed)
        if row is not None:
            row["metadata"]["source_index"] = index
        ctx.keep(rows, (row, problem), f"{raw}: record {index + 1}")
    return ctx.write_rows(rows)
