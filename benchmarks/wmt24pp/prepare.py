"""WMT24++ (google/wmt24pp): English source segments with post-edited human references in 55 target
languages, all prepared by default as the reference does (its earlier versions took five: de_DE, es_MX,
fr_FR, it_IT, ja_JP); `targets` takes any of the 55 codes. Where the dataset has two varieties of a language
(ar, fr, pt, sw, zh) the instruction names the region, e.g. "French (Canada)", as the reference names it.

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

from gym.data import GymError

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL_TEMPLATE = "https://huggingface.co/datasets/google/wmt24pp/resolve/main/en-{target}.jsonl"
TARGETS = ("ar_EG", "ar_SA", "bg_BG", "bn_IN", "ca_ES", "cs_CZ", "da_DK", "de_DE", "el_GR", "es_MX", "et_EE", "fa_IR",
           "fi_FI", "fil_PH", "fr_CA", "fr_FR", "gu_IN", "he_IL", "hi_IN", "hr_HR", "hu_HU", "id_ID", "is_IS", "it_IT",
           "ja_JP", "kn_IN", "ko_KR", "lt_LT", "lv_LV", "ml_IN", "mr_IN", "nl_NL", "no_NO", "pa_IN", "pl_PL", "pt_BR",
           "pt_PT", "ro_RO", "ru_RU", "sk_SK", "sl_SI", "sr_RS", "sv_SE", "sw_KE", "sw_TZ", "ta_IN", "te_IN", "th_TH",
           "tr_TR", "uk_UA", "ur_PK", "vi_VN", "zh_CN", "zh_TW", "zu_ZA")  # every en-<target> pair of the dataset
# Where the dataset has two varieties of a language, the instruction names the region too
REGIONS = {"ar_EG": "Egypt", "ar_SA": "Saudi Arabia", "fr_CA": "Canada", "fr_FR": "France", "pt_BR": "Brazil",
           "pt_PT": "Portugal", "sw_KE": "Kenya", "sw_TZ": "Tanzania", "zh_CN": "China", "zh_TW": "Taiwan"}
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
    name = LANGUAGE_NAMES.get(code.split("_")[0].lower(), code)
    return f"{name} ({REGIONS[code]})" if code in REGIONS else name


def convert(item: dict[str, Any], index: int, target: str) -> tuple[dict[str, Any] | None, str | None]:
    source, reference = item.get("source"), item.get("target")
    if not isinstance(source, str) or not source.strip():
        return None, "missing 'source'"
    reference = reference if isinstance(reference, str) else ""
    name = language_name(target)
    return {
        "question": INSTRUCTION.format(source="English", target=name, text=source),
        "text": source, "expected_answer": reference, "source_language": "en", "target_language": target,
        "source_lang_name": "English", "target_lang_name": name,
        "metadata": {"domain": item.get("domain"), "document_id": item.get("document_id"),
                     "segment_id": item.get("segment_id"), "subset": f"en->{target}", "source_index": index},
    }, None if reference.strip() else "missing 'target' (no reference translation)"


def prepare(ctx: PrepareContext, targets: list[str] | tuple[str, ...] | None = None, keep_bad_source: bool = False
            ) -> Path:
    """`targets`: the en-<target> pairs to read (None = all 55, as the reference)."""
    targets = TARGETS if targets is None else targets
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
