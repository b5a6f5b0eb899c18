"""Multiple choice: read the chosen option letter from the answer and compare it with the gold letter.

Modes (option `mode`):
  answer_colon  every "Answer: X" line, markdown tolerated, scanned from the last; a payload counts when it
                is a single letter, starts with a letter and punctuation ("C) 42"), or holds exactly one
                standalone capital; payloads naming several letters ("A or B") are rejected
  boxed         strict: the letter inside the last \\boxed{} ("C", "C)", "C:", "C.", \\text{C})
  auto          answer_colon, then boxed, then a lone letter on the last line
  choice_text   the option's text (or letter) in <choice>/<answer> tags, \\boxed{}, "Answer:" lines, ... with
                chemistry-aware text matching: the reference's BunsenBench rules (gym.verifiers.mcq_choice)
A row may carry metadata.output_regex (a string or a list): each pattern is tried in order and its last
match (case-insensitive) wins before the mode runs; multilingual answer formats rely on this.
"""

from __future__ import annotations

import re
import string
from functools import lru_cache
from typing import Any, Callable

from gym.core.errors import GymError
from gym.verifiers.mcq_choice import extract_choice, gold_letter
from gym.verifiers.base import (Verdict, Verifier, answer_payloads, expected_answer, last_boxed,
                                last_nonempty_line, nfkc, peel_wrappers)

MODES = ("answer_colon", "boxed", "auto", "choice_text")
DEFAULT_LETTERS = tuple(string.ascii_uppercase[:10])  # A-J

# Arabic and Bengali option letters used by translated benchmarks, in A-D order.
_SCRIPT_LETTERS = str.maketrans({"أ": "A", "ب": "B", "ج": "C", "د": "D",
                                  "অ": "A", "ব": "B", "ড": "C", "ঢ": "D"})

_NOISE = re.compile(r"[*_`$]|\\boxed\s*|\\text\w*\s*|[{}]")
_SINGLE = re.compile(r"[(\[]?([A-Za-z])[)\]]?[.:,;!]*")
_LEADING = re.compile(r"[(\[]?([A-Za-z])(?:[)\]]|[.:,;\-–—])")
_STANDALONE = re.compile(r"(?<![A-Za-z0-9])([A-Z])(?![A-Za-z0-9'’])")
# lookahead so "A, A or B" also sees the overlapping pair "A or B"
_LISTING = re.compile(r"(?<![A-Za-z0-9])(?=[(\[]?([A-Z])[)\]]?\s*(?:,|/|&|\bor\b|\band\b)\s*"
                      r"[(\[]?([A-Z])(?![A-Za-z0-9]))")
_BOXED_LETTER = re.compile(r"[(\[]?([A-Za-z])(?:[)\]]|\s*[:.\-)]|\s*$)")


def allowed_letters(row: dict) -> tuple[str, ...]:
    """Option letters from row["options"] ({"A": ...}, [{"A": ...}, ...] or a plain list), else A-J."""
    options = row.get("options")
    letters: list[str] = []
    if isinstance(options, dict):
        letters = [str(key).strip().upper() for key in options]
    elif isinstance(options, list):
        for position, item in enumerate(options):
            if isinstance(item, dict):
                letters.extend(str(key).strip().upper() for key in item)
            elif position < 26:
                letters.append(string.ascii_uppercase[position])
    letters = [letter for letter in letters if len(letter) == 1 and letter.isalpha()]
    return tuple(letters) or DEFAULT_LETTERS


def _option_pairs(row: dict) -> list[tuple[Any, Any]]:
    """(letter, text) of row["options"] ({"A": ...}, [{"A": ...}, ...] or a plain list)."""
    options = row.get("options")
    pairs: list[tuple[Any, Any]] = []
    if isinstance(options, dict):
        pairs = list(options.items())
    elif isinstance(options, list):
        for position, item in enumerate(options):
            if isinstance(item, dict):
                pairs.extend(item.items())
            elif position < 26:
                pairs.append((string.ascii_uppercase[position], item))
    return pairs


def option_texts(row: dict) -> dict[str, str]:
    """Normalised option text -> letter, for answers that quote the option instead of its letter."""
    return {_norm_text(str(text)): str(letter).strip().upper() for letter, text in _option_pairs(row)
            if _norm_text(str(text))}


def _norm_text(text: str) -> str:
    return " ".join(nfkc(text).lower().strip().rstrip(".").split())


def _clean(payload: str) -> str:
    text = peel_wrappers(nfkc(payload).translate(_SCRIPT_LETTERS))
    return _NOISE.sub("", text).strip()


