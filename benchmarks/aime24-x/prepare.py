"""AIME 2024 translated (nvidia/Nemotron-Multilinugual-Eval-AIME24; the repo id is spelled that way).

One split per language (de, es, fr, ja), 30 problems each, read from Hugging Face's parquet conversion
(`refs/convert/parquet/default/<language>/0000.parquet`); columns: problem, expected_answer. The
instruction in the problem's language is kept in its own field (the prompt puts it first), so the
question stays the translated problem itself. Prepared rows:

    {"question": <problem>, "expected_answer": "204", "instruction": <in the row's language>,
     "metadata": {"language": "de", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path

from gym.data import prepare_translated_math

REPO = "nvidia/Nemotron-Multilinugual-Eval-AIME24"
LANGUAGES = ("de", "es", "fr", "ja")


def prepare(ctx, languages: list[str] | None = None) -> Path:
    return prepare_translated_math(ctx, REPO, LANGUAGES, languages)
