"""Judge prompt templates and the verdict formats they ask for.

A template is plain text with `{field}` placeholders (gym.core.prompts syntax: `{{`/`}}` for literal
braces), filled from the task row plus `{generation}` (what the judge grades) and `{expected_answer}`.
Built-in templates live beside this file as `<name>.txt`; a benchmark may point at its own file.
The built-in ones wrap the gold answer in <reference_answer> tags and the judged text in <response>
tags: clear boundaries for a real judge, and what lets gym's reference server play the judge.

A verdict format names how a judge reply is read. The judge verifier, the templates and the reference
server's judge all use this one table, so a template can be checked against the format it is paired
with (its verdict instructions must mention the format's `marker`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from gym.core.errors import GymError

TEMPLATE_DIR = Path(__file__).resolve().parent
GOLD_TAG = "reference_answer"
RESPONSE_TAG = "response"

CORRECT, INCORRECT, NOT_ATTEMPTED = "correct", "incorrect", "not_attempted"


@dataclass(frozen=True)
class Reading:
    """What a judge reply says."""

    verdict: str  # correct | incorrect | not_attempted
    grade: str | None  # the label as the judge wrote it ("A", "Judgement: yes", ...); None when absent
    found: bool  # False when the reply held no recognisable verdict (then verdict is the fallback)


@dataclass(frozen=True)
class VerdictFormat:
    name: str
    marker: str  # text a template for this format must contain (its verdict instructions)
    positive: str  # verdict text meaning "correct"
    negative: str  # verdict text meaning "incorrect"
    read: Callable[[str], Reading]


_GRADE_LINE = re.compile(
    r"^(?:(?:final\s+)?(?:grade|answer|verdict)\s*[:：]\s*)?\(?([ABC])\)?(?:\s*[:.)\-]?\s*"
    r"(?:CORRECT|INCORRECT|NOT[_ ]ATTEMPTED))?[.!]?$", re.IGNORECASE)
_LETTER_VERDICT = {"A": CORRECT, "B": INCORRECT, "C": NOT_ATTEMPTED}


def _grade_of(line: str) -> str | None:
    """The grade letter when a line is just a grade ("A", "**B**", "Grade: C", "A: CORRECT"), else None."""
    match = _GRADE_LINE.match(line.strip().strip("*_`#> ").strip())
    if not match or match.group(1) not in _LETTER_VERDICT:  # a lower-case "a" is an article, not a grade
        return None
    return match.group(1)


def read_letter_abc(text: str) -> Reading:
    """SimpleQA grades: the first line if it is a grade, else the last line that is one; else C.

    The reference instead falls back to "A if the letter A occurs anywhere" (any capital A, e.g. the
    article opening "A close reading ..."), which scores unparseable replies as correct; here a reply
    without a grade line counts as not attempted and is flagged (found=False).
    """
    lines = [line for line in text.splitlines() if line.strip()]
    candidates = lines[:1] + lines[::-1]
    for line in candidates:
        letter = _grade_of(line)
        if letter:
            return Reading(_LETTER_VERDICT[letter], letter, True)
    return Reading(NOT_ATTEMPTED, None, False)


def read_judgement_yes_no(text: str) -> Reading:
    """HLE: whichever of "Judgement: yes" / "Judgement: no" comes first (case-sensitive, as the reference)."""
    return _first_of(text, "Judgement: yes", "Judgement: no")


_THINKING_CLOSE = "</thinking>"


def read_boxed_correct(text: str) -> Reading:
    """IMO AnswerBench autograder: \\boxed{Correct} before \\boxed{Incorrect} (or alone) is correct.

    Only the text after the grader's closing </thinking> tag is read when there is one, so a verdict
    quoted inside its notes does not count.
    """
    if _THINKING_CLOSE in text:
        text = text.rpartition(_THINKING_CLOSE)[2]
    return _first_of(text, "\\boxed{Correct}", "\\boxed{Incorrect}")


def _first_of(text: str, correct: str, incorrect: str) -> Reading:
    """Whichever verdict mark comes first decides; neither is an unparsed incorrect."""
    good, bad = text.find(correct), text.find(incorrect)
    if good < 0 and bad < 0:
        return Reading(INCORRECT, None, False)
    if bad < 0 or 0 <= good < bad:
        return Reading(CORRECT, correct, True)
    return Reading(INCORRECT, incorrect, True)


_LAST_JUDGEMENT = re.compile(r"Judgement:\s*(YES|NO)\b", re.IGNORECASE)


def read_last_judgement_yes_no(text: str) -> Reading:
    """FrontierScience olympiad: the last "Judgement: YES|NO" (any case) decides."""
    matches = _LAST_JUDGEMENT.findall(text)
    if not matches:
        return Reading(INCORRECT, None, False)
    word = matches[-1].upper()
    return Reading(CORRECT if word == "YES" else INCORRECT, f"Judgement: {word}", True)


_NUMBER = r"(\d+(?:\.\d+)?)"
_FINAL_SCORE = re.compile(rf"FINAL_SCORE\s*[:=]?\s*\[?\s*{_NUMBER}\s*\]?\s*(?:/|out\s+of)\s*"
                          rf"(?:MAX_POSSIBLE_SCORE\s*)?\[?\s*{_NUMBER}\s*\]?", re.IGNORECASE)
RUBRIC_PASS = 7.0  # of 10


def read_rubric_score(text: str) -> Reading:
    """FrontierScience research: the last "FINAL_SCORE: N/M" (also "FINAL_SCORE[N] / MAX_POSSIBLE_SCORE[M]"),
    scaled to 10; a score of 7 or more passes.

    The reference takes the last score-like fragment anywhere ("7/10", "7 out of 10", "Score: 7"), so a
    fraction or date in the grader's notes can become the grade; here only the FINAL_SCORE line counts.
    """
    matches = _FINAL_SCORE.findall(text)
    if not matches:
        return Reading(INCORRECT, None, False)
    score, maximum = (float(v) for v in matches[-1])
    if maximum <= 0 or score > maximum:
        return Reading(INCORRECT, f"FINAL_SCORE: {score:g}/{maximum:g}", False)
    scaled = 10.0 * score / maximum
    return Reading(CORRECT if scaled >= RUBRIC_PASS else INCORRECT, f"{scaled:g}/10", True)


_POINTS = re.compile(r"<points>\s*(\d+)\s*(?:out\s+of|/)\s*7\s*</points>", re.IGNORECASE)
PROOF_PASS = 6  # of 7


def read_points_of_7(text: str) -> Reading:
    """IMO-ProofBench: the last "<points>N out of 7</points>"; 6 or 7 points count as a correct proof."""
    matches = _POINTS.findall(text)
    if not matches:
        return Reading(INCORRECT, None, False)
    points = int(matches[-1])
    if points > 7:
        return Reading(INCORRECT, f"{points}/7", False)
    return Reading(CORRECT if points >= PROOF_PASS else INCORRECT, f"{points}/7", True)


# Checked in this order by the reference server's judge (most specific marker first).
FORMATS: dict[str, VerdictFormat] = {f.name: f for f in (
    VerdictFormat("rubric_score", "FINAL_SCORE", "FINAL_SCORE: 10/10", "FINAL_SCORE: 0/10", read_rubric_score),
    VerdictFormat("points_of_7", "<points>", "<points>7 out of 7</points>", "<points>0 out of 7</points>",
                  read_points_of_7),
    VerdictFormat("boxed_correct", "\\boxed{Correct}", "\\boxed{Correct}", "\\boxed{Incorrect}", read_boxed_correct),
    VerdictFormat("last_judgement_yes_no", "Judgement: YES", "Judgement: YES", "Judgement: NO",
                  read_last_judgement_yes_no),
    VerdictFormat("judgement_yes_no", "Judgement: yes", "Judgement: yes", "Judgement: no", read_judgement_yes_no),
    VerdictFormat("letter_abc", "NOT_ATTEMPTED", "A", "B", read_letter_abc),
)}


def literal_text(template: str) -> str:
    """The template's fixed text as the judge will see it (`{{`/`}}` unescaped)."""
    return template.replace("{{", "{").replace("}}", "}")


def load_template(spec: str) -> tuple[str, str]:
    """(template text, where it came from) for a built-in name ("simpleqa") or a file path."""
    if not isinstance(spec, str) or not spec.strip():
        raise GymError("verifier 'judge': option prompt must name a built-in judge prompt or a template file")
    builtin = TEMPLATE_DIR / f"{spec}.txt"
    path = builtin if re.fullmatch(r"[A-Za-z0-9_\-]+", spec) and builtin.is_file() else Path(spec).expanduser()
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in TEMPLATE_DIR.glob("*.txt")))
        raise GymError(f"verifier 'judge': prompt '{spec}' is neither a built-in judge prompt ({known}) nor a file")
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise GymError(f"verifier 'judge': cannot read judge prompt {path} ({exc})") from None
