"""Short answers compared after SQuAD-style normalisation (case, punctuation, articles, whitespace).

The answer is the last \\boxed{} if there is one, else the last "Answer: ..." payload, else the last
non-empty line. Option `mode`: "exact" compares whole strings; "set" splits both sides on commas and
semicolons and compares the item sets (order and repeats ignored). expected_answer may also be a list of
accepted alternatives.
"""

from __future__ import annotations

import re
import string
import unicodedata
from typing import Any

from gym.core.answer_text import final_answer
from gym.verifiers.base import Verdict, Verifier, missing_answer, nfkc

MODES = ("exact", "set")
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_ITEM_SPLIT = re.compile(r"[,;]")


def normalize(text: str) -> str:
    """Lower-case, drop punctuation, drop articles, squash whitespace (as SQuAD scoring does)."""
    text = nfkc(text).lower()
    text = "".join(ch for ch in text if not (unicodedata.category(ch).startswith("P") or ch in string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def as_set(text: str) -> frozenset[str]:
    return frozenset(item for item in (normalize(part) for part in _ITEM_SPLIT.split(text)) if item)


def _golds(row: dict) -> list[str]:
    value = row.get("expected_answer")
    values = value if isinstance(value, list) else [value]
    golds = [str(v).strip() for v in values if v is not None and not isinstance(v, (dict, list)) and str(v).strip()]
    if not golds:
        raise missing_answer(value)
    return golds


class ExactVerifier(Verifier):
    family = "exact"
    inline = True  # pure text work of microseconds: serve verifies on its event loop
    CHOICES = {"mode": MODES}

    def verify(self, row: dict, response: str) -> Verdict:
        golds = _golds(row)
        answer, source = final_answer(response or "")
        details: dict[str, Any] = {"mode": self.mode, "source": source, "raw_answer": answer}
        if answer is None:
            return Verdict(0.0, None, details)
        if self.mode == "set":
            predicted = as_set(answer)
            extracted = ", ".join(sorted(predicted)) or None
            correct = bool(predicted) and any(predicted == as_set(gold) for gold in golds)
        else:
            extracted = normalize(answer) or None
            correct = extracted is not None and any(extracted == normalize(gold) for gold in golds)
        details["normalized"] = extracted
        return Verdict(1.0 if correct else 0.0, extracted, details)
