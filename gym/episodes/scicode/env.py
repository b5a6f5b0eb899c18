"""SciCode as an episode: one model call per sub-step, each step's accumulated code tested in the sandbox.

As the reference's agent: sub-steps go in order; the prompt of step i (the background template, with each
step's scientific background) shows every earlier step's description and *the model's own* code for it
(steps with upstream's prefilled gold code, 13.6 / 62.1 / 76.3, show that code and are not scored); the model is
sent only that one prompt, not the earlier turns. Its reply's first ```python block, without import lines, is the
step's code. Step i is graded on the required dependencies, every earlier step's code and its own, then its
test cases against test_data.h5 (gym.episodes.scicode.runner). Reward 1 only when every scored step passes;
`details` keeps each step's result for sub-step accuracy (the episode family's `family_metrics` pools it over rollouts).
"""

from __future__ import annotations

import base64
import pickle
import re
import secrets
import threading
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.episodes.base import Environment, Score, ToolOutput, Turn
from gym.episodes.users import STOP
from gym.episodes.scicode import runner, targets
from gym.sandbox.report import nonce_report

PROMPT = """PROBLEM DESCRIPTION:
You will be provided with problem steps along with background knowledge necessary for solving the problem. Your task will be to develop a Python solution focused on the next step of the problem-solving process.

PROBLEM STEPS AND FUNCTION CODE:
Here, you'll find the Python code for the initial steps of the problem-solving process. This code is integral to building the solution.

{problem_steps_str}

NEXT STEP - PROBLEM STEP AND FUNCTION HEADER:
This part will describe the next step in the problem-solving process. A function header will be provided, and your task is to develop the Python code for this next step based on the provided description and function header.

{next_step_str}

DEPENDENCIES:
Use only the following dependencies in your solution. Do not include these dependencies at the beginning of your code.

{dependencies}

RESPONSE GUIDELINES:
Now, based on the instructions and information provided above, write the complete and executable Python program for the next step in a single block.
Your response should focus exclusively on implementing the solution for the next step, adhering closely to the specified function header and the context provided by the initial steps.
Your response should NOT include the dependencies and functions of all previous steps. If your next step function calls functions from previous steps, please make sure it uses the headers provided without modification.
DO NOT generate EXAMPLE USAGE OR TEST CODE in your response. Please make sure your response python code in format of ```python```."""

_SANDBOX_LOCK = threading.Lock()
IMPORT_LINE = re.compile(r"^\s*(import .*|from .*\s+import\s+.*)", re.MULTILINE)


def extract_code(reply: str | None) -> str:
    """The reply's ```python block (else its first ``` block, else all of it) without import lines."""
    text = reply or ""
    if "```python" in text:
        text = text.split("```python")[1].split("```")[0]
    elif "```" in text:
        text = text.split("```")[1].split("```")[0]
    return IMPORT_LINE.sub("", text)


def _describe(step: dict, background: bool) -> str:
    text = str(step.get("step_description_prompt") or "")
    return f"{text}\n{step.get('step_background') or ''}" if background else text


def step_prompt(row: dict, index: int, codes: list[str], background: bool = True) -> str:
    steps = row["sub_steps"]
    earlier: list[str] = []
    for number in range(index):
        earlier += [_describe(steps[number], background), codes[number], "------"]
    header = f"{steps[index]['function_header']}\n\n{steps[index].get('return_line') or ''}"
    return PROMPT.format(problem_steps_str="\n\n".join(earlier[:-1]),
                         next_step_str="\n\n".join([_describe(steps[index], background), header]),
                         dependencies=row.get("required_dependencies") or "")


def scored_steps(row: dict) -> list[int]:
    prefilled = row.get("prefilled") or {}
    return [i for i in range(len(row["sub_steps"])) if str(i) not in prefilled]


def step_codes(row: dict, replies: list[str]) -> list[str | None]:
    """Each step's code: prefilled gold, or the model's extracted reply (None: not answered)."""
    prefilled, answers = row.get("prefilled") or {}, iter(replies)
    return [prefilled[str(i)] if str(i) in prefilled else (None if (r := next(answers, None)) is None
                                                          else extract_code(r))
            for i in range(len(row["sub_steps"]))]


