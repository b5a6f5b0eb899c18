"""IFEval (google-research instruction_following_eval): 541 prompts with verifiable instructions.

Upstream rows: {"key": 1000, "prompt": str, "instruction_id_list": [str, ...], "kwargs": [{...}, ...]},
one kwargs dict per instruction id. Prepared rows keep the two lists at top level for the checkers:

    {"question": <prompt>, "expected_answer": "", "instruction_id_list": [...], "kwargs": [...],
     "metadata": {"key": 1000, "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.download import PrepareContext

URL = "https://raw.githubusercontent.com/google-research/google-research/master/instruction_following_eval/data/input_data.jsonl"


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    prompt, ids, kwargs = item.get("prompt"), item.get("instruction_id_list"), item.get("kwargs")
    if not isinstance(prompt, str) or not prompt.strip():
        return None, "missing 'prompt'"
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        return None, "'instruction_id_list' must be a non-empty list of strings"
    if kwargs is None:
        kwargs = [{} for _ in ids]
    if not isinstance(kwargs, list) or not all(isinstance(k, dict) for k in kwargs):
        return None, "'kwargs' must be a list of objects"
    if len(kwargs) != len(ids):
        return None, f"{len(ids)} instruction ids but {len(kwargs)} kwargs entries"
    return {
        "question": prompt,
        "expected_answer": "",
        "instruction_id_list": ids,
        "kwargs": kwargs,
        "metadata": {"key": item.get("key"), "source_index": index},
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw), convert, label="record", first=1, id_field="key"))
