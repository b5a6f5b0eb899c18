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

import math
import re
from collections import Counter
from typing import Any

from gym.verifiers.base import FamilyStats, Verdict, Verifier, details_of, expected_answer

MODES = ("judgement", "grade")
GRADE_POINTS = {"correct": 7, "almost": 6, "partial": 1, "incorrect": 0}
GRADE_BUCKET = {"correct": "high", "almost": "high", "partial": "low", "incorrect": "low"}
JUDGEMENT_MARK = "Judgement: Yes"  # the judge prompts of answer-judge and the proof judges ask for it
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

    @classmethod
    def mock_answer(cls, row: dict, prompt: str, final: str, correct: bool, opener: str) -> str | None:
        return f"{opener}\n\nJudgement: {final}" if JUDGEMENT_MARK in prompt else None

    @classmethod
    def family_metrics(cls, rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
        return label_metrics(rows, stats)

    @classmethod
    def summary_line(cls, entry: dict[str, Any]) -> str:
        fm = entry["family_metrics"]
        if "mae" in fm:
            return f"MAE {fm['mae']} points over {fm['mae_count']} grades, pearson {fm['pearson_points']}"
        return f"precision {fm['precision']}, recall {fm['recall']}, F1 {fm['f1']} (positive: Yes)"

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


def label_metrics(rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
    """Accuracy plus, for Yes/No verdicts, precision / recall / F1 of "Yes" pooled over rollouts; for 4-way
    grades, the MAE in IMO points (7/6/1/0) over rollouts with a parsed grade, its count, and the Pearson
    correlation between predicted and gold points."""
    ok = [r for r in rows if r["status"] == "ok"]
    out: dict[str, Any] = {"accuracy": stats.mean_ci(stats.per_task(rows)[None])}
    if any(details_of(r).get("mode") == "grade" for r in ok):
        gaps = [float(details_of(r)["points_gap"]) for r in ok if details_of(r).get("points_gap") is not None]
        points = [tuple(details_of(r)["points"]) for r in ok if details_of(r).get("points")]
        out.update(mae=round(sum(gaps) / len(gaps), 4) if gaps else None, mae_count=len(gaps),
                   pearson_points=_pearson(points), unit="IMO points (correct 7, almost 6, partial 1, incorrect 0)")
        return out
    counts: Counter = Counter()
    for r in rows:
        predicted = details_of(r).get("predicted") if r["status"] == "ok" else None
        gold = details_of(r).get("gold")
        counts["tp"] += predicted == "Yes" and gold == "Yes"
        counts["fp"] += predicted == "Yes" and gold == "No"
        counts["fn"] += predicted != "Yes" and gold == "Yes"
        counts["tn"] += predicted == "No" and gold == "No"
    precision = counts["tp"] / (counts["tp"] + counts["fp"]) if counts["tp"] + counts["fp"] else None
    recall = counts["tp"] / (counts["tp"] + counts["fn"]) if counts["tp"] + counts["fn"] else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else (0.0 if precision is not None
                                                                                   and recall is not None else None)
    pct = (lambda v: None if v is None else round(100 * v, 4))
    out.update(precision=pct(precision), recall=pct(recall), f1=pct(f1), confusion=dict(counts),
               positive_label="Yes")
    return out


def _pearson(pairs: list[tuple[float, float]]) -> float | None:
    if len(pairs) < 2:
        return None
    xs, ys = zip(*pairs)
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return round(sum((x - mx) * (y - my) for x, y in pairs) / math.sqrt(sxx * syy), 4)
