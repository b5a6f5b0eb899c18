"""Humanity's Last Exam (cais/hle, gated): the test split, text-only questions or (include_vision) all.

Upstream is one parquet file with the columns id, question, image (a base64 data URI, "" for
text-only questions), image_preview, answer, answer_type (exactMatch | multipleChoice), author_name,
rationale, rationale_image, raw_subject, category, canary. Multiple-choice options are part of the
question text. By default questions with an image are dropped, as the reference's `hle` does (2,158
of 2,500 kept). With `include_vision` (the `hle_vision` option, the reference's hle/config_vision) all
2,500 are kept and each image is written once, named by its content hash, to `images/` beside the
prepared file; the row names it in `images` (gym.core.images sends it with the question). Only the
needed columns are read. The dataset is gated: accept its terms on the Hugging Face page and set
HF_TOKEN. Prepared rows:

    {"question": ..., "expected_answer": ..., "answer_type": "exactMatch", "uuid": <id>,
     "metadata": {"raw_subject": ..., "category": ..., "source_index": 0}}
    vision rows also: "has_image": true, "images": ["images/<sha256[:24]>.png"]
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, decode_data_url, save_image, text_row

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/cais/hle/resolve/main/data/test-00000-of-00001.parquet"
TOKEN_ENV = "HF_TOKEN"
COLUMNS = ("id", "question", "image", "answer", "answer_type", "raw_subject", "category")
log = logging.getLogger("gym.prepare.hle")


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    return text_row(item, index, answer_type=item.get("answer_type"), uuid=item.get("id"),
                    metadata={"raw_subject": item.get("raw_subject"), "category": item.get("category")})


def with_image(converted: tuple[dict[str, Any] | None, str | None], image: str, data_dir: Path
               ) -> tuple[dict[str, Any] | None, str | None]:
    """A vision row: the question's image saved beside the prepared data and named in `images`."""
    row, problem = converted
    if row is None:
        return converted
    row["has_image"] = bool(image)
    if image:
        try:
            row["images"] = [save_image(data_dir, *decode_data_url(image))]
        except GymError as exc:
            return None, f"its image cannot be read ({exc})"
    return row, problem


def prepare(ctx: PrepareContext, include_vision: bool = False) -> Path:
    raw = ctx.fetch(URL, token_env=TOKEN_ENV)
    rows, images = [], 0
    for index, item in enumerate(ctx.read_parquet(raw, COLUMNS, required=("question", "image", "answer"),
                                                   layout="HLE")):
        image = item.get("image") or ""
        images += bool(image)
        if image and not include_vision:
            ctx.leave_out_row("a question with an image (text-only, as the reference's default)")
            continue
        converted = convert(item, index)
        if include_vision:
            converted = with_image(converted, image, ctx.output_path.parent)
        ctx.keep(rows, converted, f"{raw}: row {index}")
    if include_vision:
        log.info("%d questions kept, %d of them with an image", len(rows), images)
    else:
        log.info("%d text-only questions kept, %d image questions dropped", len(rows), images)
    return ctx.write_rows(rows)
