"""GPQA translated (nvidia/Nemotron-Multilinugual-Eval-GPQA; the repo id is spelled that way).

One split per language (de, es, fr, ja), read from Hugging Face's parquet conversion; columns problem,
A, B, C, D (option texts, already shuffled upstream), expected_answer (the letter), uuid. Prepared rows:

    {"question": <problem>, "options": {"A": ..., ..., "D": ...}, "expected_answer": "C",
     "metadata": {"language": "de", "uuid": ..., "source_index": 0}}

The options are kept as data and shown by gym's prompt, so the verifier knows the option texts and
letters; the reference bakes them into the question text.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import chosen_languages, hf_converted_parquet

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "nvidia/Nemotron-Multilinugual-Eval-GPQA"
LANGUAGES = ("de", "es", "fr", "ja")
LETTERS = ("A", "B", "C", "D")


def convert(item: dict[str, Any], index: int, language: str) -> tuple[dict[str, Any] | None, str | None]:
    problem = item.get("problem")
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    options = {letter: item.get(letter) for letter in LETTERS}
    if not all(isinstance(text, str) and text.strip() for text in options.values()):
        return None, "options A-D must be non-empty strings"
    gold = str(item.get("expected_answer") or "").strip().upper()
    if gold not in LETTERS:
        return None, f"expected_answer {item.get('expected_answer')!r} is not one of A-D"
    return {"question": problem.strip(), "options": {k: v.strip() for k, v in options.items()}, "expected_answer": gold,
            "metadata": {"language": language, "uuid": item.get("uuid"), "source_index": index}}, None


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    rows = []
    for language in chosen_languages(languages, LANGUAGES, "gpqa-x"):
        raw = ctx.fetch(hf_converted_parquet(REPO, "default", language))
        items = ctx.read_parquet(raw, required=("problem", *LETTERS, "expected_answer"), layout=f"{REPO} ({language})")
        rows.extend(ctx.convert_rows(raw, items, lambda item, index: convert(item, index, language), id_field="uuid"))
    return ctx.write_rows(rows)
