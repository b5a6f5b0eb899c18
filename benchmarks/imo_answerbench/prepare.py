"""IMO-AnswerBench (google-deepmind/superhuman, imobench/answerbench_v2.csv at a pinned commit).

400 olympiad problems with short answers. CSV columns: "Problem ID", "Problem", "Short Answer",
"Category", "Subcategory", "Source". The commit is pinned so the problems and answers are the ones
the reference harness scores against. Prepared rows:

    {"question": <Problem>, "expected_answer": <Short Answer>,
     "metadata": {"problem_id": "imo-bench-algebra-001", "category": "Algebra", "subcategory": ...,
                  "source": ..., "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any
from gym.data import stripped_text, text_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

COMMIT = "326a740a6877d5ec098035c534d2fbd931fe83ee"
URL = f"https://raw.githubusercontent.com/google-deepmind/superhuman/{COMMIT}/imobench/answerbench_v2.csv"


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    return text_row(item, index, ("Problem", "Short Answer"),
                    metadata={name.lower().replace(" ", "_"): stripped_text(item, name)
                              for name in ("Problem ID", "Category", "Subcategory", "Source")})


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_csv(raw), convert, label="record", first=1))