def letter_from_payload(payload: str, allowed: tuple[str, ...], texts: dict[str, str]) -> str | None:
    """The single option letter a free-form payload names, or None (nothing, or several letters)."""
    text = _clean(payload)
    if not text:
        return None
    single = _SINGLE.fullmatch(text)
    if single:
        letter = single.group(1).upper()
        return letter if letter in allowed else None
    for match in _LISTING.finditer(text):
        if match.group(1) != match.group(2):
            return None  # "A or B", "A, C": hedged, no answer
    leading = _LEADING.match(text)
    if leading and leading.group(1).upper() in allowed:
        return leading.group(1).upper()
    candidates = {c for c in _STANDALONE.findall(text) if c in allowed}
    if len(candidates) > 1:
        # "I think C" / "A good guess is C": a capital used as a word is not an option
        candidates = {c for c in candidates if not re.search(rf"(?<![A-Za-z]){c}\s+[a-z]", text)} or candidates
    if len(candidates) == 1:
        return candidates.pop()
    return texts.get(_norm_text(text))


def from_answer_colon(text: str, allowed: tuple[str, ...], texts: dict[str, str]) -> str | None:
    for payload in reversed(answer_payloads(text)):
        letter = letter_from_payload(payload, allowed, texts)
        if letter:
            return letter
    return None


def from_boxed(text: str, allowed: tuple[str, ...], texts: dict[str, str]) -> str | None:
    content = last_boxed(text)
    if content is None:
        return None
    content = peel_wrappers(nfkc(content).translate(_SCRIPT_LETTERS)).strip()
    match = _BOXED_LETTER.match(content)
    if match and match.group(1).upper() in allowed:
        return match.group(1).upper()
    return None


def from_last_line(text: str, allowed: tuple[str, ...], texts: dict[str, str]) -> str | None:
    line = last_nonempty_line(text)
    if line is None:
        return None
    single = _SINGLE.fullmatch(_clean(line))
    if single and single.group(1).upper() in allowed:
        return single.group(1).upper()
    return None


_STRATEGIES: dict[str, tuple[tuple[str, Callable[..., str | None]], ...]] = {
    "answer_colon": (("answer_colon", from_answer_colon),),
    "boxed": (("boxed", from_boxed),),
    "auto": (("answer_colon", from_answer_colon), ("boxed", from_boxed), ("last_line", from_last_line)),
}


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise GymError(f"task row metadata.output_regex {pattern!r} is not a valid regex: {exc}") from None


def from_row_regex(text: str, patterns: list[str], texts: dict[str, str]) -> str | None:
    """Each row pattern in turn; its last match's first captured group (or the whole match)."""
    for pattern in patterns:
        matches = list(_compile(pattern).finditer(text))
        if not matches:
            continue
        last = matches[-1]
        captured = next((group for group in last.groups() if group), None) or last.group(0)
        cleaned = _clean(captured)
        single = _SINGLE.fullmatch(cleaned)
        if single:
            return single.group(1).upper()  # any letter counts here: the row's format defines it
        if _norm_text(cleaned) in texts:
            return texts[_norm_text(cleaned)]
    return None


def _row_patterns(row: dict) -> list[str]:
    metadata = row.get("metadata")
    value = metadata.get("output_regex") if isinstance(metadata, dict) else None
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [p for p in value if isinstance(p, str) and p]
    return []


class MCQVerifier(Verifier):
    family = "mcq"
    inline = True  # pure text work of microseconds: serve verifies on its event loop
    CHOICES = {"mode": MODES}

    def verify(self, row: dict, response: str) -> Verdict:
        if self.mode == "choice_text":
            return self._verify_choice_text(row, response)
        gold = expected_answer(row).strip("()[] .").upper()
        text = nfkc(response or "").strip()
        details: dict[str, Any] = {"mode": self.mode, "expected": gold, "source": None}
        if not text:
            return Verdict(0.0, None, details)
        texts = option_texts(row)
        letter = None
        patterns = _row_patterns(row)
        if patterns:
            letter = from_row_regex(text, patterns, texts)
            details["source"] = "output_regex" if letter else None
        if letter is None:
            allowed = allowed_letters(row)
            for source, strategy in _STRATEGIES[self.mode]:
                letter = strategy(text, allowed, texts)
                if letter:
                    details["source"] = source
                    break
        return Verdict(1.0 if letter is not None and letter == gold else 0.0, letter, details)

    def marked(self, row: dict, response: str) -> bool:
        """Strict mode: auto's last resort, a lone letter on the last line, is no marked answer; the other
        modes read marked answers only."""
        if self.mode != "auto":
            return True
        text = nfkc(response or "")
        return bool(answer_payloads(text)) or last_boxed(text) is not None or bool(_row_patterns(row))

    def _verify_choice_text(self, row: dict, response: str) -> Verdict:
        texts = {str(letter).strip().upper(): str(text) for letter, text in _option_pairs(row)
                 if text is not None and len(str(letter).strip()) == 1 and str(letter).strip().isalpha()}
        gold = gold_letter(expected_answer(row), texts)
        allowed = set(texts) | ({gold} if len(gold) == 1 and gold.isalpha() else set())
        text = (response or "").strip()  # raw: the rules normalise option texts themselves
        letter = extract_choice(text, texts, allowed) if text else None
        details = {"mode": self.mode, "expected": gold, "source": "choice_text" if letter else None}
        return Verdict(1.0 if letter is not None and letter == gold else 0.0, letter, details)
