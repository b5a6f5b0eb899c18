"""Short-answer questions (HotpotQA style): read the answer, then match it against the gold and its aliases.

Reading the answer, first hit wins:
  1. the `answer` field of the last ```json fenced object (a fence holding no such object is skipped),
  2. the `answer` field of the last JSON object anywhere in the text (braces inside strings are fine),
  3. the last \\boxed{...}, then the last "Answer: ..." payload (plain-text answer styles),
  4. the whole response.
Scores, all against the gold plus aliases generated from it (leading article dropped, quotes dropped,
parenthesised part dropped or kept alone, number word <-> digit, thousands commas, trailing punctuation,
abbreviation dots, hyphen <-> space, "&" <-> "and"):
  em / f1            SQuAD exact match and token F1 (yes/no only ever match themselves), best alias
  is_correct         some alias is a substring of the answer
  is_correct_strict  as is_correct, but aliases of <= 4 characters must stand as whole words and, in an
                     answer longer than 80 characters, the match must start within the first 40
An exact match (em = 1, e.g. "Washington DC" for "Washington, D.C.") counts as correct for both. The
reward is is_correct_strict (option match=lenient uses is_correct). Both sides are compared in one
canonical form (case, Unicode dashes/quotes, hyphens, "&", digit-group commas), so the alias rules work in
both directions. A yes/no answer that says both "yes" and "no" is not correct. Golds that substring
matching handles poorly (over 40 characters, or multi-word proper names) are flagged in details.gold_flag.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import lru_cache
from typing import Any

from gym.core.answer_text import final_answer
from gym.verifiers.base import Verdict, Verifier, expected_answer, nfkc
from gym.verifiers.exact import normalize as squad_normalize

MATCH_MODES = ("strict", "lenient")
SHORT_ALIAS = 4  # aliases this short must match whole words
LONG_ANSWER = 80  # answers longer than this must mention the alias early...
EARLY_WINDOW = 40  # ...starting within this many characters
LONG_GOLD = 40
MAX_JSON_TRIES = 256  # '{' positions tried, from the end; bounds the cost of brace-heavy answers

_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
    "first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th", "sixth": "6th",
    "seventh": "7th", "eighth": "8th", "ninth": "9th", "tenth": "10th",
}
_DIGIT_WORDS = {digits: word for word, digits in _NUMBER_WORDS.items()}
_STOPWORDS = frozenset("a an and are as at be by for from in is it its of on or the to was were with".split())

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_DASHES = re.compile(r"[\u2010-\u2015\u2212]")
_SINGLE_QUOTES = re.compile(r"[\u2018\u2019\u201a\u201b\u2032]")
_DOUBLE_QUOTES = re.compile(r"[\u201c\u201d\u201e\u201f\u2033]")
_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_AMPERSAND = re.compile(r"\s*&\s*")
_PARENS = re.compile(r"\s*\([^()]*\)\s*")
_ABBREV_DOT = re.compile(r"(?<!\d)\.(?!\d)")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


# -- reading the answer ------------------------------------------------------------------------------

def _answer_value(obj: Any) -> str | None:
    """The `answer` of a decoded JSON object as text; None when it is not an object with an answer."""
    if not isinstance(obj, dict) or "answer" not in obj:
        return None
    value = obj["answer"]
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value if item is not None)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _last_json_answer(text: str) -> str | None:
    """`answer` of the JSON object starting at the last '{' that opens one (objects nested in another
    object are tried before it, and an enclosing object without `answer` does not hide them)."""
    decoder = json.JSONDecoder()
    starts = [match.start() for match in re.finditer(r"\{", text)][-MAX_JSON_TRIES:]
    found: tuple[int, str] | None = None  # (end, answer) of the object ending last
    for start in reversed(starts):
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        answer = _answer_value(obj)
        if answer is not None and (found is None or end > found[0]):
            found = (end, answer)  # an enclosing object with an answer replaces the inner one
    return found[1] if found else None


def read_answer(response: str) -> tuple[str | None, str | None]:
    """(answer text, where it came from); (None, None) for an empty response."""
    text = (response or "").strip()
    if not text:
        return None, None
    for block in reversed(_FENCE.findall(text)):
        answer = _last_json_answer(block)
        if answer is not None:
            return answer, "json_fence"
    answer = _last_json_answer(text)
    if answer is not None:
        return answer, "json"
    answer, source = final_answer(text)
    if source in ("boxed", "answer_colon"):
        return answer, source
    return text, "text"  # no marked answer: the whole reply is matched, not just its last line


# -- matching ----------------------------------------------------------------------------------------

def canonical(text: str) -> str:
    """One comparable form for answers and aliases: case, Unicode dashes and quotes, hyphens as spaces,
    "&" as "and", no commas inside digit groups, single spaces."""
    text = nfkc(text).lower()
    text = _DASHES.sub("-", text)
    text = _SINGLE_QUOTES.sub("'", _DOUBLE_QUOTES.sub('"', text))
    text = _DIGIT_COMMA.sub("", text)
    text = _AMPERSAND.sub(" and ", text)
    text = re.sub(r"(?<=\w)-(?=\w)", " ", text)
    return " ".join(text.split())


@lru_cache(maxsize=8192)
def aliases(gold: str) -> tuple[str, ...]:
    """Surface forms accepted for `gold` (the gold itself included), in canonical form."""
    gold = " ".join(gold.split())
    forms = {gold}
    unquoted = gold.replace('"', "").replace("\u201c", "").replace("\u201d", "").strip()
    forms.add(unquoted)
    if "(" in gold:
        forms.add(_PARENS.sub(" ", gold).strip())
        forms.update(inner.strip() for inner in re.findall(r"\(([^()]+)\)", gold) if len(inner.strip()) > 1)
    key = gold.lower().strip()
    if key in _NUMBER_WORDS:
        forms.add(_NUMBER_WORDS[key])
    if key in _DIGIT_WORDS:
        forms.add(_DIGIT_WORDS[key])
    if gold[-1:] in ".,;:!?":
        forms.add(gold[:-1].rstrip())
    if "." in gold:
        forms.add(_ABBREV_DOT.sub("", gold))
    if re.search(r"\band\b", gold, re.IGNORECASE):
        forms.add(re.sub(r"\band\b", "&", gold, flags=re.IGNORECASE))
    forms |= {_ARTICLE.sub("", form) for form in forms}
    # Very short leftovers ("a", "of") would match almost anything; keep them only if they are the gold.
    kept = {canonical(form) for form in forms if form.strip()}
    whole = canonical(gold)
    return tuple(sorted(form for form in kept if form and (len(form) >= 3 or form == whole or form.isdigit())))


def gold_flag(gold: str) -> str | None:
    """Why substring matching is unreliable for this gold, or None."""
    if len(gold) > LONG_GOLD:
        return "gold_too_long"
    words = gold.strip().rstrip(".").split()
    capitalised = [w for w in words if w[:1].isupper() and w.lower() not in _STOPWORDS]
    if len(words) in (3, 4) and len(capitalised) == len(words):
        return "multi_word_name"
    if len(words) in (5, 6) and len(capitalised) >= 3:
        return "multi_word_name"
    return None


def _occurs(alias: str, answer: str, strict: bool) -> bool:
    if alias not in answer:
        return False
    if not strict:
        return True
    pattern = re.escape(alias)
    if len(alias) <= SHORT_ALIAS:
        pattern = rf"(?<!\w){pattern}(?!\w)"
    limit = EARLY_WINDOW if len(answer) > LONG_ANSWER else len(answer)
    return any(match.start() <= limit for match in re.finditer(pattern, answer))


def f1_score(prediction: str, gold: str) -> float:
    """SQuAD token F1; "yes", "no" and "noanswer" only ever match themselves."""
    pred, ref = squad_normalize(prediction), squad_normalize(gold)
    if (pred in ("yes", "no", "noanswer") or ref in ("yes", "no", "noanswer")) and pred != ref:
        return 0.0
    pred_tokens, ref_tokens = pred.split(), ref.split()
    same = sum((Counter(pred_tokens) & Counter(ref_tokens)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(ref_tokens)
    return 2 * precision * recall / (precision + recall)


def _hedged_yes_no(gold_form: str, answer_form: str) -> bool:
    """A yes/no question answered with both words ("yes or no", "no ... yes") commits to nothing."""
    if gold_form not in ("yes", "no"):
        return False
    words = set(re.findall(r"\w+", answer_form))
    return "yes" in words and "no" in words


class QAVerifier(Verifier):
    family = "qa"
    inline = True  # pure text work of microseconds: serve verifies on its event loop
    CHOICES = {"match": MATCH_MODES}

    def verify(self, row: dict, response: str) -> Verdict:
        gold = expected_answer(row)
        alias_forms = aliases(gold)
        answer, source = read_answer(response)
        details: dict[str, Any] = {"match": self.match, "source": source, "answer": answer,
                                   "aliases": list(alias_forms), "gold_flag": gold_flag(gold), "em": 0.0, "f1": 0.0,
                                   "is_correct": False, "is_correct_strict": False, "matched_alias": None}
        answer = " ".join(answer.split()) if answer else ""
        if not answer:
            return Verdict(0.0, None, details)
        form = canonical(answer)
        details["em"] = max(float(squad_normalize(answer) == squad_normalize(alias)) for alias in alias_forms)
        details["f1"] = round(max(f1_score(answer, alias) for alias in alias_forms), 4)
        if not _hedged_yes_no(canonical(gold), form):
            exact = details["em"] == 1.0  # equal once punctuation and articles are gone ("D.C." / "DC")
            details["is_correct"] = exact or any(_occurs(alias, form, strict=False) for alias in alias_forms)
            strict_hit = next((alias for alias in alias_forms if _occurs(alias, form, strict=True)), None)
            details["is_correct_strict"] = exact or strict_hit is not None
            details["matched_alias"] = strict_hit
        else:
            details["hedged"] = True
        correct = details["is_correct_strict"] if self.match == "strict" else details["is_correct"]
        return Verdict(1.0 if correct else 0.0, answer, details)
