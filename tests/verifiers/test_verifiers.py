"""Verifier families: registry, math (math-verify in worker processes), mcq letter extraction, exact match."""

from __future__ import annotations

import json
import re

import pytest

from conftest import REAL_DATA
from gym.core.errors import GymError
from gym.verifiers import FAMILIES, Verdict, Verifier, make_verifier
from gym.verifiers.base import answer_payloads, last_boxed, peel_wrappers


# ---------------------------------------------------------------- registry and shared helpers

def test_registry_names_families_and_rejects_unknown():
    assert set(FAMILIES) >= {"math", "mcq", "exact"}
    with pytest.raises(GymError, match=r"unknown verifier family 'mqc' \(did you mean mcq\?\); "
                                       r"known families: math, mcq, exact"):
        make_verifier("mqc")
    with pytest.raises(GymError, match=r"unknown verifier family 'xyzzy'; known families: "):
        make_verifier("xyzzy")


def test_every_family_builds_from_registry():
    for family in ("math", "mcq", "exact"):
        verifier = make_verifier(family, None)
        assert isinstance(verifier, Verifier) and verifier.family == family
        verifier.close()
        verifier.close()  # twice is fine


def test_unknown_or_bad_options_are_one_line_errors():
    with pytest.raises(GymError, match=r"verifier 'mcq': unknown option 'mdoe' \(did you mean mode\?\); options: mode"):
        make_verifier("mcq", {"mdoe": "boxed"})
    with pytest.raises(GymError, match=r"option mode='fuzzy' is not one of answer_colon, boxed, auto"):
        make_verifier("mcq", {"mode": "fuzzy"})
    with pytest.raises(GymError, match=r"option timeout=0 must be a number >= 0.01"):
        make_verifier("math", {"timeout": 0})
    with pytest.raises(GymError, match=r"option workers=1.5 must be an integer >= 1"):
        make_verifier("math", {"workers": 1.5})
    with pytest.raises(GymError, match="options must be a mapping"):
        make_verifier("exact", ["mode"])  # type: ignore[arg-type]


def test_missing_expected_answer_is_a_data_error():
    for family in ("mcq", "exact", "math"):
        with make_verifier(family, {"workers": 1} if family == "math" else {}) as verifier:
            with pytest.raises(GymError, match="no usable expected_answer"):
                verifier.verify({"question": "q"}, "Answer: A")


def test_last_boxed_counts_braces_and_skips_unclosed():
    assert last_boxed(r"\boxed{1} and \boxed{\frac{3}{4}}") == r"\frac{3}{4}"
    assert last_boxed(r"\boxed{2} then \boxed{7") == "2"  # truncated last box is ignored
    assert last_boxed(r"\fbox{x} \boxed{}") == "x"  # empty box is no answer
    assert last_boxed(r"\boxed{\{1,2\}}") == r"\{1,2\}"
    assert last_boxed("no box here") is None
    assert peel_wrappers(r"\text{\textbf{Paris}}") == "Paris"
    assert peel_wrappers(r"\text{a} + \text{b}") == r"\text{a} + \text{b}"  # not one wrapper


def test_answer_payloads_tolerate_markdown():
    text = "**Answer:** B\n*Answer*: C\n### Final Answer: D\n**Answer: E**\nAnswer:\n\n  F\nreanswer: G"
    assert answer_payloads(text) == ["B", "C", "D", "E", "F"]


# ---------------------------------------------------------------- math

@pytest.fixture(scope="module")
def math_verifier():
    verifier = make_verifier("math", {"workers": 2, "timeout": 10})
    yield verifier
    verifier.close()


