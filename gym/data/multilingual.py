"""Pieces shared by the multilingual prepare scripts (aime24-x, aime25-x, gpqa-x, polymath, global-piqa,
mmlu_prox): Hugging Face parquet URLs, per-language math instructions and the language field every
row carries (the per-subset breakdown groups by it)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from gym.core.errors import GymError


def hf_converted_parquet(repo: str, config: str, split: str, shard: int = 0) -> str:
    """The parquet file Hugging Face converts every public dataset split to (no `datasets` library needed)."""
    return f"https://huggingface.co/datasets/{repo}/resolve/refs%2Fconvert%2Fparquet/{config}/{split}/{shard:04d}.parquet"


# "Solve the problem and put only the final answer in \boxed{}", per language (gym's own wording).
MATH_INSTRUCTIONS: dict[str, str] = {
    "en": "Solve the following math problem. Put the final answer (and only the final answer) inside \\boxed{}.",
    "de": "Löse die folgende Mathematikaufgabe. Schreibe die endgültige Antwort (und nur diese) in \\boxed{}.",
    "es": "Resuelve el siguiente problema de matemáticas. Escribe la respuesta final (y solo ella) dentro de \\boxed{}.",
    "fr": "Résous le problème de mathématiques suivant. Écris la réponse finale (et seulement elle) dans \\boxed{}.",
    "it": "Risolvi il seguente problema di matematica. Scrivi la risposta finale (e solo quella) dentro \\boxed{}.",
    "pt": "Resolva o seguinte problema de matemática. Escreva a resposta final (e somente ela) dentro de \\boxed{}.",
    "ja": "次の数学の問題を解いてください。最終的な答え（答えのみ）を \\boxed{} の中に書いてください。",
    "zh": "请解答下面的数学题，并把最终答案（只写答案）放在 \\boxed{} 中。",
    "ko": "다음 수학 문제를 푸세요. 최종 답(답만)을 \\boxed{} 안에 쓰세요.",
    "ru": "Решите следующую математическую задачу. Запишите окончательный ответ (и только его) внутри \\boxed{}.",
}
LANGUAGE_NAMES: dict[str, str] = {
    "ar": "Arabic", "bn": "Bengali", "de": "German", "en": "English", "es": "Spanish", "fr": "French",
    "id": "Indonesian", "it": "Italian", "ja": "Japanese", "ko": "Korean", "ms": "Malay", "pt": "Portuguese",
    "ru": "Russian", "sw": "Swahili", "te": "Telugu", "th": "Thai", "vi": "Vietnamese", "zh": "Chinese",
}


def math_instruction(language: str) -> str:
    """The instruction in `language`, else an English one that asks for the answer to be reasoned in it."""
    if language in MATH_INSTRUCTIONS:
        return MATH_INSTRUCTIONS[language]
    name = LANGUAGE_NAMES.get(language, language)
    return (f"Solve the following math problem, which is written in {name}; reason in {name}. "
            "Put the final answer (and only the final answer) inside \\boxed{}.")


def chosen_languages(wanted: str | Iterable[str] | None, known: Iterable[str], what: str) -> list[str]:
    """prepare_args.languages checked against the known ones (null = all, in the known order)."""
    known = list(known)
    if wanted is None:
        return known
    chosen = [wanted] if isinstance(wanted, str) else [str(language) for language in wanted]
    unknown = [language for language in chosen if language not in known]
    if unknown:
        raise GymError(f"{what}: unknown language(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    return list(dict.fromkeys(chosen))


def prepare_translated_math(ctx, repo: str, known: Iterable[str], languages: str | Iterable[str] | None) -> Path:
    """Write the rows of a Nemotron multilingual math set for the chosen `languages` (null = all `known`)."""
    return ctx.write_rows(translated_math_rows(ctx, repo, chosen_languages(languages, known, ctx.name)))


def translated_math_rows(ctx, repo: str, languages: list[str]) -> list[dict]:
    """Rows of a Nemotron multilingual math set: one split per language, columns problem + expected_answer."""
    from gym.data.converters import math_row

    rows = []
    for language in languages:
        raw = ctx.fetch(hf_converted_parquet(repo, "default", language))
        items = ctx.read_parquet(raw, required=("problem", "expected_answer"), layout=f"{repo} ({language})")

        def convert(item: dict, index: int, language: str = language) -> tuple[dict | None, str | None]:
            return math_row(item.get("problem"), item.get("expected_answer"), index=index,
                            instruction=math_instruction(language), metadata={"language": language})

        rows.extend(ctx.convert_rows(raw, items, convert))
    return rows
