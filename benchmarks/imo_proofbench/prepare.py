"""IMO-ProofBench (google-deepmind/superhuman, imobench/proofbench.csv at the commit gym pins for
IMO-AnswerBench): 60 olympiad proof problems (basic and advanced), each with a reference solution and
grading guidelines for the 0-7 scale.

CSV columns: "Problem ID", "Problem", "Solution", "Grading guidelines", "Category", "Level",
"Short Answer", "Source". Prepared rows:

    {"question": <Problem>, "expected_answer": <Solution>, "guidelines": <Grading guidelines>,
     "metadata": {"problem_id": "PB-Basic-001", "category": "Algebra", "level": "Basic",
                  "short_answer": ..., "source": ..., "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext

COMMIT = "326a740a6877d5ec098035c534d2fbd931fe83ee"
URL = f"https://raw.githubusercontent.com/google-deepmind/superhuman/{COMMIT}/imobench/proofbench.csv"


def _text(item: dict[str, Any], column: str) -> str:
    value = item.get(column)
    return value.strip() if isinstance(value, str) else ""


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, solution = _text(item, "Problem"), _text(item, "Solution")
    if not problem:
        return None, "missing 'Problem'"
    if not solution:
        return None, "missing 'Solution'"
    return {"question": problem, "expected_answer": solution,
            "guidelines": _text(item, "Grading guidelines") or "(none given: grade on the scale alone)",
            "metadata": {"problem_id": _text(item, "Problem ID"), "category": _text(item, "Category"),
                         "level": _text(item, "Level"), "short_answer": _text(item, "Short Answer"),
                         "source": _text(item, "Source"), "source_index": index}}, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_csv(raw), convert, label="record", first=1,
                                           id_field="Problem ID"))
