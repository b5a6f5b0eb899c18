"""label: the model is itself the grader; its verdict label is parsed and compared with the gold label.

Modes (option `mode`):
  judgement  "Judgement: Yes" / "Judgement: No" (markdown bold tolerated, any case), gold in expected_answer
             as Yes/No (answer-judge, proof_bench_judge, proof-arena-judge). The LAST "Judgement:" line
             decides: the reference reads the first one, which is often the model echoing the instructions
             ("... end with Judgement: Yes or No") before its own verdict.
  grade      the last word of the reply, stripped of markdown and punctuation, one of correct / almost /
             partial / incorrect (imo_gradingbench); also reports the high/low bucket agreement
             (`binarized_accuracy`) and the 0-7 point gap that aggregate turns into MAE.

Reasoning blocks (<think>...</think>) are dropped first; a block opened and never closed leaves no verdict.
"""

from __future__ import annotations

import re
from typing import Any

from gym.verifiers.base import Verdict, Verifier, expected_answer

MODES = ("judgement", "grade")
GRADE_POINTS = {"correct": 7, "almost": 6, "partial": 1, "incorrect": 0}
GRADE_BUCKET = {"correct": "high", "almost": "high", "partial": "low", "incorrect": "low"}
_JUDGEMENT = re.compile(r"\*{0,2}judgement\*{0,2}\s*:", re.IGNORECASE)
_WORD_EDGES = re.compile(r"[*_`.,;:!?()\[\]{}\"']+")
_THINK = re.compile(r"<(think|thinking)>.*?</\1>", re.DOTALL)


def drop_reasoning(text: str) -> str:
    text = _THINK.sub("", text or "")
    for tag in ("think", "thinking"):
        if f"</{tag}>" in text:
            text = text.rpartition(f"</{tag}>")[2]
        if f"<{tag}>" in text:
            return ""
    return text.strip()


def parse_judgement(text: str | None, last: bool = True) -> str | None:
    """"Yes" / "No" from the last (or first) "Judgement:" mark; None when there is none or it says neither."""
    marks = list(_JUDGEMENT.finditer(text or ""))
    if not marks:
        return None
    mark = marks[-1] if last else marks[0]
    verdict = text[mark.end():].strip().lstrip("*").strip().lower()
    if verdict.startswith("yes"):
        return "Yes"
    if verdict.startswith("no"):
        return "No"
    return None


def gold_judgement(value: str) -> str | None:
    word = value.strip().strip("*").strip().lower()
    return "Yes" if word.startswith("yes") else "No" if word.startswith("no") else parse_judgement(value)


def parse_grade(text: str | None) -> str | None:
    """The grade named by the reply's last word, or None."""
    words = (text or "").split()
    if not words:
        return None
    word = _WORD_EDGES.sub("", words[-1]).lower()
    return word if word in GRADE_POINTS else None


class LabelVerifier(Verifier):
    family = "label"
    inline = True  # pure text work of microseconds: serve verifies on its event loop
    OPTIONS = {"strip_thinking": True}
    CHOICES = {"mode": MODES}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.strip = bool(self.options["strip_thinking"])

    def verify(self, row: dict, response: str) -> Verdict:
        gold_text = expected_answer(row)
        text = drop_reasoning(response) if self.strip else (response or "").strip()
        details: dict[str, Any] = {"family": "label", "mode": self.mode}
        if self.mode == "judgement":
            predicted, gold = parse_judgement(text), gold_judgement(gold_text)
        else:
            predicted, gold = parse_grade(text), gold_text.strip().lower()
            gold = gold if gold in GRADE_POINTS else None
        details.update(predicted=predicted, gold=gold)
        if gold is None:
            details["error"] = f"gold label {gold_text!r} is not a {self.mode} label"
        correct = predicted is not None and predicted == gold
        if self.mode == "grade" and gold is not None:
            binary = predicted is not None and GRADE_BUCKET[predicted] == GRADE_BUCKET[gold]
            details["scores"] = {"binarized_accuracy": 1.0 if binary else 0.0}
            if predicted is not None:
                details["points_gap"] = abs(GRADE_POINTS[predicted] - GRADE_POINTS[gold])
                details["points"] = [GRADE_POINTS[predicted], GRADE_POINTS[gold]]
        return Verdict(1.0 if correct else 0.0, predicted, details)
