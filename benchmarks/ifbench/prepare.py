"""IFBench (allenai/IFBench): 300 prompts, each with one or two of 58 out-of-distribution constraints.

Upstream rows: {"key": "0", "prompt": str, "instruction_id_list": [str, ...], "kwargs": [{...}, ...]},
one kwargs dict per instruction id holding every argument name of every constraint, null where
unused. Prepared rows keep the ids and only the arguments that are set:

    {"question": <prompt>, "expected_answer": "", "instruction_id_list": ["count:numbers"],
     "kwargs": [{"N": 5}], "metadata": {"key": "12", "source_index": 12}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.download import PrepareContext

URL = "https://raw.githubusercontent.com/allenai/IFBench/refs/heads/main/data/IFBench_test.jsonl"


def _compact(value: Any) -> Any:
    """Whole-number floats back to ints (the export writes counts as 5.0)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    prompt, ids, kwargs = item.get("prompt"), item.get("instruction_id_list"), item.get("kwargs")
    if not isinstance(prompt, str) or not prompt.strip():
        return None, "missing 'prompt'"
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        return None, "'instruction_id_list' must be a non-empty list of strings"
    if kwargs is None:
        kwargs = [{} for _ in ids]
    if not isinstance(kwargs, list) or not all(k is None or isinstance(k, dict) for k in kwargs):
        return None, "'kwargs' must be a list of objects"
    if len(kwargs) != len(ids):
        return None, f"{len(ids)} instruction ids but {len(kwargs)} kwargs entries"
    return {
        "question": prompt,
        "expected_answer": "",
        "instruction_id_list": ids,
        "kwargs": [{name: _compact(value) for name, value in (k or {}).items() if value is not None} for k in kwargs],
        "metadata": {"key": item.get("key"), "source_index": index},
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw), convert, label="record", first=1, id_field="key"))
