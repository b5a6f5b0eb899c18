"""GraphWalks (openai/graphwalks): a long list of directed edges and a question about the graph, either
the parents of a node or the nodes at exactly depth d of a BFS; the answer is a node set.

Upstream parquet files at the repository root hold `prompt`, `answer_nodes` (list), `prompt_chars` and
`problem_type` (parents | bfs): `graphwalks_128k_and_shorter.parquet` (750 rows) and
`graphwalks_256k_to_1mil.parquet` (400 rows), both read by default as the reference reads the whole
train split (prepare_args.files=[graphwalks_128k_and_shorter.parquet] keeps the shorter prompts only).
As the reference does, the BFS wording "Perform a BFS from node X with depth d" is rewritten to ask for
the nodes at exactly depth d (the original wording is ambiguous about intermediate depths), and a node
listed among its own parents ("Find the parents of node X." with X in the answer) is taken out of the
gold set. With prepare_args.tokenizer (gym.data.tokens) each row gets metadata.n_tokens of its prompt and
max_context_tokens drops longer prompts (the reference's n3_1m variant: conf/benchmark/graphwalks_n3_1m.yaml).
Prepared rows:

    {"question": <prompt>, "expected_answer": "[\\"a\\", \\"b\\"]" (sorted JSON list),
     "metadata": {"problem_type", "prompt_chars", "subset": <problem_type>, "file", "source_index"}}
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import prepare_parquet_files, token_cap

if TYPE_CHECKING:
    from gym.data import PrepareContext

BASE = "https://huggingface.co/datasets/openai/graphwalks/resolve/main"
FILES = ("graphwalks_128k_and_shorter.parquet", "graphwalks_256k_to_1mil.parquet")
_BFS = re.compile(r"Perform a BFS from node (\S+) with depth (\d+)")
_BFS_FIXED = r"Perform a BFS from node \1 and return only the nodes at exactly depth \2 (not nodes at intermediate depths)"
_PARENTS_OF = re.compile(r"Find the parents of node ([^\s.]+)\.")


def gold_nodes(prompt: str, nodes: list[str]) -> list[str]:
    """The answer set, sorted; a parents question loses the queried node itself (once), as the reference."""
    nodes = list(nodes)
    asked = _PARENTS_OF.search(prompt)
    if asked and asked.group(1) in nodes:
        nodes.remove(asked.group(1))
    return sorted(nodes)


def convert(item: dict[str, Any], index: int, file: str) -> tuple[dict[str, Any] | None, str | None]:
    prompt, nodes = item.get("prompt"), item.get("answer_nodes")
    if not isinstance(prompt, str) or not prompt.strip():
        return None, "missing 'prompt'"
    if not isinstance(nodes, list) or not all(isinstance(node, str) for node in nodes):
        return None, "'answer_nodes' must be a list of node names"
    return {
        "question": _BFS.sub(_BFS_FIXED, prompt),
        "expected_answer": json.dumps(gold_nodes(prompt, nodes)),
        "metadata": {"problem_type": item.get("problem_type"), "prompt_chars": item.get("prompt_chars"),
                     "subset": item.get("problem_type"), "file": file, "source_index": index},
    }, None


def prepare(ctx: PrepareContext, files: list[str] | tuple[str, ...] = FILES, tokenizer: str | None = None,
            max_context_tokens: int | None = None) -> Path:
    keep = token_cap(ctx, tokenizer, max_context_tokens, lambda row: [row["question"]])
    return prepare_parquet_files(ctx, BASE, files, convert, FILES[0], keep=keep, layout="graphwalks",
                                 columns=["prompt", "answer_nodes", "prompt_chars", "problem_type"],
                                 required=["prompt", "answer_nodes"])
