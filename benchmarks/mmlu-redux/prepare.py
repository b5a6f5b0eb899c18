"""MMLU-Redux 2.0 (edinburgh-dawg/mmlu-redux-2.0): 5,700 MMLU questions (100 per subject, 57 subjects)
re-annotated by experts, with every known error labelled.

Upstream is one folder per subject holding `data-00000-of-00001.arrow` (a `datasets` save: Arrow IPC
stream) with columns question (string), choices (list of 4 strings), answer (int64, index of the
original MMLU answer), error_type (string), source (string), correct_answer (string or null),
potential_reason (string or null).

Which rows are kept, as the reference does it:
  * error_type "ok": gold = the original answer;
  * error_type "wrong_groundtruth" with a letter A-D in correct_answer: gold = the corrected letter
    (set apply_corrections=false to drop these too and keep only rows that were right as published);
  * everything else (no_correct_answer, multiple_correct_answers, bad_question_clarity,
    bad_options_clarity, expert, wrong_groundtruth without a usable letter) is dropped.
Prepared rows:

    {"question": ..., "options": {"A": ..., ..., "D": ...}, "expected_answer": "C",
     "metadata": {"subject": ..., "subcategory": ..., "category": ..., "error_type": "ok",
                  "source": ..., "uuid": ..., "row_in_subject": 0}}
(corrected rows also carry metadata.upstream_answer, the letter the original MMLU gave).
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, sibling_script

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL_TEMPLATE = "https://huggingface.co/datasets/edinburgh-dawg/mmlu-redux-2.0/resolve/main/{subject}/data-00000-of-00001.arrow"
LETTERS = ("A", "B", "C", "D")
log = logging.getLogger("gym.prepare.mmlu-redux")


# The mmlu prepare script: one subject table serves the three MMLU-family benchmarks.
MMLU = sibling_script(__file__, "mmlu", "MMLU subject table")
SUBJECTS: tuple[str, ...] = tuple(MMLU.SUBJECTS)


def read_arrow(path: Path) -> list[dict]:
    """Rows of a `datasets` Arrow file (IPC stream; the IPC file format is accepted too)."""
    import pyarrow as pa

    try:
        with pa.memory_map(str(path)) as source:
            try:
                table = pa.ipc.open_stream(source).read_all()
            except pa.ArrowInvalid:
                source.seek(0)
                table = pa.ipc.open_file(source).read_all()
    except (pa.ArrowException, OSError) as exc:
        raise GymError(f"{path}: corrupt or truncated Arrow file ({exc})") from None
    return table.to_pylist()


def _letter_of(answer: Any) -> str | None:
    """The letter of an upstream answer index, None unless it is an integer 0-3."""
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(LETTERS):
        return None
    return LETTERS[answer]


def gold_letter(item: dict[str, Any], apply_corrections: bool) -> tuple[str | None, str | None]:
    """(gold letter, None), (None, why the row is dropped) or (None, None) for a malformed answer."""
    error_type = item.get("error_type")
    if error_type == "ok":
        return _letter_of(item.get("answer")), None
    corrected = str(item.get("correct_answer") or "").strip().upper()
    if error_type == "wrong_groundtruth" and apply_corrections and corrected in LETTERS:
        return corrected, None
    return None, str(error_type)


def convert(item: dict[str, Any], subject: str, index: int, gold: str) -> tuple[dict[str, Any] | None, str | None]:
    question, choices = item.get("question"), item.get("choices")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    if not isinstance(choices, (list, tuple)) or len(choices) != len(LETTERS) or not all(
            isinstance(choice, str) for choice in choices):
        return None, "'choices' must be a list of 4 strings"
    metadata: dict[str, Any] = {**MMLU.subject_metadata(subject), "error_type": item.get("error_type"),
                                "source": item.get("source")}
    original = _letter_of(item.get("answer"))
    if gold != original:
        metadata["upstream_answer"] = original
    metadata.update(uuid=MMLU.row_uuid(subject, question.strip(), gold), row_in_subject=index)
    return {
        "question": question.strip(),
        "options": dict(zip(LETTERS, (choice.strip() for choice in choices))),
        "expected_answer": gold,
        "metadata": metadata,
    }, None


def prepare(ctx: PrepareContext, apply_corrections: bool = True) -> Path:
    """`apply_corrections`: keep wrong_groundtruth rows under their corrected letter (the reference's choice)."""
    rows, dropped = [], Counter()
    for subject in SUBJECTS:
        raw = ctx.fetch(URL_TEMPLATE.format(subject=subject))
        for index, item in enumerate(read_arrow(raw)):
            gold, reason = gold_letter(item, bool(apply_corrections))
            if gold is None:
                if reason is None:
                    ctx.bad_row(f"{raw}: row {index}", f"answer {item.get('answer')!r} is not an index 0-3")
                else:
                    dropped[reason] += 1
                    ctx.leave_out_row(f"flagged {reason} without a usable letter (as the reference)")
                continue
            ctx.keep(rows, convert(item, subject, index, gold), f"{raw}: row {index}")
    if dropped:
        log.info("mmlu-redux: dropped %d flagged rows (%s)", sum(dropped.values()),
                 ", ".join(f"{name}: {count}" for name, count in sorted(dropped.items())))
    return ctx.write_rows(rows)
