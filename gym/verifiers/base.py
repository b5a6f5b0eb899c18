"""What every verifier family shares: the Verdict, the Verifier base class and text extraction helpers.

A verifier turns (prepared task row, model answer text) into a reward in [0, 1], the answer it read
(used for majority voting) and a JSON-serialisable details dict. `verify` is called from many threads
at once, so families keep no per-call state on the instance.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable

from gym.errors import GymError, did_you_mean


@dataclass
class Verdict:
    reward: float  # in [0, 1]
    extracted_answer: str | None  # None when nothing could be extracted
    details: dict = field(default_factory=dict)  # JSON-serialisable, family specific


class VerifierError(Exception):
    """The verifier could not decide (worker crash, output limit, sandbox refused, judge reply unparsable).

    Not a wrong answer: collect records the rollout as status `verifier_error`, excluded from every score
    and redone by task=reverify (or resume). `details` is kept in the rollout.
    """

    def __init__(self, reason: str, details: dict | None = None) -> None:
        super().__init__(reason)
        self.details = details or {}


class Verifier:
    """Base class: option checking and the verify/close protocol."""

    family: ClassVar[str] = ""
    OPTIONS: ClassVar[dict[str, Any]] = {}  # option name -> default; anything else is a user error

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            public = [name for name in self.OPTIONS if not name.startswith("_")]
            hint = did_you_mean(unknown[0], public)
            raise GymError(f"verifier '{self.family}': unknown option '{unknown[0]}'{hint}; "
                           f"options: {', '.join(public) or '(none)'}")
        self.options: dict[str, Any] = {**self.OPTIONS, **options}

    def verify(self, row: dict, response: str) -> Verdict:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        """Release processes or other resources; safe to call more than once."""

    def __enter__(self) -> "Verifier":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # option helpers shared by the families
    def choice_option(self, name: str, choices: Iterable[str]) -> str:
        value = self.options[name]
        choices = list(choices)
        if value not in choices:
            raise GymError(f"verifier '{self.family}': option {name}={value!r} is not one of {', '.join(choices)}")
        return str(value)

    def number_option(self, name: str, minimum: float, integer: bool = False) -> float:
        value = self.options[name]
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = float("nan")
        if isinstance(value, bool) or not number >= minimum or (integer and not number.is_integer()):
            kind = "an integer" if integer else "a number"
            raise GymError(f"verifier '{self.family}': option {name}={value!r} must be {kind} >= {minimum:g}")
        return int(number) if integer else number


def expected_answer(row: dict) -> str:
    """The row's gold answer as text; a row without one is a data error, not a wrong answer."""
    value = row.get("expected_answer")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = "" if value is None or isinstance(value, (dict, list)) else str(value).strip()
    if not text:
        raise missing_answer(value)
    return text


def missing_answer(value: Any) -> GymError:
    return GymError(f"task row has no usable expected_answer (got {value!r}); "
                    f"re-run task=prepare for this benchmark")


_BOX_START = re.compile(r"\\(?:boxed|fbox)\s*\{")


def last_boxed(text: str) -> str | None:
    """Content of the last closed, non-empty \\boxed{...} (or \\fbox{...}), braces counted; None if none."""
    for match in reversed(list(_BOX_START.finditer(text))):
        end = closing_brace(text, match.end())
        if end is not None and text[match.end():end].strip():
            return text[match.end():end].strip()
    return None


def closing_brace(text: str, start: int) -> int | None:
    """Index of the brace closing the group opened just before `start` (escaped braces skipped)."""
    depth, pos = 1, start
    while pos < len(text):
        char = text[pos]
        if char == "\\":
            pos += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return pos
        pos += 1
    return None


def unbox(text: str) -> str:
    """"\\boxed{X}" -> "X" when the box spans the whole string; anything else unchanged."""
    match = _BOX_START.match(text)
    if match:
        end = closing_brace(text, match.end())
        if end == len(text) - 1:
            return text[match.end():end].strip()
    return text


_WRAPPER = re.compile(r"^\\(?:text|textbf|textit|textrm|mathrm|mathbf|mathit|mbox|operatorname)\s*\{(.*)\}$", re.DOTALL)


def peel_wrappers(text: str) -> str:
    """Strip \\text{...}-style wrappers (and $...$) that enclose the whole string."""
    text = text.strip()
    while True:
        if len(text) >= 2 and text[0] == "$" and text[-1] == "$":
            text = text.strip("$").strip()
            continue
        match = _WRAPPER.match(text)
        if not match or not _balanced(match.group(1)):
            return text
        text = match.group(1).strip()


def _balanced(text: str) -> bool:
    depth = 0
    for char in text.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


# "Answer: X" with markdown tolerated: **Answer:** X, **Answer: X**, *Answer*: X, ### Final answer: X
_ANSWER_MARK = re.compile(r"(?<![A-Za-z])answer\s*(?:[*_]{1,3}\s*)?[:：]", re.IGNORECASE)
_MARKDOWN_EDGES = re.compile(r"^[\s*_`~>#]+|[\s*_`~]+$")


def answer_payloads(text: str) -> list[str]:
    """Payloads of every "Answer:" mark, first to last; an empty payload takes the next non-empty line."""
    payloads = []
    for match in _ANSWER_MARK.finditer(text):
        line_end = text.find("\n", match.end())
        rest = text[match.end(): len(text) if line_end < 0 else line_end]
        payload = _MARKDOWN_EDGES.sub("", rest)
        if not payload and line_end >= 0:
            following = next((line for line in text[line_end + 1:].splitlines() if line.strip()), "")
            payload = _MARKDOWN_EDGES.sub("", following)
        payloads.append(payload)
    return payloads


def last_nonempty_line(text: str) -> str | None:
    for line in reversed(text.splitlines()):
        if line.strip():
            return line.strip()
    return None


def squash_spaces(text: str) -> str:
    return " ".join(text.split())


def nfkc(text: str) -> str:
    """Full-width letters, digits and punctuation to their ASCII forms (Ａ -> A, ： -> :)."""
    return unicodedata.normalize("NFKC", text)