MATH_CASES = [
    # gold, response, reward, extracted
    (r"\frac{1}{2}", r"So $x = \boxed{0.5}$.", 1.0, "0.5"),
    ("1/2", r"\boxed{2/4}", 1.0, "0.5"),
    (r"\frac{1}{2}", r"\boxed{\dfrac{2}{4}}", 1.0, "0.5"),
    ("72", r"Try \boxed{3}, no: \boxed{10}; finally \boxed{72}", 1.0, "72"),
    ("3", r"Try \boxed{3}, no: \boxed{10}; finally \boxed{72}", 0.0, "72"),  # the last box is the answer
    ("1234", "Adding up gives the total.\nAnswer: 1,234", 1.0, "1234"),
    ("72", "48/2 = 24 clips in May, 48 + 24 = 72 in all, so the answer is 72.", 1.0, "72"),
    ("72", "In May: 48/2 = 24.\nIn all: 48+24 = 72.\n#### 72", 1.0, "72"),
    ("73", "In May: 48/2 = 24.\nIn all: 48+24 = 72.\n#### 72", 0.0, "72"),
    ("18", "She sells 9 eggs at $2 each, so she makes $18 every day.", 1.0, "18"),
    ("1000000", r"\boxed{1,000,000}", 1.0, "1000000"),
    ("0.1", "The rate is 10%.", 1.0, "0.1"),  # percentages: as math-verify decides
    ("10", "The rate is 10%.", 1.0, "0.1"),
    ("[0,1)", r"\boxed{[0, 1)}", 1.0, "Interval.Ropen(0, 1)"),
    ("(0,1]", r"\boxed{[0,1)}", 0.0, "Interval.Ropen(0, 1)"),
    ("3, 5", r"\boxed{5, 3}", 1.0, "{3, 5}"),
    ("x^2+2x+1", r"\boxed{(x+1)^2}", 1.0, "(x + 1)**2"),
    (r"\sqrt{2}/2", r"\boxed{\frac{\sqrt{2}}{2}}", 1.0, "sqrt(2)/2"),
    (r"2\sqrt{3}", r"\boxed{\sqrt{12}}", 1.0, "sqrt(12)"),
    (r"\frac{333}{1997}", r"\boxed{\frac{83}{499}}", 0.0, "83/499"),
    ("-3", r"\boxed{-3}", 1.0, "-3"),
    ("3.14", r"\boxed{3.140}", 1.0, "3.14"),
    ("72", r"\boxed{73}", 0.0, "73"),
    ("72", "", 0.0, None),
    ("72", "I am not sure how to solve this.", 0.0, None),
    (r"$\frac{1}{2}$", r"\boxed{\frac12}", 1.0, "0.5"),  # gold delimiters are stripped
    (r"\(5\)", r"\boxed{5}", 1.0, "5"),
    (r"\boxed{5}", "The answer is 5", 1.0, "5"),
]


@pytest.mark.parametrize("gold, response, reward, extracted", MATH_CASES)
def test_math_cases(math_verifier, gold, response, reward, extracted):
    verdict = math_verifier.verify({"expected_answer": gold}, response)
    assert isinstance(verdict, Verdict)
    assert (verdict.reward, verdict.extracted_answer) == (reward, extracted), verdict
    assert verdict.details["predicted"] == extracted
    json.dumps(verdict.details)


def test_math_non_string_gold_from_older_files(math_verifier):
    assert math_verifier.verify({"expected_answer": 72}, "#### 72").reward == 1.0
    assert math_verifier.verify({"expected_answer": 0.5}, r"\boxed{1/2}").reward == 1.0
    assert math_verifier.verify({"expected_answer": 7.0}, r"\boxed{7}").reward == 1.0


def test_math_shortcut_prints_like_the_worker(math_verifier):
    row = {"expected_answer": r"\frac{3}{8}"}
    first = math_verifier.verify(row, r"\boxed{\frac{3}{8}}")  # worker call; learns how the gold prints
    second = math_verifier.verify(row, r"\boxed{ \frac{3}{8} }")
    assert "shortcut" not in first.details and second.details["shortcut"] is True
    assert first.extracted_answer == second.extracted_answer == "0.375" and first.reward == second.reward == 1.0
    # integer against integer never needs the worker, right or wrong, and prints as the worker would
    same = math_verifier.verify({"expected_answer": "007"}, r"\boxed{007}")
    padded = math_verifier.verify({"expected_answer": "7"}, r"\boxed{007}")
    grouped = math_verifier.verify({"expected_answer": "1234"}, r"\boxed{1,234}")
    wrong = math_verifier.verify({"expected_answer": "1234"}, "so\n#### 1,235")
    assert all(v.details.get("shortcut") for v in (same, padded, grouped, wrong))
    assert same.extracted_answer == padded.extracted_answer == "7" and same.reward == padded.reward == 1.0
    assert (grouped.reward, grouped.extracted_answer) == (1.0, "1234")
    assert (wrong.reward, wrong.extracted_answer) == (0.0, "1235")
    # the worker agrees with the shortcut where both apply
    worker = math_verifier.verify({"expected_answer": "7"}, r"\boxed{7.0}")
    assert "shortcut" not in worker.details and worker.reward == 1.0


