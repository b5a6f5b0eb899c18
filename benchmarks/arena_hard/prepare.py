"""Arena-Hard-Auto v0.1 (lmarena/arena-hard-auto): 500 hard user prompts judged pairwise against
GPT-4-0314's answers.

Upstream: `data/arena-hard-v0.1/question.jsonl` and `model_answer/gpt-4-0314.jsonl` (layouts in
gym/data/arena.py). The category field of v0.1 holds the dataset version ("arena-hard-v0.1"), not a
real category, so every row uses the default judge prompt (kept as metadata.upstream_category).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data.arena import convert, read_baselines

if TYPE_CHECKING:
    from gym.data import PrepareContext

BASE = "https://raw.githubusercontent.com/lmarena/arena-hard-auto/main/data/arena-hard-v0.1"
QUESTIONS = f"{BASE}/question.jsonl"
BASELINE = f"{BASE}/model_answer/gpt-4-0314.jsonl"


def prepare(ctx: PrepareContext) -> Path:
    baselines = {"*": read_baselines(ctx, ctx.fetch(BASELINE))}
    raw = ctx.fetch(QUESTIONS)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw),
                                           lambda item, i: convert(item, i, baselines, keep_category=False),
                                           label="row", first=1))
