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

from gym.data import evalplus_fields, evalplus_shown_prompt, prepare_evalplus

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://github.com/evalplus/mbppplus_release/releases/download/v0.2.0/MbppPlus.jsonl.gz"

INSTRUCTION = (
    "Write a Python function `{entry_point}` that solves the task below; it should pass the example "
    "assertion.\n\n{task}\n\n"
    "Put your complete solution, with any imports it needs, in a single fenced code block:\n"
    "```python\n# your code here\n```"
)


def convert(item: dict[str, Any], index: int,
            indent_with_tabs: bool = True) -> tuple[dict[str, Any] | None, str | None]:
    fields, problem = evalplus_fields(item, ("prompt", "entry_point", "canonical_solution"))
    if fields is None:
        return None, problem
    task = evalplus_shown_prompt(item["prompt"], indent_with_tabs)  # shown with tabs, as for HumanEval
    return {
        "question": INSTRUCTION.format(entry_point=item["entry_point"], task=task),
        "expected_answer": "",
        **fields,
        "assertion": item.get("assertion") or "",
        "metadata": {"task_id": item["task_id"], "source_index": index},
    }, None


def prepare(ctx: PrepareContext, indent_with_tabs: bool = True) -> Path:
    return prepare_evalplus(ctx, URL, convert, indent_with_tabs)
