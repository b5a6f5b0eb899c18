"""Generated Python code run against the task's tests in the process sandbox (gym.sandbox.host).

The program is the last fenced code block of the answer (```python preferred; an unclosed block at
the end means a cut-off answer and no code). Rows pick the tests:

* `unit_tests` {inputs, outputs, fn_name} (LiveCodeBench): without fn_name each test is a fresh
  process reading stdin, and stdout must match line by line after stripping, with a Decimal
  comparison of whitespace-separated fields as fallback; with fn_name the function (or the method
  of `class Solution`) is called with the JSON arguments of each input line and its return value
  must equal the JSON output (tuples read as lists, floats within 1e-6). A preamble of standard
  library imports goes first, as in LiveCodeBench.
* `base_input` / `plus_input` + `canonical_solution` (EvalPlus HumanEval+ / MBPP+): expected outputs
  come from running the canonical solution once per task (cached); the answer passes a phase when
  every output matches under EvalPlus' rules (float tolerance `atol`, special oracles). Per-test time
  limit max(min_time_limit, time_limit_factor x reference time). Reward 1 only if base AND plus pass;
  the secondary score `base_tests` (details["scores"]) is 1 when the base tests alone pass.
* `test_runner: unittest` + `test` + `code_prompt` (BigCodeBench): the answer and the task's TestCases run
  in one process, as BigCodeBench's untrusted_check (see gym.verifiers.code.unittests), optionally against
  a virtualenv of the task libraries (option `environment`); passes when no test fails or errs.
* `prefix` + `suffix` + `test` + `entry_point` (HumanEval-Infilling): the answer is the middle, and
  prefix + middle + suffix is tested like a HumanEval program (see gym.verifiers.code.fim).
* otherwise `test` + `entry_point` (HumanEval style): the test code runs in a judge process of its own
  and calls the program's function through a pipe (arguments and return values cross as data, as
  with fn_name); the answer passes only when the judge reports that `check(entry_point)` returned.
  The program never sees the test code, and no exit status, exit hook or signal of its own counts.

Return values whose encoding exceeds 1 MiB are compared by SHA-256 of a canonical form (ints and
floats of equal value alike), exactly, so that outputs of any size are judged without holding them;
float tolerance applies to smaller outputs only.

A HumanEval-style answer that does not define the entry point is taken as the function body and
the prompt goes first; one that does gets the rest of the prompt (imports, helper functions) but not
its stub. Tests stop at the first failure.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import threading
from typing import Any

from gym.core.answer_text import defines_function
from gym.core.errors import GymError
from gym.sandbox.host import Run, RunResult, Sandbox, SandboxUnavailable
from gym.verifiers.base import Verdict, Verifier, VerifierError
from gym.verifiers.code.compare import close, extract_code, stdout_matches
from gym.verifiers.code.driver import (DRIVER, Opaque, decode_value, encode_value,  # noqa: F401  (re-exported)
                                       judge_source, relay_source, wire_value)
from gym.verifiers.code.evalplus import evalplus_matches, mbpp_inputs, reference_outputs
from gym.verifiers.code import fim, unittests

PREAMBLE = "\n".join(
    [f"from {name} import *" for name in ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math",
                                          "random", "statistics", "itertools", "functools", "operator", "io", "sys",
                                          "json", "builtins", "typing")]
    + ["import string, re, datetime, collections, heapq, bisect, copy, math, random, statistics, itertools, "
       "functools, operator, io, sys, json", "sys.setrecursionlimit(50000)", ""])
CALL_OUTPUT_LIMIT = 64 << 20  # encoded return values of every test of one answer


# -- the verifier ----------------------------------------------------------------------------------
def _brief(value: Any, limit: int = 300) -> str:
    try:
        text = value if isinstance(value, str) else repr(value)
    except ValueError:  # an int past Python's 4,300-digit str limit (HumanEval+'s big factorials)
        text = f"<{type(value).__name__} too long to show>"
    return text if len(text) <= limit else text[: limit // 2] + " ... " + text[-limit // 2:]


def _with_prompt(code: str, row: dict) -> str:
    """HumanEval-style completion: the prompt goes first unless the code defines the entry point itself,
    in which case the rest of the prompt does (imports for type hints, helper functions it may call)."""
    prompt, entry = row.get("prompt"), row.get("entry_point")
    if not isinstance(prompt, str) or not entry:
        return code
    if not defines_function(code, entry):
        return prompt + code
    try:
        rest = [ast.get_source_segment(prompt, node) for node in ast.parse(prompt).body
                if not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry)]
    except (SyntaxError, ValueError):
        rest = []
    return "\n\n".join([*filter(None, rest), code])


def _score(messages: list[dict], expected: list, trouble: str | None, details: dict, matches,
           phase: str | None = None) -> int:
    """Tests passed in a row from the driver's messages; the first failure goes to details["failure"]."""
    where = {"phase": phase} if phase else {}
    for passed, message in enumerate(messages[:len(expected)]):
        index = message.get("index")
        if index != passed:  # out of order or made up: not the driver's doing
            details.setdefault("failure", {"reason": "unexpected test report", **where, "test": passed})
            return passed
        got = wire_value(message) if "value" in message or "digest" in message else None
        if "error" in message or not matches(index, got):
            details.setdefault("failure", {"reason": message.get("error") or "wrong answer", **where, "test": index,
                                           "got": _brief(got), "expected": _brief(expected[index])})
            return passed
    if len(messages) < len(expected):
        details.setdefault("failure", {"reason": trouble or "not all tests ran", **where, "test": len(messages)})
    return len(messages)


