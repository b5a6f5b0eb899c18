"""WMT24++ (google/wmt24pp): English source segments with post-edited human references in 55 target
languages; by default five of them (de_DE, es_MX, fr_FR, it_IT, ja_JP). The reference prepares all 55 by
default (its earlier versions took these five); `targets` takes any of the 55 codes.

Upstream is one JSONL file per pair at the dataset root, `en-<target>.jsonl`, rows `{"lp", "domain",
"document_id", "segment_id", "is_bad_source", "source", "target", "original_target"}`. Segments flagged
`is_bad_source` (robustness canaries such as "CANARY GUID ...", which the dataset's authors advise leaving
out of scoring) are left out, as the reference does, and counted in the manifest
(prepare_args.keep_bad_source=true keeps them). The same English segment appears once per target
language, so the prepared `question` is the whole instruction with the target language named, which keeps
each row distinct. Prepared rows:

    {"question": "Translate ... into German. Reply with the translation only.\\n\\n<source>", "text": <source>,
     "expected_answer": <target>, "source_language": "en", "target_language": "de_DE",
     "source_lang_name": "English", "target_lang_name": "German",
     "metadata": {"domain", "document_id", "segment_id", "subset": "en->de_DE", "source_index"}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.core.errors import GymError

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

URL_TEMPLATE = "https://huggingface.co/datasets/google/wmt24pp/resolve/main/en-{target}.jsonl"
TARGETS = ("de_DE", "es_MX", "fr_FR", "it_IT", "ja_JP")
LANGUAGE_NAMES = {"ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "ca": "Catalan", "cs": "Czech", "da": "Danish",
                  "de": "German", "el": "Greek", "es": "Spanish", "et": "Estonian", "fa": "Persian", "fi": "Finnish",
                  "fil": "Filipino", "fr": "French", "gu": "Gujarati", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian",
                  "hu": "Hungarian", "id": "Indonesian", "is": "Icelandic", "it": "Italian", "ja": "Japanese",
                  "kn": "Kannada", "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian", "ml": "Malayalam",
                  "mr": "Marathi", "nl": "Dutch", "no": "Norwegian", "pa": "Punjabi", "pl": "Polish",
                  "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian",
                  "sr": "Serbian", "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "th": "Thai",
                  "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "zh": "Chinese", "zu": "Zulu"}
INSTRUCTION = "Translate the following {source} text into {target}. Reply with the translation only.\n\n{text}"


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code.split("_")[0].lower(), code)


def convert(item: dict[str, Any], index: int, target: str) -> tuple[dict[str, Any] | None, str | None]:
    source, reference = item.get("source"), item.get("target")
    if not isinstance(source, str) or not source.strip() or not isinstance(reference, str) or not reference.strip():
        return None, "missing 'source' or 'target'"
    name = language_name(target)
    return {
        "question": INSTRUCTION.format(source="English", target=name, text=source),
        "text": source, "expected_answer": reference, "source_language": "en", "target_language": target,
        "source_lang_name": "English", "target_lang_name": name,
        "metadata": {"domain": item.get("domain"), "document_id": item.get("document_id"),
                     "segment_id": item.get("segment_id"), "subset": f"en->{target}", "source_index": index},
    }, None


def prepare(ctx: PrepareContext, targets: list[str] | tuple[str, ...] = TARGETS, keep_bad_source: bool = False) -> Path:
    if isinstance(targets, str) or not targets:
        raise GymError(f"targets must be a non-empty list of target codes such as de_DE, got {targets!r}")
    rows = []
    for target in targets:
        raw = ctx.fetch(URL_TEMPLATE.format(target=target))
        items = ctx.read_jsonl(raw)
        if not keep_bad_source:
            items = ctx.leave_out(items, lambda item: not item.get("is_bad_source"),
                                  "is_bad_source (as the reference)")
        rows += ctx.convert_rows(raw, items, lambda item, i, t=target: convert(item, i, t), label="row", first=1)
    return ctx.write_rows(rows)
