"""typed: a final answer in the wrapper the prompt asked for, compared by its kind (Litmus-Bench).

Row fields: `answer_wrapper` ("boxed": the last \\boxed{}, brace-balanced; "double_paren": the last
((...))), `answer_kind` ("count": a whole number, "13" or "13.0"; "bool": yes/no, true/false,
present/absent or 1/0) and `expected_answer` (the count, or 1/0).

An answer in another wrapper than the one asked for is no answer, as in the reference. Unlike the
reference, a count must be a whole number (the reference rounds, so "4.4" passes for 4) and a yes/no
answer may be written as a word (the reference parses it as a number, so "((yes))" scores 0).
"""

from __future__ import annotations

import re
from typing import Any

from gym.core.errors import GymError
from gym.verifiers.base import Verdict, Verifier, expected_answer, last_boxed, nfkc, peel_wrappers

WRAPPERS = ("boxed", "double_paren")
KINDS = ("count", "bool")
_DOUBLE_PAREN = re.compile(r"\(\(\s*([^()]*?)\s*\)\)")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_TRUE = {"1", "yes", "true", "present", "y", "t"}
_FALSE = {"0", "no", "false", "absent", "n", "f"}


def wrapped(text: str, wrapper: str) -> str | None:
    if wrapper == "boxed":
        inner = last_boxed(text)
        return None if inner is None else peel_wrappers(inner).strip()
    matches = _DOUBLE_PAREN.findall(text)
    return matches[-1].strip() if matches else None


def parse(raw: str, kind: str) -> int | None:
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
        raw = wrapped(nfkc(response or ""), wrapper)
        details: dict[str, Any] = {"wrapper": wrapper, "kind": kind, "raw": raw}
        value = None if raw is None else parse(raw, kind)
        details["value"] = value
        return Verdict(1.0 if value == gold else 0.0, None if value is None else str(value), details)
