"""m-ArenaHard (CohereLabs/m-ArenaHard): the 500 Arena-Hard v0.1 prompts translated into 23 languages.

Upstream: one parquet file per language, `<lang>/test-00000-of-00001.parquet`, columns question_id,
cluster, category, prompt (gated on Hugging Face: accept the terms, export HF_TOKEN). The dataset ships
no baseline answers; the reference then leaves the baseline empty, so its judge compares every answer
with nothing. gym pairs each prompt with arena-hard-auto's GPT-4-0314 answer to the same question (the
question ids are shared), or with the answers in `prepare_args.baseline_file` (model_answer JSONL
layout, optionally with a `language` field per row) when given. Rows as in gym/data/arena.py, plus
metadata.language (also the subset).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data.arena import LANGUAGES, prepare_multilingual, read_baselines

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "https://huggingface.co/datasets/CohereLabs/m-ArenaHard/resolve/main"
BASELINE = "https://raw.githubusercontent.com/lmarena/arena-hard-auto/main/data/arena-hard-v0.1/model_answer/gpt-4-0314.jsonl"


def prepare(ctx: PrepareContext, languages: list[str] | tuple[str, ...] = LANGUAGES,
            baseline_file: str | None = None) -> Path:
    english = {} if baseline_file else read_baselines(ctx, ctx.fetch(BASELINE))
    return prepare_multilingual(ctx, REPO, languages, english, baseline_file, token_env="HF_TOKEN")