class CodeVerifier(Verifier):
    family = "code"
    OPTIONS = {
        "timeout": 10.0,  # seconds per stdin/stdout or call test (LiveCodeBench, test code)
        "min_time_limit": 1.0,  # EvalPlus: per input max(min_time_limit, time_limit_factor x reference time)
        "time_limit_factor": 4.0,
        "total_timeout": None,  # seconds for all tests of one answer; default derived from the per-test limits
        "max_parallel": None,  # sandboxes at once across all threads; default: CPU count
        "memory_mb": 4096,  # address space per program
        "max_output_bytes": 4_000_000,  # stdout kept per test (more fails the test)
        "max_processes": 64,
        "open_files": 256,
        "disk_mb": 256,  # size of the program's tmpfs work dir
        "allow_unsandboxed": False,  # run with resource limits only where no sandbox mechanism works
        "sandbox": "auto",  # auto (bwrap if it works, else namespaces) | bwrap | namespaces
        "unittest_timeout": 241.0,  # seconds for all TestCases of a BigCodeBench-style row (the reference's)
        "environment": None,  # a virtualenv whose site-packages the programs import from (BigCodeBench's libraries)
        "toolchain": [],  # host folders shown read-only, with fork/exec allowed (e.g. [/usr] for subprocess)
    }

    @classmethod
    def mock_answer(cls, row: dict, prompt: str, final: str, correct: bool, opener: str) -> str | None:
        """A program that passes the task's tests (or returns wrong values), in a fenced block."""
        from gym.verifiers.code.reference import reference_program

        program = reference_program(row, correct)
        if program is None:
            return None
        ending = "" if program.endswith("\n") else "\n"  # the closing fence on a line of its own
        return f"{opener}\n\n```python\n{program}{ending}```"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.timeout = self.number_option("timeout", 0.01)
        self.min_time_limit = self.number_option("min_time_limit", 0.01)
        self.time_limit_factor = self.number_option("time_limit_factor", 1)
        self.total_timeout = None if self.options["total_timeout"] is None else self.number_option("total_timeout", 1)
        self.output_limit = int(self.number_option("max_output_bytes", 1024, integer=True))
        parallel = None if self.options["max_parallel"] is None else self.number_option("max_parallel", 1, True)
        if not isinstance(self.options["allow_unsandboxed"], bool):
            raise GymError("verifier 'code': option allow_unsandboxed must be true or false")
        self.sandbox = Sandbox(max_parallel=parallel, allow_unsandboxed=self.options["allow_unsandboxed"],
                               memory_mb=self.number_option("memory_mb", 64, True),
                               processes=self.number_option("max_processes", 1, True),
                               open_files=self.number_option("open_files", 16, True),
                               disk_mb=self.number_option("disk_mb", 1, True),
                               mechanism=self.choice_option("sandbox", ("auto", "bwrap", "namespaces")),
                               toolchain=self._folders("toolchain"),
                               site_packages=unittests.site_packages(self.options["environment"]))
        self.unittest_timeout = self.number_option("unittest_timeout", 1)
        self.mechanism = self.sandbox.check()  # refuses here, before any model call, when isolation is missing
        self.isolated = self.mechanism != "none"
        self._truth: dict[str, dict] = {}
        self._truth_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def _folders(self, name: str) -> tuple[str, ...]:
        value = self.options[name] or []
        if isinstance(value, str) or not all(isinstance(folder, str) for folder in value):
            raise GymError(f"verifier 'code': option {name} must be a list of folders, e.g. [/usr], got {value!r}")
        return tuple(value)

    def run_info(self) -> dict:
        return {"sandbox": self.mechanism, "allow_unsandboxed": self.options["allow_unsandboxed"]}

    def verify(self, row: dict, response: str) -> Verdict:
        code, problem = extract_code(response)
        if code is None:
            details = {"error": problem}
            if row.get("base_input") is not None and row.get("canonical_solution") is not None:
                details["scores"] = {"base_tests": 0.0}  # EvalPlus rows: no code passes no base test either
            return Verdict(0.0, None, details)
        try:
            if isinstance(row.get("unit_tests"), dict):
                details = self._unit_tests(row["unit_tests"], PREAMBLE + code)
            elif row.get("base_input") is not None and row.get("canonical_solution") is not None:
                details = self._evalplus(row, _with_prompt(code, row))
            elif row.get("test_runner") == "unittest" and isinstance(row.get("test"), str):
                details = self._unittest(row, code)
            elif fim.is_fim_row(row) and isinstance(row.get("test"), str) and row.get("entry_point"):
                details = self._fim(row, code)
            elif isinstance(row.get("test"), str) and row.get("entry_point"):
                details = self._test_code(row, _with_prompt(code, row))
            else:
                raise GymError("task row has no tests for the code verifier (needs unit_tests, base_input + "
                               "canonical_solution, or test + entry_point); re-run task=prepare for this benchmark")
        except SandboxUnavailable as exc:  # fail closed: never a verdict from a weaker sandbox
            raise VerifierError(f"sandbox refused: {exc}", {"sandbox": self.mechanism}) from None
        details["isolated"] = self.isolated
        details["sandbox"] = self.mechanism
        passed = details.pop("_passed", details["passed"] == details["tests"])
        return Verdict(1.0 if passed else 0.0, code, details)

    def _fim(self, row: dict, code: str) -> dict:
        """HumanEval-Infilling: prefix + middle + suffix against the tests, each candidate middle in turn."""
        details: dict[str, Any] = {"tests": 1, "passed": 0}
        for middle in fim.middles(code, row):
            details = self._test_code(row, fim.program(row, middle))
            if details["passed"]:
                break
        return details

    def _unittest(self, row: dict, code: str) -> dict:
        """BigCodeBench: the answer and its TestCases in one process (see gym.verifiers.code.unittests)."""
        source, stdin = unittests.program(row, code, self.unittest_timeout)
        limit = self.unittest_timeout + 2
        outcome = self.sandbox.run(source, [Run(stdin, limit, self.output_limit)], total_timeout=limit + 10)
        result = outcome.results[0] if outcome.results else None
        report = unittests.read_report(result.stdout, stdin) if result else None
        if report is None:  # killed or out of time before reporting: the reference's TIMEOUT
            reason = f"tests {result.status}" if result else (outcome.error or "sandbox ended")
            return {"tests": 1, "passed": 0, "status": "timeout", "failure": {
                "reason": reason, "stderr": _brief(result.stderr.strip(), 1000) if result else ""}}
        details: dict[str, Any] = {"tests": 1, "passed": int(report.get("status") == "pass"),
                                   "status": report.get("status"), "test_methods": report.get("tests")}
        if report.get("issues"):
            details["failure"] = {"reason": "tests failed", "failed_tests": sorted(report["issues"]),
                                  "trace": _brief(next(iter(report["issues"].values())), 1000)}
        return details

    # HumanEval-style test code ------------------------------------------------------------------------
    def _test_code(self, row: dict, program: str) -> dict:
        """The judge runs the tests against the program's function; only its report can pass the answer."""
        entry = str(row["entry_point"])
        job = json.dumps({"code": program, "function": entry, "method": False, "load_limit": self.timeout,
                          "call_limit": self.timeout})
        judge = judge_source(row.get("prompt") if isinstance(row.get("prompt"), str) else "", row["test"], entry)
        outcome = self.sandbox.run(DRIVER, [Run(job, self.timeout, self.output_limit, judge=judge)],
                                   total_timeout=self.total_timeout or self.timeout + 10)
        result = outcome.results[0] if outcome.results else None
        report = {}
        if result is not None and result.status == "ok":
            with contextlib.suppress(json.JSONDecodeError, IndexError):
                report = json.loads(result.stdout.splitlines()[-1])
        details: dict[str, Any] = {"tests": 1, "passed": int(report.get("passed") is True)}
        if not details["passed"]:
            reason = report.get("error") or (f"tests {result.status}" if result else outcome.error)
            details["failure"] = {"reason": reason, "stderr": _brief(result.stderr.strip(), 1000) if result else ""}
        return details

    # LiveCodeBench ----------------------------------------------------------------------------------
    def _unit_tests(self, tests: dict, program: str) -> dict:
        inputs, outputs, function = tests.get("inputs") or [], tests.get("outputs") or [], tests.get("fn_name")
        if len(inputs) != len(outputs) or not inputs:
            raise GymError("task row: unit_tests needs equally long, non-empty 'inputs' and 'outputs'")
        details: dict[str, Any] = {"tests": len(inputs), "passed": 0}
        total = self.total_timeout or (self.timeout + 1) * len(inputs) + 5
        if function:
            try:
                args = [[json.loads(line) for line in text.split("\n")] for text in inputs]
                expected = [json.loads(out) for out in outputs]
            except (json.JSONDecodeError, AttributeError) as exc:
                raise GymError(f"task row: unit_tests of a function ({function}) must be JSON lines: {exc}") from None
            messages, trouble = self._call(program, function, "class Solution" in program,
                                           [{"name": "tests", "inputs": args, "limits": [self.timeout] * len(args)}],
                                           self.timeout, total)
            details["passed"] = _score(messages.get("tests", []), expected, trouble, details, lambda i, got: close(
                list(got) if isinstance(got, tuple) else got, expected[i], 1e-6, 1e-9))  # tuples read as lists
            return details

        def check(index: int, result: RunResult) -> bool:
            if result.status == "ok" and stdout_matches(result.stdout, outputs[index]):
                details["passed"] += 1
                return True
            details["failure"] = {"reason": "wrong answer" if result.status == "ok" else f"program {result.status}",
                                  "test": index, "got": _brief(result.stdout), "expected": _brief(outputs[index]),
                                  "stderr": _brief(result.stderr.strip(), 1000)}
            return False

        runs = [Run(text, self.timeout, max(self.output_limit, 2 * len(out) + 1024))
                for text, out in zip(inputs, outputs)]
        outcome = self.sandbox.run(program, runs, total_timeout=total, on_result=check)
        if details["passed"] < details["tests"] and "failure" not in details:
            details["failure"] = {"reason": outcome.error or "not all tests ran", "test": details["passed"]}
        return details

    def _call(self, code: str, function: str, method: bool, phases: list[dict], load_limit: float,
              total: float) -> tuple[dict[str, list], str | None]:
        """Call the function once per input, the relay judge reporting each outcome: ({phase: messages},
        what went wrong beyond single tests or None)."""
        encoded = [{**phase, "inputs": [encode_value(a) for a in phase["inputs"]]} for phase in phases]
        job = json.dumps({"code": code, "function": function, "method": method, "load_limit": load_limit,
                          "call_limit": max([limit for phase in phases for limit in phase["limits"]] or [load_limit]),
                          "digests": True})
        outcome = self.sandbox.run(DRIVER, [Run(job, total, CALL_OUTPUT_LIMIT, judge=relay_source(encoded, load_limit))],
                                   total_timeout=total + 10)
        result = outcome.results[0] if outcome.results else None
        messages: dict[str, list] = {}
        trouble = None
        for line in (result.stdout if result else "").splitlines():
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                break  # a line cut short by a kill
            if not isinstance(message, dict) or not isinstance(message.get("phase", message.get("load_error")), str):
                trouble = "unexpected test report"
                break
            if "load_error" in message:
                trouble = message["load_error"]
                break
            messages.setdefault(message["phase"], []).append(message)
        if trouble is None and (result is None or result.status != "ok"):
            trouble = outcome.error or f"program {result.status}: {_brief(result.stderr.strip(), 1000)}"
        return messages, trouble

    # EvalPlus -------------------------------------------------------------------------------------
    def _evalplus(self, row: dict, program: str) -> dict:
        entry = str(row.get("entry_point") or "")
        task_id = str((row.get("metadata") or {}).get("task_id") or row.get("task_id") or "")
        dataset = "mbpp" if task_id.lower().startswith("mbpp") else "humaneval"
        inputs = {}
        for phase in ("base", "plus"):
            raw = row.get(f"{phase}_input") or []
            inputs[phase] = mbpp_inputs(task_id, raw) if dataset == "mbpp" else raw
        truth = self._ground_truth(row, task_id, dataset, entry, inputs)
        phases = [{"name": phase, "inputs": inputs[phase],
                   "limits": [max(self.min_time_limit, self.time_limit_factor * t) for t in truth[phase]["times"]]}
                  for phase in ("base", "plus")]
        total = self.total_timeout or sum(min(sum(p["limits"]), 60) for p in phases) + 5  # EvalPlus: 60 s a phase
        messages, trouble = self._call(program, entry, False, phases, max(self.timeout, 1.0), total)
        details: dict[str, Any] = {"tests": 0, "passed": 0}
        atol = float(row.get("atol") or 0)
        for phase in ("base", "plus"):
            expected, args = truth[phase]["values"], inputs[phase]
            passed = _score(messages.get(phase, []), expected, trouble, details, lambda i, got: evalplus_matches(
                dataset, entry, args[i], got, expected[i], atol), phase)
            details[f"passing_{phase}_tests"] = passed == len(expected)
            details[phase] = {"tests": len(expected), "passed": passed}
            details["tests"] += len(expected)
            details["passed"] += passed
        details["_passed"] = details["passing_base_tests"] and details["passing_plus_tests"]
        details["scores"] = {"base_tests": 1.0 if details["passing_base_tests"] else 0.0}
        return details

    def _ground_truth(self, row: dict, task_id: str, dataset: str, entry: str, inputs: dict) -> dict:
        """Outputs and run times of the canonical solution, computed once per task."""
        key = hashlib.sha256(json.dumps([task_id, entry, row.get("prompt"), row["canonical_solution"],
                                         len(inputs["base"]), len(inputs["plus"])]).encode()).hexdigest()
        with self._lock:
            lock = self._truth_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._truth:
                code = (row.get("prompt") or "") + row["canonical_solution"]
                try:
                    self._truth[key] = reference_outputs(self._call, code, task_id, dataset, entry, inputs)
                except RuntimeError as exc:  # the task's own solution fails: no verdict is possible
                    raise VerifierError(str(exc), {"task_id": task_id}) from None
        return self._truth[key]
