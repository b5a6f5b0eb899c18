"""Global-MMLU-Lite (CohereLabs/Global-MMLU-Lite): 400 MMLU questions per language (200 culturally
sensitive, 200 culturally agnostic), professionally translated, in 16 languages.

One config per language, split test, read from Hugging Face's parquet conversion; columns used:
question, option_a ... option_d, answer (letter), subject, subject_category, cultural_sensitivity_label
(CS | CA), sample_id. Prepared rows:

    {"question": ..., "options": {"A": ..., ..., "D": ...}, "expected_answer": "B",
     "metadata": {"language": "de", "subject": ..., "subject_category": ..., "cultural_sensitivity_label": "CS",
                  "sample_id": ..., "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import chosen_languages, hf_converted_parquet

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "CohereLabs/Global-MMLU-Lite"
LANGUAGES = ("ar", "bn", "de", "en", "es", "fr", "hi", "id", "it", "ja", "ko", "my", "pt", "sw", "yo", "zh")
LETTERS = ("A", "B", "C", "D")


def convert(item: dict[str, Any], index: int, language: str) -> tuple[dict[str, Any] | None, str | None]:
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    options = [item.get(f"option_{letter.lower()}") for letter in LETTERS]
    if not all(isinstance(text, str) and text.strip() for text in options):
        return None, "option_a ... option_d must be non-empty strings"
    gold = str(item.get("answer") or "").strip().upper()
    if gold not in LETTERS:
        return None, f"answer {item.get('answer')!r} is not one of A-D"
    return {"question": question.strip(), "options": dict(zip(LETTERS, (o.strip() for o in options))),
            "expected_answer": gold,
            "metadata": {"language": language, "subject": item.get("subject"),
                         "subject_category": item.get("subject_category"),
                         "cultural_sensitivity_label": item.get("cultural_sensitivity_label"),
                         "sample_id": item.get("sample_id"), "source_index": index}}, None


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    rows = []
    for language in chosen_languages(languages, LANGUAGES, "global_mmlu_lite"):
        raw = ctx.fetch(hf_converted_parquet(REPO, language, "test"))
        items = ctx.read_parquet(raw, required=("question", "option_a", "answer"), layout=f"{REPO} ({language})")
        rows.extend(ctx.convert_rows(raw, items, lambda item, index: convert(item, index, language), id_field="sample_id"))
    return ctx.write_rows(rows)