def _replies(trajectory: list[dict]) -> list[str]:
    return [str(m.get("content") or "") for m in trajectory if m.get("role") == "assistant"]


class SciCodeEnvironment(Environment):
    name = "scicode"
    supports_solo = False
    errors_end_episode = False

    def __init__(self, data_path: Any = None, nl_assertions: str = "skip", test_data: str | None = None,
                 step_timeout: float = 30.0, sandbox: Any = None, **_: Any) -> None:
        self.test_data, self.step_timeout, self.sandbox = test_data, float(step_timeout), sandbox
        if test_data is not None:  # the grading side: h5py reads the targets, the sandbox must isolate
            targets.h5py_module()
            self._sandboxed()

    def reset(self, row: dict, seed: int | None = None) -> None:
        return None

    def tools(self, state: Any, requestor: str = "assistant") -> list[dict]:
        return []

    def call(self, state: Any, name: str, arguments: Any, requestor: str = "assistant") -> ToolOutput:
        return ToolOutput(f"no tool {name!r}: SciCode offers no tools", error=True)

    def _prompt(self, row: dict, replies: list[str]) -> str | None:
        order = scored_steps(row)
        if len(replies) >= len(order):
            return None
        index = order[len(replies)]
        return step_prompt(row, index, [c or "" for c in step_codes(row, replies)])

    def initial_messages(self, row: dict) -> list[dict]:
        return [{"role": "user", "content": self._prompt(row, [])}]

    def next_user_turn(self, state: Any, trajectory: list[dict], row: dict) -> Turn:
        """The next sub-step's prompt (built from the model's code so far), or the stop once all are answered."""
        prompt = self._prompt(row, _replies(trajectory))
        return Turn(text=STOP if prompt is None else prompt)

    @staticmethod
    def agent_view(trajectory: list[dict]) -> list[dict]:
        """The model gets the current step's prompt alone, as the reference sends it."""
        return [{"role": "user", "content": trajectory[-1].get("content")}]

    def _test_data(self) -> Path:
        path = Path(str(self.test_data or "")).expanduser()
        if not self.test_data or not path.is_file():
            raise GymError(f"scicode: test_data.h5 not found at {path}: download it from SciCode's release "
                           f"(docs/benchmarks/scicode.md) and place it there, or set "
                           f"benchmark.verifier.options.test_data=<path>")
        return path

    def score(self, row: dict, trajectory: list[dict], termination: str, final: Any = None) -> Score:
        data = self._test_data()
        codes = step_codes(row, _replies(trajectory))
        results = []
        for index in scored_steps(row):
            if codes[index] is None:
                results.append(False)
                continue
            results.append(self._run_step(row, index, codes, data))
        passed = sum(results)
        return Score(float(bool(results) and passed == len(results)),
                     {"problem_id": row.get("problem_id"), "step_results": results, "num_steps_passed": passed,
                      "num_steps_total": len(results),
                      "breakdown": {"subtask_accuracy": passed / len(results) if results else 0.0}})

    def _run_step(self, row: dict, index: int, codes: list[str | None], data: Path) -> bool:
        from gym.sandbox.host import Run

        step = row["sub_steps"][index]
        tests = list(step.get("test_cases") or [])
        code = "\n".join([str(row.get("required_dependencies") or ""), *[c or "" for c in codes[:index + 1]]])
        payload = base64.b64encode(pickle.dumps(targets.step_targets(data, str(step["step_number"]), len(tests))))
        nonce = secrets.token_hex(16)
        stdin = f"{nonce}\n{payload.decode()}\n"
        outcome = self._sandboxed().run(runner.program(code, tests), [Run(stdin, self.step_timeout, 1 << 20)],
                                        total_timeout=self.step_timeout + 10)
        result = outcome.results[0] if outcome.results else None
        report = nonce_report(result.stdout, nonce) if result else None
        return bool(report) and report.get("passed") == report.get("tests") and "error" not in report

    def _sandboxed(self) -> Any:
        with _SANDBOX_LOCK:  # one sandbox (its slots bound parallel programs) for every grading thread
            if self.sandbox is None:
                from gym.sandbox.host import Sandbox

                sandbox = Sandbox(memory_mb=8192)
                sandbox.check()  # refuses (one line) where no isolation works, before any model call
                self.sandbox = sandbox
            return self.sandbox

