"""SuperGPQA (m-a-p/SuperGPQA): 26,529 graduate-level questions over 285 disciplines, up to ten choices.

Upstream is one JSON-lines file, SuperGPQA-all.jsonl, rows like
{"uuid", "question", "options": [str, ...], "answer": <correct option text>, "answer_letter": "C",
 "discipline", "field", "subfield", "difficulty": "easy|middle|hard", "is_calculation": bool}.

Choice order, as the reference: every option is stripped and its double spaces made single, then ONE
random.Random(seed) generator (seed 42) shuffles the options of each row in file order, so a row's order
depends on its position in the file. A row skipped as malformed still takes its turn of the generator,
so the rows after it keep the reference's order. Prepared rows:

    {"question": ..., "options": {"A": ..., ..., "J": ...}, "expected_answer": "F",
     "metadata": {"uuid": <upstream uuid>, "discipline": ..., "field": ..., "subfield": ...,
                  "difficulty": "middle", "is_calculation": false, "source_index": 0}}
"""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://huggingface.co/datasets/m-a-p/SuperGPQA/resolve/main/SuperGPQA-all.jsonl"
LETTERS = string.ascii_uppercase
KEPT = ("uuid", "discipline", "field", "subfield", "difficulty", "is_calculation")


def clean_option(text: Any) -> str:
    """The reference's option clean-up: strip, then one pass of double space -> single space."""
    return " " if text is None else str(text).strip().replace("  ", " ")


def convert(item: dict[str, Any], index: int, rng: random.Random) -> tuple[dict[str, Any] | None, str | None]:
    options = item.get("options")
    if not isinstance(options, list) or not 2 <= len(options) <= len(LETTERS):
        return None, "'options' must be a list of 2 to 26 choices"
    order = list(range(len(options)))
    rng.shuffle(order)  # before any check: a skipped row still consumes its shuffle
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        return None, "missing 'question'"
    choices = [clean_option(option) for option in options]
    if len(set(choices)) != len(choices):
        return None, "options are not unique after clean-up"
    letter = str(item.get("answer_letter") or "").strip().upper()
    if len(letter) != 1 or letter not in LETTERS[: len(choices)]:
        return None, f"answer_letter {item.get('answer_letter')!r} names no option"
    correct = LETTERS.index(letter)  # the letter, not the answer text, is authoritative (as the reference)
    return {
        "question": question,
        "options": {LETTERS[position]: choices[source] for position, source in enumerate(order)},
        "expected_answer": LETTERS[order.index(correct)],
        "metadata": {**{key: item.get(key) for key in KEPT}, "source_index": index},
    }, None


def prepare(ctx: PrepareContext, seed: int = 42) -> Path:
    """`seed`: seed of the option shuffle (42 reproduces the reference's letters)."""
    raw = ctx.fetch(URL)
    rng = random.Random(seed)
    rows = ctx.convert_rows(raw, ctx.read_jsonl(raw), lambda item, index: convert(item, index, rng),
                            label="record", first=1, id_field="uuid")
    return ctx.write_rows(rows)
