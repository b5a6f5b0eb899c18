"""Global PIQA, non-parallel part (mrlbenchmarks/global-piqa-nonparallel): physical commonsense questions
written natively in 100+ language varieties; each has a prompt and two solutions, one of them right.

One config per language variety (e.g. eng_latn, deu_latn, jpn_jpan), split test, read from Hugging
Face's parquet conversion; columns prompt, solution0, solution1, label (0 or 1). Prepared rows:

    {"question": <prompt>, "options": {"A": <solution0>, "B": <solution1>}, "expected_answer": "B",
     "metadata": {"language": "deu_latn", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data.multilingual import hf_converted_parquet

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

REPO = "mrlbenchmarks/global-piqa-nonparallel"
# A spread of scripts and families; any config name of the dataset may be given instead.
DEFAULT_LANGUAGES = ("eng_latn", "deu_latn", "fra_latn", "spa_latn", "por_latn", "ita_latn", "rus_cyrl", "arb_arab",
                     "hin_deva", "ben_beng", "jpn_jpan", "kor_hang", "zho_hans", "swh_latn", "yor_latn", "tha_thai")


def convert(item: dict[str, Any], index: int, language: str) -> tuple[dict[str, Any] | None, str | None]:
    prompt = item.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return None, "missing 'prompt'"
    solutions = [item.get("solution0"), item.get("solution1")]
    if not all(isinstance(s, str) and s.strip() for s in solutions):
        return None, "solution0 and solution1 must be non-empty strings"
    label = item.get("label")
    if isinstance(label, str) and label.strip().isdigit():
        label = int(label)
    if label not in (0, 1) or isinstance(label, bool):
        return None, f"label {label!r} is not 0 or 1"
    return {"question": prompt.strip(), "options": {"A": solutions[0].strip(), "B": solutions[1].strip()},
            "expected_answer": "AB"[label], "metadata": {"language": language, "source_index": index}}, None


def prepare(ctx: PrepareContext, languages: list[str] | None = None) -> Path:
    chosen = DEFAULT_LANGUAGES if languages is None else ([languages] if isinstance(languages, str) else languages)
    rows = []
    for language in dict.fromkeys(str(language).strip().lower() for language in chosen):
        raw = ctx.fetch(hf_converted_parquet(REPO, language, "test"))
        items = ctx.read_parquet(raw, required=("prompt", "solution0", "solution1", "label"), layout=f"{REPO} ({language})")
        rows.extend(ctx.convert_rows(raw, items, lambda item, index: convert(item, index, language)))
    return ctx.write_rows(rows)
