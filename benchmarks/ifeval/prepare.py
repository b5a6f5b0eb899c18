"""IFEval (google-research instruction_following_eval): 541 prompts with verifiable instructions.

Upstream rows: {"key": 1000, "prompt": str, "instruction_id_list": [str, ...], "kwargs": [{...}, ...]},
one kwargs dict per instruction id. Prepared rows keep the two lists at top level for the checkers:

    {"question": <prompt>, "expected_answer": "", "instruction_id_list": [...], "kwargs": [...],
     "metadata": {"key": 1000, "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import instruction_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://raw.githubusercontent.com/google-research/google-research/master/instruction_following_eval/data/input_data.jsonl"


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw), instruction_row, label="record", first=1, id_field="key"))
