"""HumanEval+ (EvalPlus release v0.1.10): the 164 HumanEval tasks with EvalPlus' extra test inputs.

Upstream is HumanEvalPlus.jsonl.gz with rows {"task_id", "prompt", "entry_point",
"canonical_solution", "test", "contract", "base_input", "plus_input", "atol"}. Prepared rows keep
what the code verifier needs at top level; `question` is the full request sent to the model:

    {"question": <instruction + function stub>, "expected_answer": "", "entry_point": ...,
     "prompt": <stub, verbatim>, "canonical_solution": ..., "base_input": [...], "plus_input": [...],
     "atol": 0, "contract": ..., "test": ..., "metadata": {"task_id": "HumanEval/0", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import evalplus_fields, evalplus_shown_prompt, prepare_evalplus

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://github.com/evalplus/humanevalplus_release/releases/download/v0.1.10/HumanEvalPlus.jsonl.gz"

INSTRUCTION = (
    "Complete the following Python function. Do not change the code that is given; only write the code "
    "that completes it.\n\n{stub}\n\n"
    "Put your solution in a single fenced code block:\n```python\n# your code here\n```"
)


def convert(item: dict[str, Any], index: int, indent_with_tabs: bool = True) -> tuple[dict[str, Any] | None, str | None]:
    fields, problem = evalplus_fields(item, ("prompt", "entry_point"))
    if fields is None:
        return None, problem
    stub = evalplus_shown_prompt(item["prompt"], indent_with_tabs)
    row: dict[str, Any] = {"question": INSTRUCTION.format(stub=stub), "expected_answer": "", **fields}
    if isinstance(item.get("test"), str):
        row["test"] = item["test"]
    row["metadata"] = {"task_id": item["task_id"], "source_index": index}
    return row, None


def prepare(ctx: PrepareContext, indent_with_tabs: bool = True) -> Path:
    return prepare_evalplus(ctx, URL, convert, indent_with_tabs)
