"""SecQue (nogabenyoash/SecQue): 565 expert-written questions on SEC filings, each with the filing excerpts
it needs and a reference answer, in four JSONL files, one per question type (the reference's
`load_dataset(..., split="train")` reads all four):

    SECQUE_benchmark_Analysis.jsonl 72 · _Comparison 220 · _Ratio 188 · _Risk 85

Keys used (as the reference reads them): QID, Question, ground_truth_answer, context_markdown_with_headers,
question_type. A row whose reference answer is blank is kept (the reference keeps it) and reported as one
gym cannot score. Prepared rows:

    {"question": ..., "expected_answer": ..., "context": <filing excerpts, markdown with headers>,
     "metadata": {"qid": ..., "question_type": "Ratio", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.data import PrepareContext

REVISION = "894196b8764a9326be8d51d5689b63e68462dae2"  # the dataset's files, pinned
BASE = f"https://huggingface.co/datasets/nogabenyoash/SecQue/resolve/{REVISION}"
FILES = ("SECQUE_benchmark_Analysis.jsonl", "SECQUE_benchmark_Comparison.jsonl", "SECQUE_benchmark_Ratio.jsonl",
         "SECQUE_benchmark_Risk.jsonl")


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    question, answer = item.get("Question"), item.get("ground_truth_answer")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'Question'"
    if answer is not None and not isinstance(answer, str):
        return None, f"'ground_truth_answer' is a {type(answer).__name__}, not text"
    context = item.get("context_markdown_with_headers")
    row = {
        "question": question.strip(), "expected_answer": (answer or "").strip(),
        "context": context.strip() if isinstance(context, str) else "",
        "metadata": {"qid": item.get("QID"), "question_type": item.get("question_type") or "unknown",
                     "source_index": index},
    }
    return row, None if row["expected_answer"] else "blank 'ground_truth_answer' (no reference for the judge)"


def prepare(ctx: PrepareContext) -> Path:
    rows: list[dict[str, Any]] = []
    for name in FILES:
        raw = ctx.fetch(f"{BASE}/{name}")
        rows += ctx.convert_rows(raw, ctx.read_jsonl(raw), convert, id_field="QID")
    for index, row in enumerate(rows):  # the position in the four files read in order
        row["metadata"]["source_index"] = index
    return ctx.write_rows(rows)
