"""m-ArenaHard v2.0 (CohereLabs/m-ArenaHard-v2.0): the Arena-Hard v2.0 prompts in 23 languages, with
categories hard_prompt and creative_writing.

Upstream: one parquet file per language, `<lang>/test-00000-of-00001.parquet`, columns question_id,
category, subcategory, prompt, language (gated on Hugging Face: export HF_TOKEN). As for m_arena_hard,
the reference's baseline is empty; gym uses arena-hard-auto v2.0's baseline answers for the same
question ids (o3-mini for hard_prompt, gemini-2.0-flash for creative_writing) or the answers in
`prepare_args.baseline_file`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data.arena import LANGUAGES, prepare_multilingual, read_baselines

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "https://huggingface.co/datasets/CohereLabs/m-ArenaHard-v2.0/resolve/main"
BASE = "https://raw.githubusercontent.com/lmarena/arena-hard-auto/main/data/arena-hard-v2.0/model_answer"
BASELINES = (f"{BASE}/o3-mini-2025-01-31.jsonl", f"{BASE}/gemini-2.0-flash-001.jsonl")


def prepare(ctx: PrepareContext, languages: list[str] | tuple[str, ...] = LANGUAGES,
            baseline_file: str | None = None) -> Path:
    english: dict[str, str] = {}
    if not baseline_file:
        for url in BASELINES:  # each question id has an answer in the file of its category
            english.update(read_baselines(ctx, ctx.fetch(url)))
    return prepare_multilingual(ctx, REPO, languages, english, baseline_file, token_env="HF_TOKEN")
