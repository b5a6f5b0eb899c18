"""LongBench v2 (THUDM/LongBench-v2): 503 four-choice questions over contexts of 8k to 2M words in six
domains (single/multi-document QA, long in-context learning, dialogue history, code repositories,
structured data).

Upstream `data.json` is one JSON array of `{"_id", "domain", "sub_domain", "difficulty", "length",
"question", "choice_A".."choice_D", "answer", "context"}`. With prepare_args.tokenizer (gym.data.tokens)
each row gets metadata.n_tokens of its context and max_context_tokens drops longer contexts (the
reference's n3_1m variant: conf/benchmark/longbench_v2_n3_1m.yaml). Prepared rows:

    {"question", "context", "choice_A".."choice_D", "expected_answer": "B", "id": <_id>,
     "metadata": {"domain", "sub_domain", "difficulty", "length", "subset": <length>, "source_index"}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, token_cap

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/THUDM/LongBench-v2/resolve/main/data.json"
CHOICES = ("choice_A", "choice_B", "choice_C", "choice_D")


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    if not isinstance(item, dict):
        return None, "not a JSON object"
    question, context, answer = item.get("question"), item.get("context"), str(item.get("answer") or "").strip()
    if not isinstance(question, str) or not question.strip() or not isinstance(context, str):
        return None, "missing 'question' or 'context'"
    if answer not in ("A", "B", "C", "D"):
        return None, f"'answer' {item.get('answer')!r} is not A-D"
    if not all(isinstance(item.get(choice), str) for choice in CHOICES):
        return None, "missing a choice_A..choice_D field"
    return {
        "question": question.strip(), "context": context, **{choice: item[choice] for choice in CHOICES},
        "expected_answer": answer, "id": item.get("_id", f"longbench_v2_{index}"),
        "metadata": {"domain": item.get("domain"), "sub_domain": item.get("sub_domain"),
                     "difficulty": item.get("difficulty"), "length": item.get("length"),
                     "subset": item.get("length"), "source_index": index},
    }, None


def prepare(ctx: PrepareContext, tokenizer: str | None = None, max_context_tokens: int | None = None) -> Path:
    raw = ctx.fetch(URL)
    try:
        items = json.loads(Path(raw).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise GymError(f"{raw}: not a JSON file ({exc})") from None
    if not isinstance(items, list):
        raise GymError(f"{raw}: expected a JSON array of questions")
    rows = ctx.convert_rows(raw, items, convert, label="item", id_field=None)
    keep = token_cap(ctx, tokenizer, max_context_tokens, lambda row: [row["context"]])  # the context alone, as the reference
    return ctx.write_rows(rows if keep is None else [row for row in rows if keep(row)])
