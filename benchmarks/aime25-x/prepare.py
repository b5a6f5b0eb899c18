"""AIME 2025 translated (nvidia/Nemotron-Multilinugual-Eval-AIME25; the repo id is spelled that way).

One split per language (de, es, fr, ja), 30 problems each, read from Hugging Face's parquet conversion
(`refs/convert/parquet/default/<language>/0000.parquet`); columns: problem, expected_answer. The
instruction in the problem's language is kept in its own field (the prompt puts it first), so the
question stays the translated problem itself. Prepared rows:

    {"question": <problem>, "expected_answer": "70", "instruction": <in the row's language>,
     "metadata": {"language": "de", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.multilingual import chosen_languages, translated_math_rows

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

REPO = "nvidia/Nemotron-Multilinugual-Eval-AIME25"
LANGUAGES = ("de", "es", "fr", "ja")


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    chosen = chosen_languages(languages, LANGUAGES, "aime25-x")
    return ctx.write_rows(translated_math_rows(ctx, REPO, chosen))
