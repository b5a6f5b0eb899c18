"""MMMLU (openai/MMMLU): the MMLU test set professionally translated into 14 languages, 14,042 questions
each, from the CSVs OpenAI publishes for simple-evals:
https://openaipublic.blob.core.windows.net/simple-evals/mmlu_<LANG>.csv (English: mmlu.csv).

CSV header: an unnamed index column, then Question, A, B, C, D, Answer (letter), Subject. Prepared rows:

    {"question": ..., "options": {"A": ..., ..., "D": ...}, "expected_answer": "B",
     "metadata": {"language": "DE-DE", "subject": ..., "subcategory": ..., "category": ...,
                  "output_regex": <answer pattern>, "uuid": ..., "row_in_language": 0}}

metadata.output_regex is read by the mcq verifier: one pattern matching "<answer word>: <letter>" in
English and in the row's language (e.g. "Antwort: C", "答案：C", "উত্তরঃ ব", "الإجابة: ب"); its last
match in the response wins. Arabic (أ ب ج د), Bengali (অ ব ড ঢ) and full-width letters count as A-D.
Unlike the reference, a letter counts only after an answer word and only as a capital standing on its
own. The reference's pattern ends in a catch-all that takes the last lone letter anywhere in the response
(so "a" or "I" in prose could become the answer), and its Arabic range [أ-د] also admits letters that
are no option. Without an answer word the verifier (mode auto) falls back to a final \\boxed{} letter or
a lone letter on the last line.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, sibling_script

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL_TEMPLATE = "https://openaipublic.blob.core.windows.net/simple-evals/mmlu_{language}.csv"
ENGLISH_URL = "https://openaipublic.blob.core.windows.net/simple-evals/mmlu.csv"
ENGLISH = "EN-US"
LETTERS = ("A", "B", "C", "D")
COLUMNS = ("Question", "A", "B", "C", "D", "Answer", "Subject")

# The word a model writes before its letter, per language (longest first where one contains another).
ANSWER_WORDS: dict[str, tuple[str, ...]] = {
    "AR-XY": ("الإجابة النهائية", "الإجابة الصحيحة هي", "الإجابة الصحيحة", "الإجابة هي", "الإجابة",
              "الجواب النهائي", "الجواب", "إجابة"),
    "BN-BD": ("উত্তর",),
    "DE-DE": ("Antwort",),
    "ES-LA": ("Respuesta",),
    "FR-FR": ("Réponse", "Reponse"),
    "HI-IN": ("उत्तर",),
    "ID-ID": ("Jawaban",),
    "IT-IT": ("Risposta",),
    "JA-JP": ("答え", "回答", "解答", "答"),
    "KO-KR": ("답변", "정답", "답"),
    "PT-BR": ("Resposta",),
    "ZH-CN": ("最终答案", "答案", "答复", "回答", "答"),
    "SW-KE": ("Jibu",),
    "YO-NG": ("Ìdáhùn", "Idáhùn", "Ìdahun", "Idahun", "Àṣàyàn"),
}
LANGUAGES: tuple[str, ...] = tuple(ANSWER_WORDS)
ENGLISH_WORDS = ("Final Answer", "Answer")

# Capital A-D, full-width A-D, Arabic alef/ba/jim/dal and Bengali o/ba/dda/ddha; case-sensitive on purpose.
_LETTER = "(?-i:([A-D\uff21-\uff24\u0623\u0628\u062c\u062f\u0985\u09ac\u09a1\u09a2]))"
_COLON = r"\s*[*_]{0,3}\s*[:\uff1a\u0983]"  # ":" / full-width ":" / Bengali visarga "ঃ"
_LEAD_IN = r"[\s*_$(\[]*(?:\\boxed\{|\\text(?:bf)?\{)?[\s*_$(\[]*"


def _alternative(word: str) -> str:
    escaped = re.escape(unicodedata.normalize("NFKC", word)).replace(r"\ ", r"\s+")
    # Latin-script words must start a word ("Antwort", not "Gesamtantwort"); CJK words may not have spaces.
    return rf"(?<![^\W\d_]){escaped}" if word[0].isascii() or "LATIN" in unicodedata.name(word[0]) else escaped


def answer_pattern(language: str) -> str:
    """The output_regex for rows in `language` (English answer words are always accepted)."""
    words = (*ANSWER_WORDS.get(language, ()), *ENGLISH_WORDS)
    alternatives = "|".join(_alternative(word) for word in words)
    return f"(?:{alternatives}){_COLON}{_LEAD_IN}{_LETTER}(?![^\\W_]|['\u2019])"


# The mmlu prepare script: one subject table serves the three MMLU-family benchmarks.
MMLU = sibling_script(__file__, "mmlu", "MMLU subject table")


def convert(item: dict[str, Any], language: str, index: int, pattern: str) -> tuple[dict[str, Any] | None, str | None]:
    missing = [column for column in COLUMNS if not isinstance(item.get(column), str)]
    if missing:
        return None, f"missing column(s) {', '.join(missing)}"
    question = item["Question"].strip()
    if not question:
        return None, "empty Question"
    gold = item["Answer"].strip().upper()
    if gold not in LETTERS:
        return None, f"Answer {item['Answer']!r} is not one of A-D"
    subject = item["Subject"].strip()
    return {
        "question": question,
        "options": {letter: item[letter].strip() for letter in LETTERS},
        "expected_answer": gold,
        "metadata": {"language": language, **MMLU.subject_metadata(subject), "output_regex": pattern,
                     "uuid": MMLU.row_uuid(language, question, gold), "row_in_language": index},
    }, None


def prepare(ctx: PrepareContext, languages: list[str] | None = None, include_english: bool = False) -> Path:
    """`languages`: subset of the 14 (null = all); `include_english`: add the English original (EN-US)."""
    if isinstance(languages, str):
        languages = [languages]
    chosen = list(LANGUAGES) if languages is None else [str(language) for language in languages]
    unknown = [language for language in chosen if language not in LANGUAGES and language != ENGLISH]
    if unknown:
        raise GymError(f"unknown MMMLU language(s) {', '.join(unknown)}; choose from {', '.join(LANGUAGES)} "
                       f"(English: include_english=true)")
    if include_english and ENGLISH not in chosen:
        chosen.append(ENGLISH)
    rows = []
    for language in dict.fromkeys(chosen):
        raw = ctx.fetch(ENGLISH_URL if language == ENGLISH else URL_TEMPLATE.format(language=language))
        pattern = answer_pattern(language)
        for index, item in enumerate(ctx.read_csv(raw)):
            ctx.keep(rows, convert(item, language, index, pattern), f"{raw}: record {index + 1}")
    return ctx.write_rows(rows)
