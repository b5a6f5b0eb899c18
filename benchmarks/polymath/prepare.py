"""PolyMath (Qwen/PolyMath): 125 math problems per difficulty level (low, medium, high, top) in 18 parallel
languages, 9,000 in all. One parquet file per language and level: `<language>/<level>.parquet`, columns
id, question, answer. Prepared rows:

    {"question": <problem>, "expected_answer": "12", "instruction": <answer-format instruction>,
     "metadata": {"id": "low-en-3", "language": "en", "difficulty": "low", "weight": 1, "source_index": 3}}

The reference downloads the upstream repository's instruction.py and executes it to get its prompts;
gym runs no downloaded code and writes its own instructions (gym.data.multilingual). `weight` is the
level's weight in PolyMath's difficulty-weighted accuracy (1, 2, 4, 8).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import chosen_languages, math_instruction, math_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/Qwen/PolyMath/resolve/main/{language}/{level}.parquet"
LANGUAGES = ("ar", "bn", "de", "en", "es", "fr", "id", "it", "ja", "ko", "ms", "pt", "ru", "sw", "te", "th", "vi", "zh")
LEVELS = {"low": 1, "medium": 2, "high": 4, "top": 8}


def prepare(ctx: PrepareContext, languages: list[str] | None = None, levels: list[str] | None = None) -> Path:
    chosen = chosen_languages(languages, LANGUAGES, "polymath")
    chosen_levels = chosen_languages(levels, LEVELS, "polymath (levels)")
    rows = []
    for language in chosen:
        for level in chosen_levels:
            raw = ctx.fetch(URL.format(language=language, level=level))
            items = ctx.read_parquet(raw, required=("question", "answer"), layout="PolyMath")

            def convert(item: dict[str, Any], index: int, language: str = language, level: str = level):
                return math_row(item.get("question"), item.get("answer"), index=index,
                                instruction=math_instruction(language),
                                metadata={"id": item.get("id"), "language": language, "difficulty": level,
                                          "weight": LEVELS[level]})

            rows.extend(ctx.convert_rows(raw, items, convert, id_field="id"))
    return ctx.write_rows(rows)
