"""The qa verifier family: reading the answer (JSON first), aliases, strict/lenient matching, EM/F1."""

from __future__ import annotations

import time

import pytest

from gym.core.errors import GymError
from gym.verifiers import FAMILIES, make_verifier
from gym.verifiers.qa import aliases, canonical, f1_score, gold_flag, read_answer


@pytest.fixture(scope="module")
def qa():
    with make_verifier("qa") as verifier:
        yield verifier


def score(verifier, gold: str, response: str):
    return verifier.verify({"question": "q", "expected_answer": gold}, response)


def test_registered_with_checked_options():
    assert FAMILIES["qa"] == "gym.verifiers.qa:QAVerifier"
    assert make_verifier("qa", {"match": "lenient"}).match == "lenient"
    with pytest.raises(GymError, match=r"verifier 'qa': option match='loose' is not one of strict, lenient"):
        make_verifier("qa", {"match": "loose"})
    with pytest.raises(GymError, match=r"verifier 'qa': unknown option 'mode'; options: match"):
        make_verifier("qa", {"mode": "strict"})


def test_missing_gold_is_a_data_error(qa):
    with pytest.raises(GymError, match="no usable expected_answer"):
        qa.verify({"question": "q"}, '{"answer": "x"}')


@pytest.mark.parametrize("response, answer, source", [
    ('{"answer": "Paris"}', "Paris", "json"),
    ('I think so.\n{"answer": "Paris", "confidence": 0.9}', "Paris", "json"),
    # the fenced object wins over a later bare one; a fence without an object is skipped
    ('```json\n{"answer": "Lyon"}\n```\nthen {"answer": "Nice"}', "Lyon", "json_fence"),
    ('```json\n{"answer": "Lyon"}\n```\n```\nnot json\n```', "Lyon", "json_fence"),
    ('```\n{"answer": "Lyon"}\n```', "Lyon", "json_fence"),
    # the last object with an answer, braces inside strings ignored, stray braces before it tolerated
    ('{"answer": "first"} and later {"answer": "second"}', "second", "json"),
    ('set {1, 2 is open... {"answer": "a {curly} name"}', "a {curly} name", "json"),
    ('{"answer": "outer", "meta": {"answer": "inner"}}', "outer", "json"),
    ('{"result": {"answer": "nested"}}', "nested", "json"),
    ('{"answer": "kept"} {"note": "no answer here"}', "kept", "json"),
    # non-string answers
    ('{"answer": 1912}', "1912", "json"),
    ('{"answer": true}', "yes", "json"),
    ('{"answer": ["Paris", "Lyon"]}', "Paris, Lyon", "json"),
    # plain-text styles, then the whole text
    ("Thinking...\nThe answer is \\boxed{\\text{Paris}}.\nAnswer: Paris", "Paris", "boxed"),
    ("Reasoning.\n**Answer:** Paris", "Paris", "answer_colon"),
    ("  Paris, France  ", "Paris, France", "text"),
    ("", None, None),
])
def test_read_answer(response, answer, source):
    assert read_answer(response) == (answer, source)


def test_null_answer_counts_as_no_answer(qa):
    verdict = score(qa, "Paris", '{"answer": null}')
    assert verdict.reward == 0.0 and verdict.extracted_answer is None and verdict.details["source"] == "json"


def test_reference_server_answer_is_right(qa):
    verdict = score(qa, "Scott Derrickson", "Let me work through this step by step.\n\nThe answer is "
                                           "\\boxed{Scott Derrickson}.\nAnswer: Scott Derrickson")
    assert verdict.reward == 1.0 and verdict.extracted_answer == "Scott Derrickson"
    assert verdict.details["em"] == 1.0 and verdict.details["f1"] == 1.0


