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

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

URL = "https://github.com/evalplus/humanevalplus_release/releases/download/v0.1.10/HumanEvalPlus.jsonl.gz"
REQUIRED = ("task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input")

INSTRUCTION = (
    "Complete the following Python function. Do not change the code that is given; only write the code "
    "that completes it.\n\n{stub}\n\n"
    "Put your solution in a single fenced code block:\n```python\n# your code here\n```"
)


def convert(item: dict[str, Any], index: int, indent_with_tabs: bool = True) -> tuple[dict[str, Any] | None, str | None]:
    missing = [key for key in REQUIRED if item.get(key) is None]
    if missing:
        return None, f"missing {', '.join(missing)}"
    if not isinstance(item["prompt"], str) or not isinstance(item["entry_point"], str):
        return None, "'prompt' and 'entry_point' must be strings"
    if not isinstance(item["base_input"], list) or not isinstance(item["plus_input"], list):
        return None, "'base_input' and 'plus_input' must be lists"
    # The reference shows the stub with 4-space indents turned into tabs (the verifier still runs the
    # verbatim `prompt`); indent_with_tabs=false shows it as upstream has it.
    stub = item["prompt"].replace("    ", "\t") if indent_with_tabs else item["prompt"]
    row: dict[str, Any] = {
        "question": INSTRUCTION.format(stub=stub.strip("\n")),
        "expected_answer": "",
        "entry_point": item["entry_point"],
        "prompt": item["prompt"],
        "canonical_solution": item["canonical_solution"],
        "base_input": item["base_input"],
        "plus_input": item["plus_input"],
        "atol": item.get("atol") or 0,
        "contract": item.get("contract") or "",
    }
    if isinstance(item.get("test"), str):
        row["test"] = item["test"]
    row["metadata"] = {"task_id": item["task_id"], "source_index": index}
    return row, None


def prepare(ctx: PrepareContext, indent_with_tabs: bool = True) -> Path:
    raw = ctx.fetch(URL)
    rows = ctx.convert_rows(raw, ctx.read_jsonl_gz(raw), lambda item, index: convert(item, index, indent_with_tabs),
                            label="record", first=1, id_field="task_id")
    return ctx.write_rows(rows)
