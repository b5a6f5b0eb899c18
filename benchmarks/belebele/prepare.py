"""Belebele (facebook/belebele): reading comprehension over FLORES-200 passages, 900 questions per
language variety, four options each, fully parallel across 122 varieties.

One config per variety (e.g. deu_Latn), split test, read from Hugging Face's parquet conversion;
columns link, question_number, flores_passage, question, mc_answer1 ... mc_answer4, correct_answer_num
("1"-"4"), dialect, ds. Prepared rows:

    {"question": ..., "passage": <FLORES passage>, "options": {"A": ..., ..., "D": ...}, "expected_answer": "C",
     "metadata": {"language": "deu_Latn", "link": ..., "question_number": 1, "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import hf_converted_parquet

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "facebook/belebele"
DEFAULT_LANGUAGES = ("eng_Latn", "deu_Latn", "fra_Latn", "spa_Latn", "por_Latn", "ita_Latn", "rus_Cyrl", "arb_Arab",
                     "hin_Deva", "ben_Beng", "jpn_Jpan", "kor_Hang", "zho_Hans", "swh_Latn", "yor_Latn", "tha_Thai")
LETTERS = ("A", "B", "C", "D")


def convert(item: dict[str, Any], index: int, language: str) -> tuple[dict[str, Any] | None, str | None]:
    question, passage = item.get("question"), item.get("flores_passage")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    if not isinstance(passage, str) or not passage.strip():
        return None, "missing 'flores_passage'"
    options = [item.get(f"mc_answer{i}") for i in range(1, 5)]
    if not all(isinstance(text, str) and text.strip() for text in options):
        return None, "mc_answer1 ... mc_answer4 must be non-empty strings"
    number = str(item.get("correct_answer_num") or "").strip()
    if number not in ("1", "2", "3", "4"):
        return None, f"correct_answer_num {item.get('correct_answer_num')!r} is not 1-4"
    return {"question": question.strip(), "passage": passage.strip(),
            "options": dict(zip(LETTERS, (o.strip() for o in options))), "expected_answer": LETTERS[int(number) - 1],
            "metadata": {"language": language, "link": item.get("link"), "question_number": item.get("question_number"),
                         "source_index": index}}, None


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    chosen = DEFAULT_LANGUAGES if languages is None else ([languages] if isinstance(languages, str) else languages)
    rows = []
    for language in dict.fromkeys(str(language).strip() for language in chosen):
        raw = ctx.fetch(hf_converted_parquet(REPO, language, "test"))
        items = ctx.read_parquet(raw, required=("flores_passage", "question", "mc_answer1", "correct_answer_num"),
                                 layout=f"{REPO} ({language})")
        rows.extend(ctx.convert_rows(raw, items, lambda item, index: convert(item, index, language)))
    return ctx.write_rows(rows)