@pytest.mark.parametrize("gold, answer", [
    ("the Danube", "Danube"),                       # leading article dropped
    ('"Hey Jude"', "Hey Jude"),                     # quotes dropped
    ("Mercury (planet)", "Mercury"),                # parenthesised part dropped...
    ("Chicago Bulls (NBA)", "the NBA"),             # ...or kept alone
    ("two", "2"), ("3", "three"),                   # number word <-> digit
    ("10,000", "about 10000 people"),               # thousands commas
    ("1500", "1,500"),
    ("Washington, D.C.", "Washington DC"),          # abbreviation dots
    ("Ltd.", "Ltd"),                                # trailing punctuation
    ("Jean-Paul Sartre", "Jean Paul Sartre"),       # hyphen <-> space, both ways
    ("Saint Louis", "Saint-Louis"),
    ("Simon & Garfunkel", "Simon and Garfunkel"),   # "&" <-> "and", both ways
    ("Marks and Spencer", "Marks & Spencer"),
    ("Beyoncé", "BEYONCÉ"),                         # case
    ("Rock–paper–scissors", "rock-paper-scissors"),  # Unicode dashes
])
def test_aliases_match(qa, gold, answer):
    verdict = score(qa, gold, f'{{"answer": "{answer}"}}')
    assert verdict.reward == 1.0, (gold, answer, verdict.details)
    assert verdict.details["is_correct"] and verdict.details["is_correct_strict"]


def test_alias_list():
    forms = set(aliases("The Lord of the Rings (film series)"))
    assert {"the lord of the rings (film series)", "the lord of the rings", "lord of the rings", "film series"} <= forms
    assert set(aliases("a")) == {"a"}  # a tiny gold keeps itself...
    assert "a" not in aliases("A (letter)")  # ...but tiny leftovers of longer golds are not aliases
    assert canonical("  Rock \u2013 Roll & “Soul”  1,000,000 ") == 'rock - roll and "soul" 1000000'


@pytest.mark.parametrize("gold, answer, strict, lenient", [
    ("no", "I do not know", False, True),                   # short alias inside words: lenient only
    ("no", "No.", True, True),
    ("Yes", "yes, both were", True, True),
    ("USA", "It is in the USA.", True, True),
    ("Paris", "x" * 50 + " Paris is the answer " + "y" * 40, False, True),  # long answer, late match
    ("Paris", "Paris " + "y" * 90, True, True),                              # long answer, early match
    ("Paris", "y" * 30 + " Paris " + "y" * 60 + " Paris", True, True),       # an early occurrence suffices
    ("Lyon", "Marseille", False, False),
])
def test_strict_and_lenient(gold, answer, strict, lenient):
    strict_verifier, lenient_verifier = make_verifier("qa"), make_verifier("qa", {"match": "lenient"})
    response = '{"answer": "%s"}' % answer
    verdict = score(strict_verifier, gold, response)
    assert (verdict.details["is_correct_strict"], verdict.details["is_correct"]) == (strict, lenient)
    assert verdict.reward == float(strict)
    assert score(lenient_verifier, gold, response).reward == float(lenient)


def test_hedged_yes_no_is_wrong(qa):
    verdict = score(qa, "yes", '{"answer": "yes or no, hard to say"}')
    assert verdict.reward == 0.0 and verdict.details.get("hedged") is True
    assert score(qa, "no", '{"answer": "No, they were not"}').reward == 1.0


def test_em_and_f1_are_reported(qa):
    verdict = score(qa, "Indian Ocean", '{"answer": "the Indian Ocean basin"}')
    assert verdict.reward == 1.0 and verdict.details["em"] == 0.0
    assert verdict.details["f1"] == pytest.approx(0.8)  # "indian ocean basin" vs "indian ocean"
    assert score(qa, "the Danube", '{"answer": "Danube"}').details["em"] == 1.0
    assert f1_score("yes", "no") == 0.0 and f1_score("no it is not", "no") == 0.0
    assert f1_score("Yes.", "yes") == 1.0


def test_gold_flags():
    assert gold_flag("Scott Derrickson") is None
    assert gold_flag("Chief of the United States Navy") == "multi_word_name"
    assert gold_flag("Chief of Protocol of the United States") is None  # seven words: not a name pattern
    assert gold_flag("Royal Australian Air Force") == "multi_word_name"
    assert gold_flag("a musical group that performed from 1970 to 1985 in Europe") == "gold_too_long"
    assert gold_flag("yes") is None


def test_extracted_answer_is_the_answer_text(qa):
    verdict = score(qa, "Paris", '{"answer": "  Paris,\\n France "}')
    assert verdict.extracted_answer == "Paris, France"
    assert verdict.details["matched_alias"] == "paris" and verdict.details["source"] == "json"


def test_brace_heavy_answers_stay_fast(qa):
    response = "{" * 50_000 + '"x": 1' + "}" * 10 + ' {"answer": "Paris"}'
    started = time.perf_counter()
    assert score(qa, "Paris", response).reward == 1.0
    assert time.perf_counter() - started < 10  # linear; a backtracking regex would take minutes
