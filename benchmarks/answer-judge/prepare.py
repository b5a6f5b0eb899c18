"""Answer-Judge: the model is the judge of 12 math answer pairs (a predicted and an expected answer to one
problem) and ends with "Judgement: Yes" (equivalent) or "Judgement: No"; its verdict is compared with the
gold one.

Upstream keeps the 12 rows as a Python literal, `ROWS = [...]`, in the reference's
benchmarks/answer-judge/prepare.py (pinned commit below), each {problem, expected_answer,
predicted_answer, expected_judgement: "Judgement: Yes|No", comment}. gym reads that literal as data
(ast.literal_eval: nothing in the file is run). Prepared rows:

    {"question": "Problem: ...\\nPredicted answer: ...\\nExpected answer: ...", "problem", "predicted_answer",
     "reference_answer": <the upstream expected_answer>, "expected_answer": "Yes" | "No",
     "metadata": {"comment", "subset": <gold verdict>, "source_index"}}
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError

if TYPE_CHECKING:
    from gym.data import PrepareContext

COMMIT = "a2fbe87435a92ec604cec6e6bf9c3d4223577a04"
URL = f"https://raw.githubusercontent.com/NVIDIA-NeMo/Gym/{COMMIT}/benchmarks/answer-judge/prepare.py"
QUESTION = "Problem: {problem}\nPredicted answer: {predicted}\nExpected answer: {expected}"
FIELDS = ("problem", "expected_answer", "predicted_answer", "expected_judgement")


def literal_rows(path: Path, name: str = "ROWS") -> list[Any]:
    """The value of the module-level `name = [...]` literal in a Python file, read without running it."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError) as exc:
        raise GymError(f"{path}: not a readable Python file ({exc.__class__.__name__})") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                raise GymError(f"{path}: {name} is not a plain literal") from None
            if isinstance(value, list):
                return value
    raise GymError(f"{path}: no list literal {name} = [...] (the upstream layout)")


def convert(item: Any, index: int) -> tuple[dict[str, Any] | None, str | None]:
    if not isinstance(item, dict) or not all(isinstance(item.get(key), str) for key in FIELDS):
        return None, f"needs string fields {', '.join(FIELDS)}"
    verdict = item["expected_judgement"].removeprefix("Judgement:").strip()
    if verdict not in ("Yes", "No"):
        return None, f"expected_judgement {item['expected_judgement']!r} is not 'Judgement: Yes' or 'Judgement: No'"
    problem, predicted, expected = item["problem"], item["predicted_answer"], item["expected_answer"]
    return {"question": QUESTION.format(problem=problem, predicted=predicted, expected=expected), "problem": problem,
            "predicted_answer": predicted, "reference_answer": expected, "expected_answer": verdict,
            "metadata": {"comment": item.get("comment"), "subset": verdict, "source_index": index}}, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, literal_rows(raw), convert))
