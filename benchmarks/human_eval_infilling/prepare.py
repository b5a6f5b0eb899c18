"""HumanEval-Infilling (openai/human-eval-infilling): fill-in-the-middle versions of the HumanEval tasks,
from the package's data files (gzipped JSONL, one per split):

    single_line 1,033 · multi_line 5,815 · random_span 1,640 · random_span_light 164

Keys: task_id, entry_point, prompt (the code before the hole), suffix (the code after it),
canonical_solution (the missing middle, empty in 14 random_span tasks: an empty middle is a valid answer,
and the reference keeps those tasks too), test. Prepared rows:

    {"question": <instruction with the code around the hole>, "expected_answer": <the middle>,
     "prefix": ..., "suffix": ..., "canonical_solution": ..., "test": ..., "entry_point": ...,
     "metadata": {"task_id": "RandomSpanInfilling/HumanEval/0/1", "split": "random_span", "source_index": 0}}

The tests run prefix + answer + suffix; see gym.verifiers.code.fim for how the middle is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError

if TYPE_CHECKING:
    from gym.data import PrepareContext

BASE = "https://github.com/openai/human-eval-infilling/raw/master/data"
FILES = {"single_line": "HumanEval-SingleLineInfilling.jsonl.gz", "multi_line": "HumanEval-MultiLineInfilling.jsonl.gz",
         "random_span": "HumanEval-RandomSpanInfilling.jsonl.gz",
         "random_span_light": "HumanEval-RandomSpanInfillingLight.jsonl.gz"}
HOLE = "<FILL_ME>"


def question(prefix: str, suffix: str) -> str:
    return ("Complete the Python code below by writing the code that goes in place of " + HOLE + ". Reply with only "
            "that missing code in one ```python code block, keeping its exact indentation; do not repeat the code "
            "around it.\n\n```python\n" + prefix + HOLE + suffix + "\n```")


def convert(item: dict[str, Any], index: int, split: str) -> tuple[dict[str, Any] | None, str | None]:
    fields = {key: item.get(key) for key in ("task_id", "entry_point", "prompt", "suffix", "canonical_solution", "test")}
    missing = [key for key, value in fields.items() if not isinstance(value, str)]
    if missing:
        return None, f"missing {', '.join(missing)}"
    return {
        "question": question(fields["prompt"], fields["suffix"]), "expected_answer": fields["canonical_solution"],
        "prefix": fields["prompt"], "suffix": fields["suffix"], "canonical_solution": fields["canonical_solution"],
        "test": fields["test"], "entry_point": fields["entry_point"],
        "metadata": {"task_id": fields["task_id"], "split": split, "source_index": index},
    }, None


def prepare(ctx: PrepareContext, split: str = "random_span") -> Path:
    """`split`: single_line | multi_line | random_span | random_span_light."""
    if split not in FILES:
        raise GymError(f"human_eval_infilling: unknown split '{split}'; choose from {', '.join(FILES)}")
    raw = ctx.fetch(f"{BASE}/{FILES[split]}")
    items = ctx.read_jsonl_gz(raw)
    return ctx.write_rows(ctx.convert_rows(raw, items, lambda item, index: convert(item, index, split),
                                           id_field="task_id"))
