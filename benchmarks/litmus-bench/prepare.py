"""Litmus-Bench v0.1 (nvidia/Nemotron-RL-litmus-bench-v0.1, test.jsonl at a pinned revision): 482
molecular-property questions about ChEMBL molecules given as SMILES (counts of atoms, bonds and
functional groups; yes/no presence checks), answered directly, without tools.

Upstream keys used: responses_create_params.input (the chat messages; the prompt already says how to
write the answer), expected_answer (a number; integral for every v0.1 test row), property_type (count,
fragment, bool, presence), property, chembl_id, smiles, method ("direct"), use_box_format (true:
\\boxed{N}, false: ((N))), uuid. Prepared rows:

    {"question": <the messages' text>, "expected_answer": "13", "answer_kind": "count",
     "answer_wrapper": "boxed", "answer_template": "\\\\boxed{{answer}}",
     "metadata": {"property_type": "count", "property": ..., "chembl_id": ..., "smiles": ..., "uuid": ...,
                  "source_index": 0}}

System messages, if any, come first in the question, separated by a blank line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

REVISION = "dab852b1fd2085f60c49af85fcb7d58ead4bf1c1"
URL = f"https://huggingface.co/datasets/nvidia/Nemotron-RL-litmus-bench-v0.1/resolve/{REVISION}/test.jsonl"
KINDS = {"count": "count", "fragment": "count", "bool": "bool", "presence": "bool"}
TEMPLATES = {"boxed": "\\boxed{{answer}}", "double_paren": "(({answer}))"}


def _messages_text(params: Any) -> str | None:
    messages = params.get("input") if isinstance(params, dict) else None
    if not isinstance(messages, list) or not messages:
        return None
    parts = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            return None
        parts.append(content.strip())
    return "\n\n".join(part for part in parts if part) or None


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    question = _messages_text(item.get("responses_create_params"))
    if question is None:
        return None, "responses_create_params.input must be a non-empty list of messages with string content"
    kind = KINDS.get(item.get("property_type"))
    if kind is None:
        return None, f"unsupported property_type {item.get('property_type')!r}"
    gold = item.get("expected_answer")
    if isinstance(gold, bool) or not isinstance(gold, (int, float)) or not math.isfinite(gold) or gold != int(gold):
        return None, f"expected_answer {gold!r} is not a whole number"
    if kind == "bool" and int(gold) not in (0, 1):
        return None, f"expected_answer {gold!r} is not 0 or 1 for a yes/no property"
    if item.get("method", "direct") != "direct":
        return None, f"method {item.get('method')!r}: only direct-answer rows are supported"
    wrapper = "boxed" if item.get("use_box_format") else "double_paren"
    return {
        "question": question, "expected_answer": str(int(gold)), "answer_kind": kind, "answer_wrapper": wrapper,
        "answer_template": TEMPLATES[wrapper],
        "metadata": {key: item.get(key) for key in ("property_type", "property", "chembl_id", "smiles", "uuid")}
        | {"source_index": index},
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_jsonl(raw), convert, id_field="uuid"))
