"""The answer normalisation MATH-style graders apply before comparing, done once on both sides.

Hendrycks' `is_equiv`, the PRM800K grader, Qwen2.5-Math's grader and lm-eval's minerva_math all strip
presentation from a final answer before they compare it. gym applies the same rules to the gold answer and
to the extracted prediction (the last \\boxed{} or the "####" line), then lets math-verify decide:

* a trailing full stop: `5.` -> `5` (also `\\text{.}`)
* money: `\\$` and `\\text{\\$}` are dropped: `\\$5.50` -> `5.50`
* degrees: `^\\circ`, `^{\\circ}`, `\\circ`, `\\degree`, `°` at the end are dropped: `30^\\circ` -> `30`
* units written as text after a value: `5\\text{ cm}`, `12\\mbox{ inches}^2`, `3\\,\\mathrm{m}` -> the value;
  a `\\text{}` that is the whole answer (`\\text{(C)}`, `\\text{Tuesday}`) is kept
* thousands separators: `10{,}000`, `10\\,000`, `10\\!,000` anywhere between digit groups, and `1,234,567`
  when the comma-grouped number is the whole answer -> `10000`, `1234567`
* percent: `\\%`, `%`, `\\text{\\%}`, `\\text{ percent}` become `\\%`, which math-verify reads as "N percent":
  it equals both N and N/100, so gold `25\\%` accepts `25`, `25\\%` and `0.25`, and gold `20` accepts `20\\%`
"""

from __future__ import annotations

import re

_TEXT_GROUP = r"\\(?:text|textrm|textnormal|mbox|mathrm)\s*\{"
_TRAILING_SPACE = re.compile(r"(?:\\[,;:! ]|\\q?quad|~|\s)+$")  # LaTeX spacing before a unit
_THOUSANDS_BRACED = re.compile(r"(?<=\d)\{,\}(?=\d{3}(?!\d))")
_THOUSANDS_SPACED = re.compile(r"(?<=\d)(?:\\[,;: ]|\\!,|\\!\s*,|,\\!)(?=\d{3}(?!\d))")
_GROUPED_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_PERCENT_WORDS = re.compile(_TEXT_GROUP + r"\s*(?:\\%|%|percent)\s*\}|\\?\s*percent\b|\\%|(?<!\\)%")
_DOLLAR = re.compile(r"\\text\s*\{\s*\\\$\s*\}|\\\$|\\dollar\b")
_DEGREES = re.compile(r"(?:\^\s*\{?\s*\\circ\s*\}?|\\circ|\\degree|°|" + _TEXT_GROUP +
                      r"\s*degrees?\s*\})(?:\s*" + _TEXT_GROUP + r"\s*[CF]\s*\}|\s*[CF]\b)?\s*$")
_TRAILING_DOT = re.compile(r"\s*(?:\\text\s*\{\s*\.\s*\}|(?<![.\d]\.)(?<!\.\.)\.)\s*$")  # one full stop, not "..."
_TRAILING_UNIT = re.compile(r"\s*" + _TEXT_GROUP + r"\s*[A-Za-z][A-Za-z .\-/]*\}(?:\s*\^\s*\{?\s*[23]\s*\}?)?\s*$")


def _strip_trailing_units(text: str) -> str:
    """`<value>\\text{ unit}` -> `<value>`; the text is kept when nothing else is left."""
    while True:
        match = _TRAILING_UNIT.search(text)
        if match is None or not text[:match.start()].strip() or text[:match.start()].rstrip().endswith(("{", "\\")):
            return text
        text = _TRAILING_SPACE.sub("", text[:match.start()])


def normalize_answer(answer: str) -> str:
    """One final answer in LaTeX with its presentation stripped (the rules in the module docstring)."""
    text = answer.strip()
    if not text:
        return text
    text = _TRAILING_DOT.sub("", text)
    text = _DOLLAR.sub("", text).strip()
    text = _THOUSANDS_BRACED.sub("", text)
    text = _THOUSANDS_SPACED.sub("", text)
    text = _PERCENT_WORDS.sub(lambda m: "\\%", text)
    for _ in range(2):  # "30^\circ\text{ C}." or "5\text{ cm}^2"
        text = _DEGREES.sub("", text).rstrip()
        text = _strip_trailing_units(text)
        text = _TRAILING_DOT.sub("", text).rstrip()
    text = text.strip()
    if _GROUPED_NUMBER.fullmatch(text):
        text = text.replace(",", "")
    return text or answer.strip()
