"""What gym's reference server (gym.mock) answers a code task with: a program that passes the task's tests (the
canonical solution, or a table of the test answers) or one that returns wrong values."""

from __future__ import annotations

import json

from gym.core.answer_text import defines_function


def reference_program(row: dict, correct: bool = True) -> str | None:
    """The program for `row` (right when `correct`), or None when the row is not a code task."""
    tests = row.get("unit_tests")
    if isinstance(tests, dict) and tests.get("inputs"):
        function = tests.get("fn_name")
        if not function:
            table = dict(zip(tests["inputs"], tests["outputs"])) if correct else {}
            return f"import sys\n_answers = {table!r}\nsys.stdout.write(_answers.get(sys.stdin.read(), 'none\\n'))\n"
        table = {json.dumps([json.loads(line) for line in text.split("\n")]): out
                 for text, out in zip(tests["inputs"], tests["outputs"])} if correct else {}
        return (f"import json\n_answers = {table!r}\n\n\nclass Solution:\n    def {function}(self, *args):\n"
                f"        key = json.dumps(list(args))\n"
                f"        return json.loads(_answers[key]) if key in _answers else None\n")
    entry, solution = row.get("entry_point"), row.get("canonical_solution")
    if not entry or not isinstance(solution, str):
        return None
    if isinstance(row.get("prefix"), str) and isinstance(row.get("suffix"), str):  # fill in the middle
        return solution + "\n" if correct else "raise SystemExit('not the middle')\n"
    if not correct:
        return f"def {entry}(*args, **kwargs):\n    return None\n"
    prompt = row.get("prompt")
    # A body-only solution (HumanEval) goes after the prompt; a whole function (MBPP+) stands alone and
    # the verifier adds the prompt's imports and helpers, as it does for a model's answer.
    return solution if defines_function(solution, entry) or not isinstance(prompt, str) else prompt + solution
