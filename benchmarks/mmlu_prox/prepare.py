"""MMLU-ProX (li-lab/MMLU-ProX): MMLU-Pro translated into 29 languages, up to ten options (A-J).

Data: one config per language, split test, read from Hugging Face's parquet conversion; columns
question_id, question, option_0 ... option_9, answer (letter), answer_index, cot_content, category, src.
Prompts: the per-language templates of lm-evaluation-harness's `mmlu_prox/lang_libs.py` (LANG_LIBS[lang]:
0 question label, 1 options label, 3 instruction with {subject} and {ans_suffix}, 5 answer phrase with
"({})"; LANG_SUBJECTS[lang][category]: the subject's name). Prepared rows:

    {"question": <question>, "options": {"A": ..., ...}, "expected_answer": "C",
     "instruction": <localised instruction>, "question_label": ..., "options_label": ...,
     "metadata": {"language": "de", "category": "law", "output_regex": <localised answer phrase>, ...}}

Differences from the reference, on purpose:
* lang_libs.py is read as data (Python literals via `ast`), never executed: the reference runs the
  downloaded file.
* The localised answer phrase is regex-escaped before its "(X)" slot becomes a letter group; the
  reference pastes the raw phrase into the pattern, so "." or "?" in a translation match any text, and
  it trims the English phrase with str.lstrip("the"), which strips characters, not a word.
* Trailing empty or "N/A" option slots are dropped, so the letters offered are the real choices.
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, chosen_languages, hf_converted_parquet

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "li-lab/MMLU-ProX"
LANG_LIBS_URL = ("https://raw.githubusercontent.com/EleutherAI/lm-evaluation-harness/refs/heads/main/"
                 "lm_eval/tasks/mmlu_prox/lang_libs.py")
LANGUAGES = ("af", "ar", "bn", "cs", "de", "en", "es", "fr", "hi", "hu", "id", "it", "ja", "ko", "mr", "ne", "pt",
             "ru", "sr", "sw", "te", "th", "uk", "ur", "vi", "wo", "yo", "zh", "zu")
LETTERS = "ABCDEFGHIJ"
PLACEHOLDERS = {"", "N/A"}


def read_lang_libs(path: Path) -> tuple[dict, dict]:
    """LANG_LIBS and LANG_SUBJECTS from lang_libs.py, evaluated as literals only."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError) as exc:
        raise GymError(f"{path}: not a readable lang_libs.py ({exc})") from None
    found: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in ("LANG_LIBS", "LANG_SUBJECTS"):
                try:
                    found[name] = ast.literal_eval(node.value)
                except ValueError:
                    raise GymError(f"{path}: {name} is not a plain literal; refusing to execute it") from None
    if set(found) != {"LANG_LIBS", "LANG_SUBJECTS"}:
        raise GymError(f"{path}: LANG_LIBS or LANG_SUBJECTS missing")
    return found["LANG_LIBS"], found["LANG_SUBJECTS"]


def answer_regex(phrase: str) -> str:
    """The localised answer phrase ("the answer is ({})") as a pattern capturing the letter."""
    if "({})" not in phrase:
        raise GymError(f"lang_libs answer phrase {phrase!r} has no '({{}})' slot")
    before, _, after = phrase.partition("({})")
    before = re.sub(r"^the\s+", "", before.strip(), flags=re.IGNORECASE)  # the word, as the reference meant
    slot = r"[*_\s]*\(?([A-J])\)?[*_]*"
    after = re.escape(after.strip()).replace(r"\ ", r"\s+")
    return re.escape(before).replace(r"\ ", r"\s+") + slot + (r"\s*" + after if after else "")


def convert(item: dict[str, Any], index: int, language: str, libs: list, subjects: dict
            ) -> tuple[dict[str, Any] | None, str | None]:
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    choices = [item.get(f"option_{i}") for i in range(10)]
    while choices and (choices[-1] is None or str(choices[-1]).strip() in PLACEHOLDERS):
        choices.pop()
    if len(choices) < 2 or not all(isinstance(c, str) and c.strip() for c in choices):
        return None, "options must be non-empty strings (option_0 ...)"
    gold = str(item.get("answer") or "").strip().upper()
    if gold not in LETTERS[: len(choices)]:
        return None, f"answer {item.get('answer')!r} is not one of the option letters"
    category = str(item.get("category") or "").strip()
    subject = subjects.get(category.replace(" ", "_"), subjects.get(category, category))
    seed = json.dumps({"question": question, "options": choices, "language": language}, sort_keys=True)
    return {
        "question": question.strip(),
        "options": dict(zip(LETTERS, (c.strip() for c in choices))),
        "expected_answer": gold,
        "instruction": libs[3].format(subject=subject, ans_suffix=libs[5].format("X")),
        "question_label": libs[0], "options_label": libs[1],
        "metadata": {"language": language, "category": category, "question_id": item.get("question_id"),
                     "src": item.get("src"), "output_regex": answer_regex(libs[5]),
                     "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, seed)), "source_index": index},
    }, None


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    return ctx.write_rows(prox_rows(ctx, REPO, chosen_languages(languages, LANGUAGES, "mmlu_prox")))


def prox_rows(ctx: PrepareContext, repo: str, chosen: list[str]) -> list[dict]:
    """Rows of an MMLU-ProX release (the full set or the Lite one: same layout and templates)."""
    lang_libs, lang_subjects = read_lang_libs(ctx.fetch(LANG_LIBS_URL))
    rows = []
    for language in chosen:
        if language not in lang_libs or language not in lang_subjects:
            raise GymError(f"mmlu_prox: lang_libs.py has no templates for language '{language}'")
        libs, subjects = lang_libs[language], lang_subjects[language]
        if not isinstance(libs, (list, tuple)) or len(libs) < 6:
            raise GymError(f"mmlu_prox: lang_libs.py entry for '{language}' is not the expected list of templates")
        raw = ctx.fetch(hf_converted_parquet(repo, language, "test"))
        items = ctx.read_parquet(raw, required=("question", "option_0", "option_1", "answer"), layout=f"{repo} ({language})")
        rows.extend(ctx.convert_rows(raw, items, lambda item, index: convert(item, index, language, libs, subjects),
                                     id_field="question_id"))
    return rows