def test_math_equal_answers_vote_together(math_verifier):
    row = {"expected_answer": "99"}
    texts = (r"\boxed{\frac{1}{2}}", r"\boxed{0.5}", r"\boxed{2/4}", "The answer is 50%.", r"\boxed{\tfrac{1}{2}}")
    answers = {math_verifier.verify(row, text).extracted_answer for text in texts}
    assert answers == {"0.5"}


def _gsm8k_rows(count: int) -> list[tuple[str, str]]:
    path = REAL_DATA / "gsm8k" / "test.jsonl"
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            answer = json.loads(line)["answer"]
            rows.append((re.sub(r"<<[^>]*>>", "", answer), answer.split("####")[-1].strip().replace(",", "")))
            if len(rows) == count:
                break
    return rows


def test_math_on_real_gsm8k_solutions(math_verifier):
    """Reference solutions end in "#### N": right as written, wrong with N+1, right as a sentence with commas."""
    for solution, gold in _gsm8k_rows(300):
        row = {"expected_answer": gold}
        right = math_verifier.verify(row, solution)
        assert (right.reward, right.extracted_answer) == (1.0, str(int(gold))), (gold, solution[-80:], right)
        wrong = math_verifier.verify(row, re.sub(r"####.*", f"#### {int(gold) + 1}", solution))
        assert wrong.reward == 0.0, (gold, wrong)
        sentence = re.sub(r"\n####.*", f"\nSo the answer is {int(gold):,}.", solution)
        assert math_verifier.verify(row, sentence).reward == 1.0, (gold, sentence[-80:])


# ---------------------------------------------------------------- mcq

ROW = {"expected_answer": "C", "options": {"A": "12", "B": "15", "C": "18", "D": "21"}}

MCQ_CASES = [
    # response, answer_colon, boxed, auto
    ("Answer: C", "C", None, "C"),
    ("**Answer:** C", "C", None, "C"),
    ("**Answer: C**", "C", None, "C"),
    ("*Answer*: (C)", "C", None, "C"),
    ("answer: c", "C", None, "C"),
    ("Answer: C) 18", "C", None, "C"),
    ("Answer: The correct option is C", "C", None, "C"),
    ("Answer: I think it is C", "C", None, "C"),
    ("Answer: A good guess is C", "C", None, "C"),
    ("Answer: 18", "C", None, "C"),  # the option text itself
    ("Answer:\n\n**C**", "C", None, "C"),
    ("Answer：Ｃ", "C", None, "C"),  # full-width colon and letter
    ("Answer: B\nOn reflection that is wrong.\nAnswer: C", "C", None, "C"),  # the last one counts
    ("Answer: C\nAnswer: A or B", "C", None, "C"),  # hedged payload rejected, earlier one used
    ("Answer: A or B", None, None, None),
    ("Answer: A, C", None, None, None),
    ("Answer: (A) and (C)", None, None, None),
    ("Answer: E", None, None, None),  # not an option of this row
    (r"Final Answer: $\boxed{C}$", "C", "C", "C"),
    (r"So the choice is \boxed{C}.", None, "C", "C"),
    (r"\boxed{\text{C}}", None, "C", "C"),
    (r"\boxed{C)}", None, "C", "C"),
    (r"\boxed{C: 18}", None, "C", "C"),
    (r"\boxed{C.}", None, "C", "C"),
    (r"\boxed{B} at first, then \boxed{c}", None, "C", "C"),
    (r"\boxed{18}", None, None, None),
    ("After checking each option:\n**C**", None, None, "C"),
    ("After checking each option:\n(C).", None, None, "C"),
    ("It must be C since 18 = 3 * 6.", None, None, None),  # no marker at all
    ("", None, None, None),
]


@pytest.mark.parametrize("response, colon, boxed, auto", MCQ_CASES)
def test_mcq_modes(response, colon, boxed, auto):
    for mode, expected in (("answer_colon", colon), ("boxed", boxed), ("auto", auto)):
        verdict = make_verifier("mcq", {"mode": mode}).verify(ROW, response)
        assert verdict.extracted_answer == expected, (mode, response, verdict)
        assert verdict.reward == (1.0 if expected == "C" else 0.0)
        assert verdict.details["mode"] == mode and verdict.details["expected"] == "C"


