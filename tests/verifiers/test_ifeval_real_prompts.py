"""Every instruction of IFEval's 541 real prompts (tests/fixtures/ifeval/input_data.jsonl), with its real
arguments: a response built to follow it is followed and one built to break it is not, in both compat
modes; and the verifier runs every prompt through without an unsupported id or unusable argument."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gym.verifiers import make_verifier
from gym.verifiers.instructions import follow

ROWS = [json.loads(line) for line in
        (Path(__file__).parents[1] / "fixtures" / "ifeval" / "input_data.jsonl").read_text().splitlines()]


def _count(relation: str, n: int, follow_it: bool) -> int:
    """How many of something a response has: enough for `relation n` when following, else one off."""
    at_least = relation == "at least"
    return (n if at_least else n - 1) if follow_it else (n - 1 if at_least else n)


def _lines(unit: str, count: int, sep: str = " ") -> str:
    return sep.join([unit] * count)


def build(instruction_id: str, kw: dict, follow_it: bool) -> str | None:
    """A response that follows (or breaks) one instruction; None when that cannot be written."""
    lower, upper = "this is an english sentence about the weather today.", \
        "THIS IS AN ENGLISH SENTENCE ABOUT THE WEATHER TODAY."
    group, name = instruction_id.split(":")
    if name == "no_comma":
        return "A plain sentence." if follow_it else "One, two."
    if name == "number_words":
        n = _count(kw["relation"], kw["num_words"], follow_it)
        return _lines("word", n) if n > 0 else None
    if name == "number_sentences":
        n = _count(kw["relation"], kw["num_sentences"], follow_it)
        return _lines("This is one.", n) if n > 0 else None
    if name == "forbidden_words":
        return "Nothing to see." if follow_it else f"I say {kw['forbidden_words'][0]} here."
    if name == "number_highlighted_sections":
        n = kw["num_highlights"] - (0 if follow_it else 1)
        return _lines("*part*", n) + " end" if n > 0 else None
    if group == "keywords" and name == "frequency":
        n = _count(kw["relation"], kw["frequency"], follow_it)
        return (_lines(kw["keyword"], n) + " done") if n > 0 else None
    if name == "repeat_prompt":
        return kw["prompt_to_repeat"] + " Here it is." if follow_it else "Here it is. " + kw["prompt_to_repeat"]
    if name == "quotation":
        return '"Hi there."' if follow_it else "Hi there."
    if name == "english_lowercase":
        return lower if follow_it else lower.capitalize()
    if name == "english_capital":
        return upper if follow_it else lower
    if name == "existence":
        return ("It has " + " and ".join(kw["keywords"]) + ".") if follow_it else "It has nothing."
    if name == "title":
        return "<<A Title>>\nSome text." if follow_it else "Some text."
    if name == "letter_frequency":
        n = _count(kw["let_relation"], kw["let_frequency"], follow_it)
        return _lines(kw["letter"], n, "") if n > 0 else None
    if name == "number_bullet_lists":
        return _lines("* item", kw["num_bullets"] + (0 if follow_it else 1), "\n")
    if name == "number_placeholders":
        n = kw["num_placeholders"] - (0 if follow_it else 1)
        return _lines("[slot]", n) + " end" if n > 0 else None
    if name == "number_paragraphs":
        return _lines("A paragraph.", kw["num_paragraphs"] + (0 if follow_it else 1), "\n***\n")
    if name == "end_checker":
        return "Some text. " + kw["end_phrase"] if follow_it else kw["end_phrase"] + " Some text."
    if name == "postscript":
        return "Some text.\n" + kw["postscript_marker"] + " a note" if follow_it else "Some text."
    if name == "capital_word_frequency":
        n = _count(kw["capital_relation"], kw["capital_frequency"], follow_it)
        return _lines("WORD", n) + " done" if n > 0 else None
    if name == "two_responses":
        return "First answer.\n******\nSecond answer." if follow_it else "Only one answer."
    if name == "json_format":
        return '```json\n{"answer": 1}\n```' if follow_it else "answer: 1"
    if name == "multiple_sections":
        n = kw["num_sections"] - (0 if follow_it else 1)
        return "\n".join(f"{kw['section_spliter']} {i}\ntext" for i in range(1, n + 1)) if n > 0 else None
    if name == "nth_paragraph_first_word":
        first = kw["first_word"] if follow_it else "other"
        return "\n\n".join(f"{first} paragraph." if i == kw["nth_paragraph"] else "other paragraph."
                           for i in range(1, kw["num_paragraphs"] + 1))
    if name == "constrained_response":
        return "My answer is yes." if follow_it else "Yes."
    return None  # response_language: real text in each language is beyond a builder


CASES = [(row["key"], i, kw or {}) for row in ROWS for i, kw in zip(row["instruction_id_list"], row["kwargs"])]


def test_fixture_is_the_whole_data_set():
    assert len(ROWS) == 541 and len(CASES) == 834
    assert {i for _, i, _ in CASES} == set(make_verifier("ifeval")._follow.__globals__["IFEVAL_IDS"])


@pytest.mark.parametrize("compat", ["fixed", "reference"])
def test_every_real_instruction_follows_and_breaks(compat):
    checked, failures = 0, []
    for key, instruction_id, kw in CASES:
        kw = {k: v for k, v in kw.items() if v is not None}
        for follow_it in (True, False):
            response = build(instruction_id, kw, follow_it)
            if response is None:
                continue
            result = follow([instruction_id], [kw], response, compat=compat)[0]
            checked += 1
            if result.status != "checked" or result.strict is not follow_it:
                failures.append((key, instruction_id, kw, follow_it, response[:80], result))
    assert not failures, failures[:5]
    assert checked > 1500


@pytest.mark.parametrize("compat", ["fixed", "reference"])
def test_every_real_prompt_is_verified_without_problems(compat):
    verifier = make_verifier("ifeval", {"compat": compat})
    response = "<<A Title>>\nThis is a short answer, with *one* highlight.\n\nP.S. That is all."
    for row in ROWS:
        task = {"question": row["prompt"], "instruction_id_list": row["instruction_id_list"], "kwargs": row["kwargs"]}
        verdict = verifier.verify(task, response)
        assert "unsupported" not in verdict.details and "errors" not in verdict.details, (row["key"], verdict.details)
        assert verdict.details["scores"]["instructions"] == len(row["instruction_id_list"])
