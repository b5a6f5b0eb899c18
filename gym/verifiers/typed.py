"""typed: a final answer in the wrapper the prompt asked for, compared by its kind (Litmus-Bench).

Row fields: `answer_wrapper` ("boxed": the last \\boxed{}, brace-balanced; "double_paren": the last
((...)); "regex": the last match of the row's `answer_regex`, one capture group, as the reference's
per-row output_regex), `answer_kind` ("count": a whole number, "13" or "13.0"; "bool": yes/no, true/false,
present/absent or 1/0; "float": a number, or the last number in the capture, compared by the row's
`match` rule) and `expected_answer` (the count, 1/0 or the number).

`match` rules (the reference's reward rules): {"rule": "isclose"} (the default: relative and absolute
tolerance 1e-6, or the row's rel_tol/abs_tol), {"rule": "abs_window", "abs_tol": t} (|value - gold| <= t),
{"rule": "rel_window", "rel_tol": r} (<= r·|gold|) and {"rule": "exact"} (equal once both are rounded).

An answer in another wrapper than the one asked for is no answer, as in the reference. Unlike the
reference, a count must be a whole number (the reference rounds, so "4.4" passes for 4) and a yes/no
answer may be written as a word (the reference parses it as a number, so "((yes))" scores 0).
"""

from __future__ import annotations

import math
import re
from typing import Any

from gym.core.errors import GymError
from gym.verifiers.base import Verdict, Verifier, expected_answer, last_boxed, nfkc, peel_wrappers

WRAPPERS = ("boxed", "double_paren", "regex")
KINDS = ("count", "bool", "float")
RULES = ("isclose", "abs_window", "rel_window", "exact")
_DOUBLE_PAREN = re.compile(r"\(\(\s*([^()]*?)\s*\)\)")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_FLOAT = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_TRUE = {"1", "yes", "true", "present", "y", "t"}
_FALSE = {"0", "no", "false", "absent", "n", "f"}


def wrapped(text: str, wrapper: str, pattern: str | None = None) -> str | None:
    if wrapper == "regex":
        found = re.compile(pattern or "", re.S).findall(text.strip())
        if not found:
            return None
        last = found[-1]
        return (next((group for group in last if group), "") if isinstance(last, tuple) else last).strip()
    if wrapper == "boxed":
        inner = last_boxed(text)
        return None if inner is None else peel_wrappers(inner).strip()
    matches = _DOUBLE_PAREN.findall(text)
    return matches[-1].strip() if matches else None


def parse_float(raw: str) -> float | None:
    """The number written, else the last number-like token in the text (the reference's numeric parse)."""
    try:
        value = float(raw.strip())
    except ValueError:
        found = _FLOAT.findall(raw)
        value = float(found[-1]) if found else None
    return value if value is not None and math.isfinite(value) else None


def matches(value: float, gold: float, match: dict | None) -> bool:
    match = match or {"rule": "isclose"}
    rule = match.get("rule")
    if rule == "abs_window":
        return abs(value - gold) <= float(match.get("abs_tol", 0.0))
    if rule == "rel_window":
        return abs(value - gold) <= abs(float(match.get("rel_tol", 0.0)) * gold)
    if rule == "exact":
        return round(value) == round(gold)
    return math.isclose(value, gold, rel_tol=float(match.get("rel_tol", 1e-6)), abs_tol=float(match.get("abs_tol", 1e-6)))


def parse(raw: str, kind: str) -> int | float | None:
    if kind == "float":
        return parse_float(nfkc(raw))
    token = nfkc(raw).strip().strip("$*_.").strip().lower()
    if kind == "bool":
        if token in _TRUE:
            return 1
        if token in _FALSE:
            return 0
        try:
            value = float(token)
        except ValueError:
            return None
        return int(value) if value in (0.0, 1.0) else None
    numbers = _NUMBER.findall(token)
    if len(numbers) != 1 or _NUMBER.fullmatch(token.replace(" ", "")) is None:
        return None  # "3 or 4", "about 5 groups": not one count
    value = float(numbers[0])
    return int(value) if value.is_integer() else None


class TypedVerifier(Verifier):
    family = "typed"
    inline = True  # pure text work of microseconds: serve verifies on its event loop
    OPTIONS: dict[str, Any] = {}

    def verify(self, row: dict, response: str) -> Verdict:
        wrapper, kind = row.get("answer_wrapper"), row.get("answer_kind")
        if wrapper not in WRAPPERS or kind not in KINDS:
            raise GymError(f"task row needs answer_wrapper in {WRAPPERS} and answer_kind in {KINDS}; "
                           "re-run task=prepare for this benchmark")
        gold_text = expected_answer(row)
        gold = parse(gold_text, kind)
        if gold is None:
            raise GymError(f"task row: expected_answer {gold_text!r} is not a {kind}")
        match = row.get("match")
        if kind == "float" and match is not None and (not isinstance(match, dict) or match.get("rule") not in RULES):
            raise GymError(f"task row: match {match!r} is not one of the rules {', '.join(RULES)}")
        try:
            raw = wrapped(nfkc(response or ""), wrapper, row.get("answer_regex"))
        except re.error as exc:
            raise GymError(f"task row: answer_regex {row.get('answer_regex')!r} does not compile ({exc})") from None
        details: dict[str, Any] = {"wrapper": wrapper, "kind": kind, "raw": raw}
        value = None if raw is None else parse(raw, kind)
        details["value"] = value
        correct = value is not None and (matches(value, gold, match) if kind == "float" else value == gold)
        if kind == "float" and value is not None:
            details["abs_error"] = abs(value - gold)
        return Verdict(1.0 if correct else 0.0, None if value is None else str(value), details)
