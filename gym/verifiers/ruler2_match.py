"""RULER v2's grading (the reference's resources_servers/ruler2/app.py: NeMo Skills' eval_ruler2 and its
relaxed multiple-choice letter reader), routed per row by its `eval_type` and `match_type`:

  eval_type ruler2       per gold string max(1 if it is in the reply, 1 - WER(reply, gold)), both lowered
                         (WER: word-level edit distance over the gold's word count), then by match_type:
      all                the mean over the gold strings
      part               the best one, after dropping copied "Document N:" blocks from the reply
      2steps             the mean, on the reply's last paragraph (after the last blank line) only
  eval_type multichoice  1 when the letter read from the reply ("The final answer is X", else the last
                         \\boxed{}, else "Answer: X") is the gold letter

The reply is graded as it comes (the reference's control-character cleanup only shapes the answer it shows).
"""

from __future__ import annotations

import json
import re
from typing import Any

from rapidfuzz.distance import Levenshtein

from gym.core.errors import GymError
from gym.verifiers.base import Verdict, missing_answer

_CONTROL = re.compile(r"[\x00-\x1f]")
_DOCUMENT_HEADER = re.compile(r"Document \d+:(?:.*\n)+?\n")
_FINAL_ANSWER = re.compile(r"The final answer is (.+)$", re.MULTILINE)
_LETTER_TAIL = re.compile(r"\b[A-Z]\b(?!.*\b[A-Z]\b)", re.DOTALL)
_ANSWER_COLON = re.compile(r"(?i)[\*\_]{0,2}Answer[\*\_]{0,2}\s*:[\s\*\_]{0,2}\s*([A-Z])(?![a-zA-Z0-9])")
_GLYPHS = {"أ": " A", "ب": " B", "ج": " C", "د": " D", "অ": " A", "ব": " B", "ড": " C", "ঢ": " D",
           "Ａ": " A", "Ｂ": " B", "Ｃ": " C", "Ｄ": " D"}


def shown_answer(reply: str) -> str:
    """The reference's default_parse: control characters to newlines, stripped."""
    return _CONTROL.sub("\n", reply.strip()).strip()


def word_edits(hypothesis: list[str], reference: list[str]) -> int:
    """Levenshtein distance between two word lists (the reference's editdistance.eval on lists)."""
    return Levenshtein.distance(hypothesis, reference)


def soft_match(reply: str, gold: str) -> float:
    reply, gold = reply.lower(), gold.lower()
    if gold in reply:  # 1 - WER is at most 1
        return 1.0
    words = gold.split()
    if not words:  # WER is infinite: the reference's max(0, -inf)
        return 0.0
    return max(0.0, 1.0 - word_edits(reply.split(), words) / len(words))


def string_match(match_type: str, reply: str, golds: list[str]) -> float:
    if match_type == "part":
        reply = _DOCUMENT_HEADER.sub("", reply)
    elif match_type == "2steps":
        reply = reply.split("\n\n")[-1]
    if not golds:
        return 0.0
    scores = [soft_match(reply, gold) for gold in golds]
    return max(scores) if match_type == "part" else sum(scores) / len(scores)


def search_boxed(text: str) -> str | None:
    """The content of the last \\boxed{...}, braces balanced; None when it is missing or unclosed."""
    start = text.rfind("\\boxed")
    if start < 0:
        return None
    depth = 0
    for end in range(start, len(text)):
        if text[end] == "{":
            depth += 1
        elif text[end] == "}":
            depth -= 1
            if depth == 0:
                boxed = text[start:end + 1]
                return boxed[len("\\boxed{"):-1] if boxed.startswith("\\boxed{") else None
    return None


def mcq_letter(text: str) -> str | None:
    """The reference's relaxed letter reader (NeMo Skills mcq extract_letter)."""
    finals = _FINAL_ANSWER.findall(text)
    extracted = finals[-1] if finals else search_boxed(text)
    letter = None
    if extracted is not None:
        for glyph, latin in _GLYPHS.items():
            extracted = extracted.replace(glyph, latin)
        extracted = extracted.strip()
        if len(extracted) == 1:
            letter = extracted.upper()
        elif len(extracted) > 1:
            tail = _LETTER_TAIL.findall(extracted)
            letter = tail[-1].strip().upper() if tail else None
    if letter is None:
        colon = _ANSWER_COLON.findall(text)
        letter = colon[-1].strip().upper() if colon else None
    return letter


def gold_list(value: Any) -> list[str]:
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list):
            value = parsed
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def ruler2_verdict(row: dict, reply: str) -> Verdict:
    eval_type, match_type = row.get("eval_type", "ruler2"), row.get("match_type", "all")
    expected = row.get("expected_answer")
    if expected is None:
        raise missing_answer(expected)
    details = {"family": "long_context", "match": "ruler2", "eval_type": eval_type, "match_type": match_type}
    if eval_type == "multichoice":
        letter = mcq_letter(reply)
        return Verdict(1.0 if letter is not None and letter == str(expected).strip().upper() else 0.0, letter, details)
    if eval_type != "ruler2" or match_type not in ("all", "part", "2steps"):
        raise GymError(f"row {row.get('id')!r}: eval_type {eval_type!r} / match_type {match_type!r} is not ruler2's "
                       f"(ruler2 with all, part or 2steps, or multichoice); re-run task=prepare")
    reward = string_match(match_type, reply, gold_list(expected))
    return Verdict(reward, shown_answer(reply)[:200] or None, details)
