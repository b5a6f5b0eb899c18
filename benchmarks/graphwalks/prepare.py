"""GraphWalks (openai/graphwalks): a long list of directed edges and a question about the graph, either
the parents of a node or the nodes at exactly depth d of a BFS; the answer is a node set.

Upstream parquet files at the repository root hold `prompt`, `answer_nodes` (list), `prompt_chars` and
`problem_type` (parents | bfs). By default only `graphwalks_128k_and_shorter.parquet` is read
(prepare_args.files adds the 256k-1M file). As the reference does, the BFS wording "Perform a BFS from
node X with depth d" is rewritten to ask for the nodes at exactly depth d (the original wording is
ambiguous about intermediate depths). Prepared rows:

    {"question": <prompt>, "expected_answer": "[\\"a\\", \\"b\\"]" (sorted JSON list),
     "metadata": {"problem_type", "prompt_chars", "subset": <problem_type>, "file", "source_index"}}
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.converters import prepare_parquet_files

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

BASE = "https://huggingface.co/datasets/openai/graphwalks/resolve/main"
FILES = ("graphwalks_128k_and_shorter.parquet",)
_BFS = re.compile(r"Perform a BFS from node (\S+) with depth (\d+)")
_BFS_FIXED = r"Perform a BFS from node \1 and return only the nodes at exactly depth \2 (not nodes at intermediate depths)"


def convert(item: dict[str, Any], index: int, file: str) -> tuple[dict[str, Any] | None, str | None]:
    prompt, nodes = item.get("prompt"), item.get("answer_nodes")
    if not isinstance(prompt, str) or not prompt.strip():
        return None, "missing 'prompt'"
    if not isinstance(nodes, list) or not all(isinstance(node, str) for node in nodes):
        return None, "'answer_nodes' must be a list of node names"
    return {
        "question": _BFS.sub(_BFS_FIXED, prompt),
        "expected_answer": json.dumps(sorted(nodes)),
        "metadata": {"problem_type": item.get("problem_type"), "prompt_chars": item.get("prompt_chars"),
                     "subset": item.get("problem_type"), "file": file, "source_index": index},
    }, None


def prepare(ctx: PrepareContext, files: list[str] | tuple[str, ...] = FILES) -> Path:
    return prepare_parquet_files(ctx, BASE, files, convert, FILES[0], layout="graphwalks",
                                 columns=["prompt", "answer_nodes", "prompt_chars", "problem_type"],
                                 required=["prompt", "answer_nodes"])
