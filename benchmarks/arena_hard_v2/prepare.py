"""Arena-Hard-Auto v2.0 (lmarena/arena-hard-auto): 750 prompts in two categories, each judged pairwise
against its own baseline: hard_prompt against o3-mini-2025-01-31, creative_writing against
gemini-2.0-flash-001 (the creative prompts get the creative-writing judge prompt).

Upstream: `data/arena-hard-v2.0/question.jsonl` and `model_answer/<baseline>.jsonl` (layouts in
gym/data/arena.py). A question whose category has no baseline answer for its uid is a bad row.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data.arena import convert, read_baselines

if TYPE_CHECKING:
    from gym.data import PrepareContext

BASE = "https://raw.githubusercontent.com/lmarena/arena-hard-auto/main/data/arena-hard-v2.0"
QUESTIONS = f"{BASE}/question.jsonl"
BASELINES = {
    "hard_prompt": f"{BASE}/model_answer/o3-mini-2025-01-31.jsonl",
    "creative_writing": f"{BASE}/model_answer/gemini-2.0-flash-001.jsonl",
}


def prepare(ctx: PrepareContext) -> Path:
    baselines = {category: read_baselines(ctx, ctx.fetch(url)) for category, url in BASELINES.items()}
    raw = ctx.fetch(QUESTIONS)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw),
                                           lambda item, i: convert(item, i, baselines, keep_category=True),
                                           label="row", first=1))
