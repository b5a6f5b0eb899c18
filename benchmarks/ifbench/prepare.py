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

from gym.data import instruction_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://raw.githubusercontent.com/allenai/IFBench/refs/heads/main/data/IFBench_test.jsonl"


def _compact(value: Any) -> Any:
    """Whole-number floats back to ints (the export writes counts as 5.0)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    row, problem = instruction_row(item, index, null_kwargs=True)
    if row is not None:
        row["kwargs"] = [{name: _compact(value) for name, value in (k or {}).items() if value is not None}
                         for k in row["kwargs"]]
    return row, problem


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw), convert, label="record", first=1, id_field="key"))