def test_mcq_default_mode_is_answer_colon_and_letters_default_to_a_to_j():
    verifier = make_verifier("mcq")
    assert verifier.mode == "answer_colon"
    assert verifier.verify({"expected_answer": "J"}, "Answer: J").reward == 1.0
    assert verifier.verify({"expected_answer": "J"}, "Answer: K").extracted_answer is None


def test_mcq_options_as_list_and_gold_spelling():
    row = {"expected_answer": "(b)", "options": [{"A": "red"}, {"B": "blue"}]}
    verifier = make_verifier("mcq")
    assert verifier.verify(row, "Answer: B").reward == 1.0
    assert verifier.verify(row, "Answer: blue").extracted_answer == "B"
    assert verifier.verify(row, "Answer: C").extracted_answer is None  # only A and B exist


def test_mcq_row_regex_override():
    verifier = make_verifier("mcq", {"mode": "boxed"})
    row = {"expected_answer": "B", "options": {"A": "x", "B": "y", "C": "z", "D": "w"},
           "metadata": {"output_regex": r"Réponse\s*:\s*\(?([A-D])"}}
    verdict = verifier.verify(row, "Réponse : A\nreflexion...\nréponse: B \\boxed{C}")
    assert (verdict.extracted_answer, verdict.reward, verdict.details["source"]) == ("B", 1.0, "output_regex")
    # a list: the first pattern that matches wins; full-width and Arabic letters are normalised
    row["metadata"]["output_regex"] = [r"Antwort:\s*(\S)", r"الإجابة:\s*(\S+)"]
    assert verifier.verify(row, "الإجابة: ب").extracted_answer == "B"
    assert verifier.verify(row, "Antwort: Ｂ").extracted_answer == "B"
    # no regex match: the mode's own extraction runs
    assert verifier.verify(row, r"\boxed{B}").details["source"] == "boxed"
    row["metadata"]["output_regex"] = "(unclosed"
    with pytest.raises(GymError, match="output_regex '\\(unclosed' is not a valid regex"):
        verifier.verify(row, "Answer: B")


# ---------------------------------------------------------------- exact

EXACT_CASES = [
    # mode, gold, response, reward, extracted
    ("exact", "Paris", "The capital is Paris.\nAnswer: Paris", 1.0, "paris"),
    ("exact", "Paris", r"I think \boxed{\text{The Paris}}", 1.0, "paris"),
    ("exact", "The Eiffel Tower", "Answer: eiffel tower!", 1.0, "eiffel tower"),
    ("exact", "1234", "Answer: 1,234", 1.0, "1234"),
    ("exact", "Paris", "Let me think.\n\nLyon", 0.0, "lyon"),  # the last line
    ("exact", "Paris", "Answer: Paris, France", 0.0, "paris france"),
    ("exact", ["NYC", "New York City"], "Answer: new york city", 1.0, "new york city"),
    ("exact", "Paris", "", 0.0, None),
    ("exact", "Paris", "Answer: ...", 0.0, None),
    ("set", "red, green; blue", "Answer: Blue, red, green", 1.0, "blue, green, red"),
    ("set", "red, green, blue", r"\boxed{green; red; red; blue}", 1.0, "blue, green, red"),
    ("set", "red, green, blue", "Answer: red, green", 0.0, "green, red"),
    ("set", "red, green", "Answer: red, green, blue", 0.0, "blue, green, red"),
]


@pytest.mark.parametrize("mode, gold, response, reward, extracted", EXACT_CASES)
def test_exact_cases(mode, gold, response, reward, extracted):
    verdict = make_verifier("exact", {"mode": mode}).verify({"expected_answer": gold}, response)
    assert (verdict.reward, verdict.extracted_answer) == (reward, extracted), verdict
    json.dumps(verdict.details)


def test_exact_answer_sources():
    verifier = make_verifier("exact")
    assert verifier.verify({"expected_answer": "x"}, r"Answer: y \boxed{x}").details["source"] == "boxed"
    assert verifier.verify({"expected_answer": "x"}, "Answer: x\nthanks").details["source"] == "answer_colon"
    assert verifier.verify({"expected_answer": "x"}, "so\nx").details["source"] == "last_line"
