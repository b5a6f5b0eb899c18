"""Humanity's Last Exam (cais/hle, gated): the text-only questions of the test split.

Upstream is one parquet file with the columns id, question, image (a base64 data URI, "" for
text-only questions), image_preview, answer, answer_type (exactMatch | multipleChoice), author_name,
rationale, rationale_image, raw_subject, category, canary. Multiple-choice options are part of the
question text. Questions with an image are dropped (gym sends text prompts only). Only the needed
columns are read, so the images are never decoded. The dataset is gated: accept its terms on the
Hugging Face page and set HF_TOKEN. Prepared rows:

    {"question": ..., "expected_answer": ..., "answer_type": "exactMatch", "uuid": <id>,
     "metadata": {"raw_subject": ..., "category": ..., "source_index": 0}}
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data.converters import text_row

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext

URL = "https://huggingface.co/datasets/cais/hle/resolve/main/data/test-00000-of-00001.parquet"
TOKEN_ENV = "HF_TOKEN"
COLUMNS = ("id", "question", "image", "answer", "answer_type", "raw_subject", "category")
log = logging.getLogger("gym.prepare.hle")


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    return text_row(item, index, answer_type=item.get("answer_type"), uuid=item.get("id"),
                    metadata={"raw_subject": item.get("raw_subject"), "category": item.get("category")})


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(URL, token_env=TOKEN_ENV)
    rows, with_image = [], 0
    for index, item in enumerate(ctx.read_parquet(raw, COLUMNS, required=("question", "image", "answer"),
                                                   layout="HLE")):
        if item.get("image"):
            with_image += 1
            ctx.leave_out_row("a question with an image (text-only, as the reference's default)")
            continue
        ctx.keep(rows, convert(item, index), f"{raw}: row {index}")
    log.info("%d text-only questions kept, %d image questions dropped", len(rows), with_image)
    return ctx.write_rows(rows)
