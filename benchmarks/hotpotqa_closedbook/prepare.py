"""HotpotQA, closed book: the 7,405 questions of the distractor validation split (hotpotqa/hotpot_qa),
asked WITHOUT their paragraphs, so the model answers from what it knows.

Upstream parquet columns: id, question, answer, type ("comparison" | "bridge"), level ("easy" |
"medium" | "hard"), supporting_facts {title, sent_id}, context {title, sentences}. The context and the
supporting facts are left out on purpose. Prepared rows:

    {"question": ..., "expected_answer": "Scott Derrickson",
     "metadata": {"id": "5a8b57f25542995d1e6f1371", "type": "comparison", "level": "hard", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import text_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/hotpotqa/hotpot_qa/resolve/main/distractor/validation-00000-of-00001.parquet"
LIGHT_COLUMNS = ("id", "question", "answer", "type", "level")


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    return text_row(item, index, strip=False,
                    metadata={"id": item.get("id"), "type": item.get("type"), "level": item.get("level")})


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    # The question/answer columns only: the paragraphs are most of the file and are never used here.
    items = ctx.read_parquet(raw, LIGHT_COLUMNS)
    return ctx.write_rows(ctx.convert_rows(raw, items, convert, id_field="id"))
