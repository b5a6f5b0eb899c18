"""MBPP+ (EvalPlus release v0.2.0): 378 hand-checked MBPP tasks with EvalPlus' extra test inputs.

Upstream is MbppPlus.jsonl.gz with rows {"task_id": "Mbpp/2", "prompt": <docstring with the task and
one example assertion>, "entry_point", "canonical_solution" (a whole program), "base_input",
"plus_input", "atol", "contract", "assertion"}. Inputs stay as upstream stores them (JSON lists); the
code verifier rebuilds the tuples, sets and complex numbers some tasks need, as EvalPlus does.
Prepared rows:

    {"question": <instruction + task>, "expected_answer": "", "entry_point": ..., "prompt": <verbatim>,
     "canonical_solution": ..., "base_input": [...], "plus_input": [...], "atol": 0, "contract": ...,
     "assertion": ..., "metadata": {"task_id": "Mbpp/2", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

URL = "https://github.com/evalplus/mbppplus_release/releases/download/v0.2.0/MbppPlus.jsonl.gz"
REQUIRED = ("task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input")

INSTRUCTION = (
    "Write a Python function `{entry_point}` that solves the task below; it should pass the example "
    "assertion.\n\n{task}\n\n"
    "Put your complete solution, with any imports it needs, in a single fenced code block:\n"
    "```python\n# your code here\n```"
)


def convert(item: dict[str, Any], index: int,
            indent_with_tabs: bool = True) -> tuple[dict[str, Any] | None, str | None]:
    missing = [key for key in REQUIRED if item.get(key) is None]
    if missing:
        return None, f"missing {', '.join(missing)}"
    if not all(isinstance(item[key], str) for key in ("prompt", "entry_point", "canonical_solution")):
        return None, "'prompt', 'entry_point' and 'canonical_solution' must be strings"
    if not isinstance(item["base_input"], list) or not isinstance(item["plus_input"], list):
        return None, "'base_input' and 'plus_input' must be lists"
    # As for HumanEval, the reference shows the task with 4-space indents turned into tabs.
    task = item["prompt"].replace("    ", "\t") if indent_with_tabs else item["prompt"]
    row: dict[str, Any] = {
        "question": INSTRUCTION.format(entry_point=item["entry_point"], task=task.strip("\n")),
        "expected_answer": "",
        "entry_point": item["entry_point"],
        "prompt": item["prompt"],
        "canonical_solution": item["canonical_solution"],
        "base_input": item["base_input"],
        "plus_input": item["plus_input"],
        "atol": item.get("atol") or 0,
        "contract": item.get("contract") or "",
        "assertion": item.get("assertion") or "",
        "metadata": {"task_id": item["task_id"], "source_index": index},
    }
    return row, None


def prepare(ctx: PrepareContext, indent_with_tabs: bool = True) -> Path:
    raw = ctx.fetch(URL)
    rows = ctx.convert_rows(raw, ctx.read_jsonl_gz(raw), lambda item, index: convert(item, index, indent_with_tabs),
                            label="record", first=1, id_field="task_id")
    return ctx.write_rows(rows)
