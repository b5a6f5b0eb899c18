"""FLORES-200 (FLORES+, openlanguagedata/flores_plus, devtest split): 1,012 English sentences from
Wikinews, Wikijunior and Wikivoyage with professional translations, translated from English here.

Upstream is gated on Hugging Face (accept the terms, export HF_TOKEN): one JSONL file per language,
`devtest/<code>.jsonl` (codes such as eng_Latn, fra_Latn), rows `{"id", "iso_639_3", "iso_15924",
"glottocode", "text", "url", "domain", "topic", "has_image", "has_hyperlink", "last_updated"}`. English
and target sentences are paired by `id`. Like the reference, gym translates into every one of the 219
FLORES+ languages with a devtest split by default (221,628 rows; `languages.json` beside this script names
them); prepare_args.targets takes a subset or any other FLORES+ code. Prepared rows:

    {"question": "Translate ... into French. Reply with the translation only.\\n\\n<text>", "text",
     "expected_answer": <target text>, "source_language": "eng_Latn", "target_language": "fra_Latn",
     "source_lang_name", "target_lang_name", "id": "<target>-<id>",
     "metadata": {"domain", "topic", "url", "subset": "eng_Latn->fra_Latn", "source_index"}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL_TEMPLATE = "https://huggingface.co/datasets/openlanguagedata/flores_plus/resolve/main/devtest/{code}.jsonl"
SOURCE = "eng_Latn"
# Every FLORES+ language with a devtest split, by code, with its English name (the source first)
NAMES: dict[str, str] = json.loads((Path(__file__).with_name("languages.json")).read_text(encoding="utf-8"))
TARGETS = tuple(code for code in NAMES if code != SOURCE)  # all 219, as the reference translates into each
INSTRUCTION = "Translate the following {source} text into {target}. Reply with the translation only.\n\n{text}"


def _by_id(ctx: PrepareContext, path: Path) -> dict[Any, dict]:
    out = {}
    for number, item in enumerate(ctx.read_jsonl(path), start=1):
        if "id" not in item or not isinstance(item.get("text"), str) or not item["text"].strip():
            ctx.bad_row(f"{path}:{number}", "row without 'id' or 'text'")
            continue
        out[item["id"]] = item
    return out


def prepare(ctx: PrepareContext, targets: list[str] | tuple[str, ...] | None = None) -> Path:
    """`targets`: FLORES+ codes to translate into (None = all 219, as the reference)."""
    targets = TARGETS if targets is None else targets
    if isinstance(targets, str) or not targets or SOURCE in targets:
        raise GymError(f"targets must be a non-empty list of FLORES+ codes other than {SOURCE}, got {targets!r}")
    english = _by_id(ctx, ctx.fetch(URL_TEMPLATE.format(code=SOURCE), token_env="HF_TOKEN"))
    rows = []
    for code in targets:
        raw = ctx.fetch(URL_TEMPLATE.format(code=code), token_env="HF_TOKEN")
        name = NAMES.get(code, code)
        for index, (sentence_id, item) in enumerate(sorted(_by_id(ctx, raw).items(), key=lambda kv: str(kv[0]))):
            source = english.get(sentence_id)
            if source is None:
                ctx.bad_row(f"{raw}: id {sentence_id}", f"no {SOURCE} sentence with this id")
                continue
            ctx.count_seen(1)  # one target sentence, one prepared pair
            rows.append({
                "question": INSTRUCTION.format(source="English", target=name, text=source["text"].strip()),
                "text": source["text"].strip(), "expected_answer": item["text"].strip(),
                "source_language": SOURCE, "target_language": code, "source_lang_name": "English",
                "target_lang_name": name, "id": f"{code}-{sentence_id}",
                "metadata": {"domain": item.get("domain"), "topic": item.get("topic"), "url": item.get("url"),
                             "subset": f"{SOURCE}->{code}", "source_index": index},
            })
    return ctx.write_rows(rows)
