"""MGSM (Shi et al., from google-research/url-nlp, as published for simple-evals): 250 GSM8K problems
translated into 10 languages plus the English originals.

One TSV per language at https://openaipublic.blob.core.windows.net/simple-evals/mgsm_<lang>.tsv; each
line is "<question>\\t<numeric answer>", no header. Prepared rows:

    {"question": <problem>, "expected_answer": "18", "instruction": <in the problem's language>,
     "metadata": {"language": "de", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import chosen_languages, math_instruction, math_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://openaipublic.blob.core.windows.net/simple-evals/mgsm_{language}.tsv"
LANGUAGES = ("bn", "de", "en", "es", "fr", "ja", "ru", "sw", "te", "th", "zh")


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    rows = []
    for language in chosen_languages(languages, LANGUAGES, "mgsm"):
        raw = ctx.fetch(URL.format(language=language))
        try:
            lines = raw.read_text(encoding="utf-8-sig").splitlines()
        except UnicodeDecodeError as exc:
            ctx.bad_row(str(raw), f"not UTF-8 text ({exc})")
            continue
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            question, tab, answer = line.rpartition("\t")
            row, problem = math_row(question.strip() if tab else None, answer.strip().replace(",", ""),
                                    instruction=math_instruction(language),
                                    index=number - 1, metadata={"language": language})
            ctx.keep(rows, (row, problem if row else f"expected '<question>\\t<answer>' ({problem})"),
                     f"{raw}:{number}")
    return ctx.write_rows(rows)
