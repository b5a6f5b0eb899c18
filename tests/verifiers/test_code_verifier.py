"""The `code` verifier family: code extraction, output rules, EvalPlus and LiveCodeBench tests in the sandbox."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from gym.core.errors import GymError
from gym.verifiers import make_verifier
from gym.verifiers.code.reference import reference_program
from gym.verifiers.code import (Opaque, close, decode_value, encode_value, evalplus_matches, extract_code, mbpp_inputs,
                                stdout_matches)


def fenced(code: str, language: str = "python") -> str:
    return f"Here is my solution.\n\n```{language}\n{code}\n```\nDone."


@pytest.fixture(scope="module")
def verifier():
    with make_verifier("code", {"timeout": 2, "allow_unsandboxed": True}) as instance:
        yield instance


HUMAN_EVAL = {
    "question": "Complete sum_list", "expected_answer": "", "entry_point": "sum_list",
    "prompt": "from typing import List\n\n\ndef sum_list(numbers: List[int]) -> int:\n    \"\"\"Sum them.\"\"\"\n",
    "canonical_solution": "    return sum(numbers)\n",
    "base_input": [[[1, 2, 3]], [[]]], "plus_input": [[[10 ** 30, -1]], [[5] * 1000]], "atol": 0,
    "test": "def check(candidate):\n    assert candidate([1, 2]) == 3\n",
    "metadata": {"task_id": "HumanEval/900"},
}
MBPP = {
    "question": "shared elements", "expected_answer": "", "entry_point": "similar_elements",
    "prompt": '"""\nWrite a function to find the shared elements from the given two lists.\n"""\n',
    "canonical_solution": "\ndef similar_elements(test_tup1, test_tup2):\n"
                          "  return tuple(set(test_tup1) & set(test_tup2))\n",
    "base_input": [[[3, 4, 5, 6], [5, 7, 4, 10]]], "plus_input": [[[1, 2], [2, 1]], [[], [1]]], "atol": 0,
    "metadata": {"task_id": "Mbpp/2"},
}
STDIO = {"question": "add", "expected_answer": "",
         "unit_tests": {"inputs": ["1 2\n", "3 4\n", "10 20\n"], "outputs": ["3\n", "7\n", "30\n"], "fn_name": None}}
CALL = {"question": "pair", "expected_answer": "",
        "unit_tests": {"inputs": ["[1, 2, 3]\n2", "[]\n5"], "outputs": ["[2, 4, 6]", "[]"], "fn_name": "scale"}}


def test_extract_code_prefers_the_last_python_block():
    text = "```python\nfirst\n```\nthen\n```\nplain\n```\n```py\nsecond\n```\n```text\nlog\n```"
    assert extract_code(text) == ("second\n", None)
    assert extract_code("```\nonly plain\n```") == ("only plain\n", None)
    assert extract_code("no code here")[0] is None
    code, why = extract_code("```python\nok\n```\nand then\n```python\nprint(1)")
    assert code is None and "not closed" in why
    assert extract_code("<think>```python\nscratch\n```</think>\n```python\nfinal\n```") == ("final\n", None)
    assert extract_code("<think>```python\nscratch\n```")[0] is None


def test_stdout_rule_strips_lines_and_compares_numbers():
    assert stdout_matches("3 \n 4\n\n", "3\n4")
    assert stdout_matches("0.50 1e2\n", "0.5 100\n")
    assert not stdout_matches("3\n4\n5", "3\n4")
    assert not stdout_matches("yes", "YES")
    assert not stdout_matches("1 2", "1 3")


def test_values_survive_the_sandbox_boundary():
    value = {"a": (1, 2.5, None), 3: {frozenset({1}), "x"}, "big": 7 ** 6000, "c": [1j, b"\x00"], "s": set()}
    assert decode_value(json.loads(json.dumps(encode_value(value)))) == value
    assert decode_value(encode_value(object()))  # an opaque object keeps its type name and repr
    assert Opaque("Node", "<1>") == Opaque("Node", "<1>") != Opaque("Node", "<2>")


def test_evalplus_comparison_rules():
    assert evalplus_matches("humaneval", "f", [1], 0.1 + 0.2, 0.3, 0)  # float outputs get atol 1e-6
    assert not evalplus_matches("humaneval", "f", [1], 0.31, 0.3, 0)
    assert not evalplus_matches("humaneval", "f", [1], 1, 1.0000001, 0)  # int vs float: not close, not equal
    assert evalplus_matches("humaneval", "f", [1], [1.0, 2.0000000001], [1.0, 2.0], 0)
    assert evalplus_matches("mbpp", "similar_elements", [], (5, 4), (4, 5), 0)  # set comparison
    assert evalplus_matches("mbpp", "check_str", [], "match", True, 0)  # only "is not None" counts
    assert not evalplus_matches("mbpp", "check_str", [], None, True, 0)
    assert evalplus_matches("humaneval", "find_zero", [[-6, 11, -6, 1]], 3.0, 1.0, 1e-6)  # any root will do
    assert not evalplus_matches("humaneval", "find_zero", [[-6, 11, -6, 1]], 2.5, 1.0, 1e-6)
    assert close([1, (2.0, 3)], [1, [2.0000001, 3]], 1e-6) and not close([1, 2], [1, 2, 3], 1e-6)


def test_mbpp_inputs_rebuild_tuples_sets_and_complex():
    assert mbpp_inputs("Mbpp/2", [[[3, 4], [5]]]) == [[(3, 4), (5,)]]
    assert mbpp_inputs("Mbpp/252", [["1+2j"]]) == [[complex(1, 2)]]
    assert mbpp_inputs("Mbpp/580", [[[1, [2, 3]], 4]]) == [((1, (2, 3)), 4)]
    assert mbpp_inputs("Mbpp/3", [[[1, 2]]]) == [[[1, 2]]]


def test_human_eval_base_and_plus(verifier):
    assert verifier.verify(HUMAN_EVAL, fenced("    return sum(numbers)")).reward == 1.0  # a body: prompt goes first
    full = verifier.verify(HUMAN_EVAL, fenced("def sum_list(numbers: List[int]) -> int:\n    return sum(numbers)"))
    assert full.reward == 1.0 and full.details["passing_plus_tests"]  # List comes from the prompt's imports
    base_only = verifier.verify(HUMAN_EVAL, fenced(
        "def sum_list(numbers):\n"
        "    return sum(numbers) if len(numbers) < 4 and all(abs(n) < 100 for n in numbers) else 0"))
    assert base_only.reward == 0.0
    assert base_only.details["passing_base_tests"] and not base_only.details["passing_plus_tests"]
    assert base_only.details["failure"]["phase"] == "plus" and base_only.details["failure"]["test"] == 0
    crash = verifier.verify(HUMAN_EVAL, fenced("def sum_list(numbers):\n    raise ValueError('no')"))
    assert crash.reward == 0.0 and "ValueError: no" in crash.details["failure"]["reason"]
    missing = verifier.verify(HUMAN_EVAL, fenced("def other():\n    pass"))
    assert missing.reward == 0.0 and not missing.details["passing_base_tests"]


def test_full_function_answers_keep_the_prompts_helpers(verifier):
    row = {**HUMAN_EVAL, "entry_point": "twice_sum", "metadata": {"task_id": "HumanEval/901"},
           "prompt": "import math\n\n\ndef double(x):\n    return 2 * x\n\n\n"
                     "def twice_sum(xs):\n    \"\"\"Doc.\"\"\"\n",
           "canonical_solution": "    return double(sum(xs))\n"}
    answer = "def twice_sum(xs):\n    return double(sum(xs)) * math.prod([])"  # helper and import from the prompt
    assert verifier.verify(row, fenced(answer)).reward == 1.0


def test_ground_truth_is_computed_once_per_task(verifier):
    before = len(verifier._truth)
    for _ in range(3):
        verifier.verify(MBPP, fenced(MBPP["canonical_solution"]))
    assert len(verifier._truth) == before + 1


def test_mbpp_special_rules_and_input_types(verifier):
    reordered = ("def similar_elements(a, b):\n    assert isinstance(a, tuple)\n"
                 "    return tuple(sorted(set(a) & set(b)))")
    assert verifier.verify(MBPP, fenced(reordered)).reward == 1.0  # tuple inputs, order-free output
    wrong = verifier.verify(MBPP, fenced("def similar_elements(a, b):\n    return tuple(set(a) | set(b))"))
    assert wrong.reward == 0.0 and wrong.details["failure"]["phase"] == "base"


def test_printing_fake_results_does_not_help(verifier):
    forged = ("import json, os\ndef similar_elements(a, b):\n"
              "    print(json.dumps({'phase': 'base', 'index': 0, 'value': {'$tuple': [4, 5]}}))\n"
              "    os.write(1, b'{\"phase\": \"base\", \"index\": 0, \"value\": 1}\\n')\n    return None")
    assert verifier.verify(MBPP, fenced(forged)).reward == 0.0


def test_stdio_tests_stop_at_the_first_failure(verifier):
    good = verifier.verify(STDIO, fenced("a, b = map(int, input().split())\nprint(a + b)"))
    assert good.reward == 1.0 and good.details["passed"] == 3 and good.details["isolated"] in (True, False)
    wrong = verifier.verify(STDIO, fenced("import sys\na, b = map(int, sys.stdin.read().split())\nprint(a * b)"))
    assert wrong.reward == 0.0 and wrong.details["passed"] == 0
    assert wrong.details["failure"]["test"] == 0 and wrong.details["failure"]["got"] == "2\n"
    slow = verifier.verify(STDIO, fenced("a, b = map(int, input().split())\nwhile a > 1:\n    pass\nprint(a + b)"))
    assert slow.reward == 0.0 and slow.details["failure"] == {**slow.details["failure"], "reason": "program timeout",
                                                              "test": 1}
    main_guard = "def main():\n    print(sum(map(int, input().split())))\n\nif __name__ == '__main__':\n    main()"
    assert verifier.verify(STDIO, fenced(main_guard)).reward == 1.0


def test_call_tests_class_or_function(verifier):
    method = ("class Solution:\n    def scale(self, nums: List[int], k: int) -> List[int]:\n"
              "        return [x * k for x in nums]")
    assert verifier.verify(CALL, fenced(method)).reward == 1.0  # List from the standard preamble
    function = "def scale(nums, k):\n    return tuple(x * k for x in nums)"  # a tuple reads as a list
    assert verifier.verify(CALL, fenced(function)).reward == 1.0
    floats = {**CALL, "unit_tests": {"inputs": ["[1, 2]\n3"], "outputs": ["[0.3333333]"], "fn_name": "scale"}}
    assert verifier.verify(floats, fenced("def scale(nums, k):\n    return [nums[0] / k]")).reward == 1.0
    wrong = verifier.verify(CALL, fenced("def scale(nums, k):\n    return nums"))
    assert wrong.reward == 0.0 and wrong.details["failure"]["expected"] == "[2, 4, 6]"
    broken = verifier.verify(CALL, fenced("def scale(nums, k)\n    return nums"))
    assert broken.reward == 0.0 and "SyntaxError" in broken.details["failure"]["reason"]
    absent = verifier.verify(CALL, fenced("def other():\n    pass"))
    assert absent.reward == 0.0 and "no function scale" in absent.details["failure"]["reason"]


def test_test_code_rows(verifier):
    row = {key: HUMAN_EVAL[key] for key in ("question", "prompt", "entry_point", "test")}
    assert verifier.verify(row, fenced("    return sum(numbers)")).reward == 1.0
    failed = verifier.verify(row, fenced("    return 0"))
    assert failed.reward == 0.0 and failed.details["failure"]["reason"].startswith("AssertionError")
    assert "assert candidate([1, 2]) == 3" in failed.details["failure"]["reason"]


def test_no_code_and_bad_rows(verifier):
    verdict = verifier.verify(STDIO, "The answer is 3.")
    assert verdict.reward == 0.0 and verdict.extracted_answer is None
    assert "no fenced code block" in verdict.details["error"]
    with pytest.raises(GymError, match="no tests for the code verifier"):
        verifier.verify({"question": "q"}, fenced("print(1)"))
    with pytest.raises(GymError, match="unknown option 'timeout_s'"):
        make_verifier("code", {"timeout_s": 3})
    with pytest.raises(GymError, match="allow_unsandboxed"):
        make_verifier("code", {"allow_unsandboxed": "yes"})


@pytest.mark.parametrize("row", [HUMAN_EVAL, MBPP, STDIO, CALL], ids=["human_eval", "mbpp", "stdio", "call"])
def test_reference_programs_pass_and_wrong_ones_fail(verifier, row):
    assert verifier.verify(row, fenced(reference_program(row, True))).reward == 1.0
    assert verifier.verify(row, fenced(reference_program(row, False))).reward == 0.0
    assert reference_program({"question": "plain"}) is None


def test_concurrent_verification(verifier):
    answers = [fenced("a, b = map(int, input().split())\nprint(a + b)"), fenced("print(0)")] * 4
    with ThreadPoolExecutor(4) as pool:
        rewards = list(pool.map(lambda text: verifier.verify(STDIO, text).reward, answers))
    assert rewards == [1.0, 0.0] * 4


@pytest.mark.parametrize("row", [HUMAN_EVAL, MBPP, STDIO, CALL], ids=["human_eval", "mbpp", "stdio", "call"])
def test_reference_server_answers_code_tasks_with_programs(verifier, row):
    from gym.mock.policy import AnswerPolicy

    for accuracy, reward in ((1.0, 1.0), (0.0, 0.0)):
        reply = AnswerPolicy([row], accuracy=accuracy, seed=0).answer(f"Solve:\n{row['question']}", 1, 1, None)[0]
        assert "```python" in reply.content
        assert verifier.verify(row, reply.content).reward == reward


def test_reports_the_program_writes_itself_cannot_pass_it(verifier):
    """Reports come from the judge, which the program cannot write to: whatever it writes to its own
    descriptors (here: a report of test 0, repeated, on every fd) counts for nothing."""
    forge = ("import json, os\nfor fd in range(3, 16):\n    for _ in range(2):\n        try:\n"
             "            os.write(fd, (json.dumps({'phase': 'tests', 'index': 0, 'value': [2, 4, 6]}) + '\\n').encode())\n"
             "        except OSError:\n            pass\nos._exit(0)\n")
    verdict = verifier.verify(CALL, fenced(forge + "def scale(nums, k):\n    return [x * k for x in nums]"))
    assert verdict.reward == 0.0 and verdict.details["passed"] == 0
