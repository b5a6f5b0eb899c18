"""LiveCodeBench-X (nvidia/Nemotron-Multilinugual-Eval-LCB; the repo id is spelled that way): LiveCodeBench
problem statements translated into German, Spanish, French and Japanese, judged by the original tests.

Translations: one config per LiveCodeBench version (v5, v6), one split per language, read from Hugging
Face's parquet conversion; columns task_id (the LiveCodeBench question_id), question (the translated
statement), release_version. Tests, starter code and difficulty come from the same version's
livecodebench/code_generation_lite release files, read and decoded by the livecodebench prepare
script (private tests without pickle object loading). Prepared rows:

    {"question": <translated statement>, "expected_answer": "", "instruction": <in the row's language>,
     "starter_code": ..., "answer_stub": ..., "formatting_message": ..., "unit_tests": {...},
     "metadata": {"language": "de", "task_id": "abc366_b", "release_version": "v6", "difficulty": "easy",
                  "source_index": 0}}

A translation whose task_id has no problem in the release files is reported as a bad row (the reference
drops it silently and only prints a count).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import chosen_languages, hf_converted_parquet, sibling_script

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "nvidia/Nemotron-Multilinugual-Eval-LCB"
LANGUAGES = ("de", "es", "fr", "ja")
VERSIONS = ("v5", "v6")
INSTRUCTIONS = {
    "de": "Löse die folgende Programmieraufgabe in Python.",
    "es": "Resuelve el siguiente problema de programación en Python.",
    "fr": "Résous le problème de programmation suivant en Python.",
    "ja": "次のプログラミング問題を Python で解いてください。",
}


LCB = sibling_script(__file__, "livecodebench", "LiveCodeBench reader")


def canonical_index(ctx: PrepareContext, version: str) -> dict[str, dict]:
    """question_id -> the converted LiveCodeBench row, over the version's release files."""
    index: dict[str, dict] = {}
    for name in LCB.RELEASES[version]:
        raw = ctx.fetch(LCB.BASE_URL + name)
        for number, item in ctx.iter_jsonl(raw):
            row, problem = LCB.convert(item, number - 1, name)
            if problem:
                ctx.bad_row(f"{raw}:{number} ({item.get('question_id')})", problem)
            else:
                index[str(item.get("question_id"))] = row
    return index


def convert(item: dict[str, Any], index: int, language: str, version: str, canonical: dict[str, dict]
            ) -> tuple[dict[str, Any] | None, str | None]:
    task_id, question = str(item.get("task_id") or ""), item.get("question")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    base = canonical.get(task_id)
    if base is None:
        return None, f"task_id {task_id!r} is not a problem of LiveCodeBench {version}"
    return {
        "question": question.strip(), "expected_answer": "", "instruction": INSTRUCTIONS[language],
        **{key: base[key] for key in ("starter_code", "answer_stub", "formatting_message", "unit_tests")},
        "metadata": {"language": language, "task_id": task_id, "release_version": item.get("release_version") or version,
                     "difficulty": base["metadata"].get("difficulty"), "platform": base["metadata"].get("platform"),
                     "source_index": index},
    }, None


def prepare(ctx: PrepareContext, languages: list[str] | None = None, versions: list[str] | None = None) -> Path:
    rows = []
    for version in chosen_languages(versions, VERSIONS, "livecodebench-x (versions)"):
        canonical = canonical_index(ctx, version)
        for language in chosen_languages(languages, LANGUAGES, "livecodebench-x"):
            raw = ctx.fetch(hf_converted_parquet(REPO, version, language))
            items = ctx.read_parquet(raw, required=("task_id", "question"), layout=f"{REPO} ({version}/{language})")
            rows.extend(ctx.convert_rows(raw, items, lambda item, i: convert(item, i, language, version, canonical),
                                         id_field="task_id"))
    return ctx.write_rows(rows)
