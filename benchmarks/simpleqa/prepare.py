"""SimpleQA Verified (codelion/SimpleQA-Verified): 1,000 short fact-seeking questions with one gold answer.

Upstream is `simpleqa_verified.csv` with the columns original_index, problem, answer, topic, answer_type,
multi_step, requires_reasoning, urls. Numeric golds may carry their tolerance in the text ("120k
(acceptable range: anything between 118k and 122k)"); the judge reads it as written, so the answer is
kept verbatim. Prepared rows:

    {"question": <problem>, "expected_answer": <answer>, "id": <original_index>,
     "metadata": {<the upstream row, typed>, "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import text_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/codelion/SimpleQA-Verified/resolve/main/simpleqa_verified.csv"
FLAGS = ("multi_step", "requires_reasoning")


def _typed(item: dict[str, Any]) -> dict[str, Any]:
    """CSV cells are text: give the index and the yes/no columns their real types."""
    meta = {str(key): value for key, value in item.items() if key is not None}
    index = str(meta.get("original_index") or "").strip()
    if index.lstrip("-").isdigit():
        meta["original_index"] = int(index)
    for flag in FLAGS:
        value = str(meta.get(flag, "")).strip().lower()
        if value in ("true", "false"):
            meta[flag] = value == "true"
    return meta


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    meta = _typed(item)
    return text_row(item, index, ("problem", "answer"), id=meta.get("original_index", f"simpleqa_{index}"),
                    metadata=meta)


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_csv(raw), convert, label="record", first=1))
