"""IMO-GradingBench (google-deepmind/superhuman, pinned commit): 1,000 human-graded olympiad proofs; the
model grades each proof as correct / almost / partial / incorrect.

Upstream `imobench/gradingbench.csv` has the columns Grading ID, Problem ID, Problem, Solution,
Grading guidelines, Response, Points, Reward, Problem Source. Each problem has many graded responses,
so the prepared `question` holds the problem and the proof to grade (unique per row). Prepared rows:

    {"question": "<problem>\\n\\n<proof>", "problem": ..., "proof": ..., "reference_solution": ...,
     "rubric": ..., "expected_answer": "correct", "id": <Grading ID>,
     "metadata": {"problem_id", "points", "source", "subset": <gold grade>, "source_index"}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.verifiers import GRADE_POINTS

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = ("https://raw.githubusercontent.com/google-deepmind/superhuman/c1ee02e03d4cdb2ab21cd01ac927d895f5287fc8/"
       "imobench/gradingbench.csv")
QUESTION = "Problem:\n{problem}\n\nProposed solution to grade:\n{proof}"


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    problem, proof = (item.get("Problem") or "").strip(), (item.get("Response") or "").strip()
    grade = (item.get("Reward") or "").strip().lower()
    if not problem or not proof:
        return None, "missing 'Problem' or 'Response'"
    if grade not in GRADE_POINTS:
        return None, f"'Reward' {item.get('Reward')!r} is not one of Correct, Almost, Partial, Incorrect"
    points = (item.get("Points") or "").strip()
    return {
        "question": QUESTION.format(problem=problem, proof=proof),
        "problem": problem, "proof": proof,
        "reference_solution": (item.get("Solution") or "").strip(),
        "rubric": (item.get("Grading guidelines") or "").strip(),
        "expected_answer": grade,
        "id": (item.get("Grading ID") or "").strip() or f"gradingbench_{index}",
        "metadata": {"problem_id": item.get("Problem ID"), "points": int(points) if points.isdigit() else points,
                     "source": item.get("Problem Source"), "subset": grade, "source_index": index},
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_csv(raw), convert, label="record", first=1,
                                           id_field="Grading ID"))
