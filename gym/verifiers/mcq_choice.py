"""The `choice_text` mode of the multiple-choice verifier: the reference's BunsenBench chemistry rules, for
prompts that ask the model to copy the chosen option's text into <choice></choice> tags.

Candidates, tried from the one that starts last in the answer to the first:
  * the content of <answer>, <choice>, <response>, <final_answer> or <final-answer> tags (a <choice> inside
    a <choices>…</choices> block is the question echoed back, not an answer);
  * the content of every \\boxed{…} (braces balanced);
  * "Answer: X" lines (list markers and bold tolerated), inline "Answer: X", and "the (correct) answer is X",
    "my answer is X", "I choose/select X".
Then the last non-empty line, then the first. A candidate names a letter when it is a lone letter,
"option/choice X", a letter followed by ")", "]", "." or ":" and a space (or the end), or one letter among
non-letters ("(B)"); else an option whose text equals it after chemistry normalisation (NFKC, subscripts
and superscripts as digits and signs, dash and times variants, format characters dropped, spaces squashed;
case kept: "na" is not "Na"); else the same after peeling quotes, markdown, \\boxed/\\text wrappers and
brackets. Only the letters of the row's options count.
"""

from __future__ import annotations

import html
import re
import unicodedata

_TAGGED = re.compile(r"<\s*(answer|choice|response|final_answer|final-answer)\b[^>]*>\s*(.*?)\s*<\s*/\s*\1\s*>",
                     re.I | re.S)
_CHOICES_BLOCK = re.compile(r"<\s*choices\b[^>]*>.*?<\s*/\s*choices\s*>", re.I | re.S)
_PHRASES = (
    re.compile(r"(?im)^\s*(?:(?:[-*•]|\d+[.)])\s*)?(?:\*\*)?answer(?:\*\*)?\s*:\s*(.+?)\s*$"),  # answer line
    re.compile(r"(?is)(?:\*\*)?answer(?:\*\*)?\s*:\s*(.+?)(?=$|[\r\n])"),  # inline
    re.compile(r"(?is)(?:the\s+(?:correct\s+)?answer\s+is|my\s+answer\s+is|i\s+(?:choose|select))\s+(.+?)(?:\n|$)"),
)
_BOXED_OPEN = re.compile(r"\\boxed\s*\{")
_BOXED_WHOLE = re.compile(r"\\boxed\{\s*(.*?)\s*\}", re.S)
_TEXT_WRAPPER = re.compile(r"\\(?:text|mathrm|operatorname)\{\s*(.*?)\s*\}", re.S)
_OPTION_WORD = re.compile(r"(?i)(?:option|choice)\s+([A-Z])\s*[\)\].:]?")
_LEADING = re.compile(r"(?i)^([A-Z])[\)\].:](?:\s|$)")
_ONE_LETTER = re.compile(r"[^A-Za-z]*([A-Za-z])[^A-Za-z]*")
_EDGE = " \t\r\n`*_\"'"

# chemistry notation written with other code points than the options use
_CHEMISTRY = str.maketrans({
    **{sub: str(digit) for digit, sub in enumerate("₀₁₂₃₄₅₆₇₈₉")},
    **{sup: str(digit) for digit, sup in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")},
    "⁺": "+", "⁻": "-", "₊": "+", "₋": "-", "＋": "+", "−": "-", "–": "-", "—": "-", "‒": "-", "‑": "-",
    "×": "x", "✕": "x", "·": ".", "∙": ".", "⋅": ".", "•": ".", "µ": "u", "μ": "u", "⁄": "/", "∕": "/",
})


def normalize_chemistry(value: object) -> str:
    text = unicodedata.normalize("NFKC", html.unescape(str(value))).translate(_CHEMISTRY)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return " ".join(text.split())


def _boxed(text: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    start = 0
    while (match := _BOXED_OPEN.search(text, start)) is not None:
        depth, pos = 1, match.end()
        while pos < len(text) and depth:
            if text[pos] == "\\":
                pos += 2
                continue
            depth += {"{": 1, "}": -1}.get(text[pos], 0)
            pos += 1
        if depth:
            break  # unbalanced: no further candidates
        found.append((match.start(), text[match.end():pos - 1]))
        start = pos
    return found


def candidates(text: str) -> list[tuple[int, str]]:
    """(start, payload) of every answer candidate in `text`."""
    echoed = [match.span() for match in _CHOICES_BLOCK.finditer(text)]
    found = [(match.start(), match.group(2)) for match in _TAGGED.finditer(text)
             if not (match.group(1).lower() == "choice" and any(a <= match.start() < b for a, b in echoed))]
    found += _boxed(text)
    for pattern in _PHRASES:
        found += [(match.start(), match.group(1)) for match in pattern.finditer(text)]
    return found


def _letter(candidate: str, allowed: set[str]) -> str | None:
    if len(candidate) == 1 and candidate.isalpha():
        return candidate.upper() if candidate.upper() in allowed else None
    for pattern, whole in ((_OPTION_WORD, True), (_LEADING, False), (_ONE_LETTER, True)):
        match = pattern.fullmatch(candidate) if whole else pattern.match(candidate)
        if match and match.group(1).upper() in allowed:
            return match.group(1).upper()
    return None


def _option(candidate: str, options: dict[str, str], allowed: set[str]) -> str | None:
    wanted = normalize_chemistry(candidate)
    return next((letter for letter, text in options.items()
                 if letter in allowed and normalize_chemistry(text) == wanted), None)


def peel(candidate: str) -> str:
    candidate = candidate.strip(_EDGE)
    boxed = _BOXED_WHOLE.fullmatch(candidate)
    if boxed:
        candidate = boxed.group(1).strip()
    while wrapper := _TEXT_WRAPPER.fullmatch(candidate):
        candidate = wrapper.group(1).strip()
    while len(candidate) >= 2 and candidate[0] in "([{\"'<" and candidate[-1] in ")]}\"'>":
        candidate = candidate[1:-1].strip(_EDGE)
    return candidate.strip(_EDGE + ".;,")


def parse(candidate: str, options: dict[str, str], allowed: set[str]) -> str | None:
    """The letter a candidate names, or None."""
    for attempt in (candidate.strip(), None):
        if attempt is None:
            attempt = peel(candidate.strip())
        if not attempt:
            return None
        letter = _letter(attempt, allowed) or _option(attempt, options, allowed)
        if letter:
            return letter
    return None


def extract_choice(text: str, options: dict[str, str], allowed: set[str]) -> str | None:
    """The option letter the answer `text` chooses, or None."""
    for _, candidate in sorted(candidates(text), reverse=True):
        letter = parse(candidate, options, allowed)
        if letter:
            return letter
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines[-1:] + lines[:1]:
        letter = parse(line, options, allowed)
        if letter:
            return letter
    return None


def gold_letter(expected: str, options: dict[str, str]) -> str:
    """The gold answer as a letter: a letter as given, else the option whose text it is."""
    letter = peel(expected).upper()
    if len(letter) == 1 and letter.isalpha():
        return letter
    return parse(expected, options, set(options)) or letter
