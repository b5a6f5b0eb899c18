"""FinanceBench (PatronusAI/financebench, open-source sample): 150 questions about public companies'
filings (10-K, 10-Q, 8-K, earnings reports) with analyst-written answers and the evidence pages.

Read from Hugging Face's parquet conversion (default/train); columns used: financebench_id, company,
doc_name, question_type, question_reasoning, question, answer, evidence (list of {evidence_text,
doc_name, evidence_page_num, evidence_text_full_page}). The evidence is given to the model as context,
as in the reference. Prepared rows:

    {"question": ..., "expected_answer": ..., "context": <evidence pages, joined>,
     "metadata": {"financebench_id": ..., "company": ..., "doc_name": ..., "question_type": ...,
                  "question_reasoning": ..., "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import hf_converted_parquet, text_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = hf_converted_parquet("PatronusAI/financebench", "default", "train")


def evidence_text(evidence: Any) -> str:
    """The evidence pages (full page when given, else the excerpt), in order, without repeats."""
    parts: list[str] = []
    for item in evidence if isinstance(evidence, (list, tuple)) else []:
        if not isinstance(item, dict):
            continue
        text = item.get("evidence_text_full_page") or item.get("evidence_text")
        if isinstance(text, str) and text.strip() and text.strip() not in parts:
            parts.append(text.strip())
    return "\n\n---\n\n".join(parts)


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    return text_row(item, index, context=evidence_text(item.get("evidence")),
                    metadata={key: item.get(key) for key in ("financebench_id", "company", "doc_name",
                                                             "question_type", "question_reasoning")})


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL)
    items = ctx.read_parquet(raw, required=("question", "answer"), layout="PatronusAI/financebench")
    return ctx.write_rows(ctx.convert_rows(raw, items, convert, id_field="financebench_id"))
