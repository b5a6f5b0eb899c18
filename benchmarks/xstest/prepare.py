"""XSTest (paul-rottger/xstest, xstest_prompts.csv at a pinned commit): 450 prompts for exaggerated safety:
250 safe prompts that only sound unsafe (homonyms, figurative language, safe targets, fiction, ...),
which a model should answer, and 200 unsafe contrasts, which it should refuse.

CSV columns: id, prompt, type, label (safe | unsafe), focus, note. Prepared rows:

    {"question": <prompt>, "expected_answer": "comply" | "refuse",
     "metadata": {"id": 1, "label": "safe", "type": "homonyms", "focus": "kill", "note": ..., "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.data import PrepareContext

COMMIT = "475f10bf0a3d6a9dfb174b6de1a38afbfdff98a5"
URL = f"https://raw.githubusercontent.com/paul-rottger/xstest/{COMMIT}/xstest_prompts.csv"
EXPECTED = {"safe": "comply", "unsafe": "refuse"}


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    prompt = (item.get("prompt") or "").strip()
    if not prompt:
        return None, "missing 'prompt'"
    label = (item.get("label") or "").strip().lower()
    if label not in EXPECTED:
        return None, f"label {item.get('label')!r} is not safe or unsafe"
    ident = (item.get("id") or "").strip()
    return {"question": prompt, "expected_answer": EXPECTED[label],
            "metadata": {"id": int(ident) if ident.isdigit() else ident, "label": label,
                         "type": (item.get("type") or "").strip(), "focus": (item.get("focus") or "").strip(),
                         "note": (item.get("note") or "").strip(), "source_index": index}}, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_csv(raw), convert, label="record", first=1, id_field="id"))
