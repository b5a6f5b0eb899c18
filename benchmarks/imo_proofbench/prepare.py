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
from gym.data import stripped_text, text_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

COMMIT = "326a740a6877d5ec098035c534d2fbd931fe83ee"
URL = f"https://raw.githubusercontent.com/google-deepmind/superhuman/{COMMIT}/imobench/proofbench.csv"


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    return text_row(item, index, ("Problem", "Solution"),
                    guidelines=stripped_text(item, "Grading guidelines") or "(none given: grade on the scale alone)",
                    metadata={name.lower().replace(" ", "_"): stripped_text(item, name)
                              for name in ("Problem ID", "Category", "Level", "Short Answer", "Source")})


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_csv(raw), convert, label="record", first=1,
                                           id_field="Problem ID"))
