"""OpenAI MRCR (openai/mrcr): multi-round co-reference over long synthetic conversations. The model
must reproduce the i-th of several similar requests' answers (2, 4 or 8 "needles"), starting its reply
with a given random string.

Upstream parquet files `<n>needle/<n>needle_<k>.parquet` (n = 2, 4, 8; k = 0, 1) hold `prompt` (a JSON
string: the list of chat messages), `answer`, `random_string_to_prepend`, `n_needles`,
`desired_msg_index`, `total_messages`, `n_chars`. The conversation is sent as it is (prompt template
"{messages}"). With prepare_args.tokenizer (gym.data.tokens), each row gets metadata.n_tokens (the sum of
its messages' token counts, as the reference counts) and max_context_tokens drops the longer ones (the
reference's n3_128k and n3_1m variants: conf/benchmark/mrcr_n3_128k.yaml, mrcr_n3_1m.yaml). Prepared rows:

    {"question": <the last user message>, "messages": [...], "expected_answer": <answer>,
     "random_string_to_prepend": ..., "metadata": {"n_needles", "n_chars", "total_messages",
     "subset": "<n>needle", "file", "source_index"}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import ROLES, prepare_parquet_files, token_cap

if TYPE_CHECKING:
    from gym.data import PrepareContext

BASE = "https://huggingface.co/datasets/openai/mrcr/resolve/main"
FILES = tuple(f"{n}needle/{n}needle_{k}.parquet" for n in (2, 4, 8) for k in (0, 1))
COLUMNS = ["prompt", "answer", "random_string_to_prepend", "n_needles", "desired_msg_index", "total_messages",
           "n_chars"]


def convert(item: dict[str, Any], index: int, file: str) -> tuple[dict[str, Any] | None, str | None]:
    try:
        messages = json.loads(item.get("prompt") or "")
    except (json.JSONDecodeError, TypeError):
        return None, "'prompt' is not a JSON list of messages"
    if (not isinstance(messages, list) or not messages or not all(
            isinstance(m, dict) and m.get("role") in ROLES and isinstance(m.get("content"), str) for m in messages)
            or messages[-1]["role"] != "user"):
        return None, "'prompt' must be a list of {role, content} messages ending with a user message"
    answer, prefix = item.get("answer"), item.get("random_string_to_prepend")
    if not isinstance(answer, str) or not isinstance(prefix, str) or not prefix:
        return None, "missing 'answer' or 'random_string_to_prepend'"
    needles = item.get("n_needles")
    return {
        "question": messages[-1]["content"],
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "expected_answer": answer, "random_string_to_prepend": prefix,
        "metadata": {"n_needles": needles, "n_chars": item.get("n_chars"), "total_messages": item.get("total_messages"),
                     "desired_msg_index": item.get("desired_msg_index"), "subset": f"{needles}needle",
                     "file": file, "source_index": index},
    }, None


def prepare(ctx: PrepareContext, files: list[str] | tuple[str, ...] = FILES, tokenizer: str | None = None,
            max_context_tokens: int | None = None) -> Path:
    # the reference counts every message's content on its own and sums the counts
    keep = token_cap(ctx, tokenizer, max_context_tokens, lambda row: [m["content"] for m in row["messages"]])
    return prepare_parquet_files(ctx, BASE, files, convert, FILES[0], keep=keep, layout="MRCR", columns=COLUMNS,
                                 required=["prompt", "answer", "random_string_to_prepend"])
