"""Generated Python code run against the task's tests in the process sandbox (gym.sandbox).

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
  limit max(min_time_limit, time_limit_factor x reference time). Reward 1 only if base AND plus pass.
* otherwise `test` + `entry_point` (HumanEval style): the program, the test code and
  `check(entry_point)` run once; exit status 0 passes.

A HumanEval-style answer that does not define the entry point is taken as the function body and
the prompt goes first; one that does gets the rest of the prompt (imports, helper functions) but not
its stub. Tests stop at the first failure.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import re
import threading
from decimal import Decimal, InvalidOperation
from typing import Any

from gym.errors import GymError
from gym.sandbox import Run, RunResult, Sandbox
from gym.verifiers.base import Verdict, Verifier

PREAMBLE = "\n".join(
    [f"from {name} import *" for name in ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math",
                                          "random", "statistics", "itertools", "functools", "operator", "io", "sys",
                                          "json", "builtins", "typing")]
    + ["import string, re, datetime, collections, heapq, bisect, copy, math, random, statistics, itertools, "
       "functools, operator, io, sys, json", "sys.setrecursionlimit(50000)", ""])
CALL_OUTPUT_LIMIT = 64 << 20  # encoded return values of every test of one answer
_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+#.-]*)[^\n]*$", re.MULTILINE)


def extract_code(text: str) -> tuple[str | None, str | None]:
    """(code, None) from the last fenced block (```python preferred), or (None, why there is none)."""
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    elif "<think>" in text:
        return None, "reasoning never finished (<think> without </think>)"
    fences = list(_FENCE.finditer(text))
    blocks, open_fence = [], None
    for fence in fences:
        if open_fence is None:
            open_fence = fence
        else:
            blocks.append((open_fence.group(1).lower(), text[open_fence.end() + 1:fence.start()]))
            open_fence = None
    if open_fence is not None:
        return None, "the last code block is not closed (answer cut off?)"
    if not blocks:
        return None, "no fenced code block in the answer"
    python = [code for language, code in blocks if language in ("python", "py", "python3")]
    return (python or [code for _, code in blocks])[-1], None


# -- values across the sandbox boundary (this code also runs inside the sandbox) -------------------
class Opaque:
    """A value with no JSON form (an object of a custom class): equal when type name and repr match."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and (self.type_name, self.text) == (other.type_name, other.text)

    def __hash__(self) -> int:
        return hash((self.type_name, self.text))

    def __repr__(self) -> str:
        return self.text


def encode_value(value):
    """A Python value as JSON, keeping tuples, sets, dict keys, complex, bytes and huge ints apart."""
    if value is None or isinstance(value, (bool, str, float)):
        return value
    if isinstance(value, int):
        return int(value) if value.bit_length() < 4000 else {"$int": format(value, "x")}
    if isinstance(value, list):
        return [encode_value(item) for item in value]
    if isinstance(value, tuple):
        return {"$tuple": [encode_value(item) for item in value]}
    if isinstance(value, (set, frozenset)):
        return {"$set": [encode_value(item) for item in value], "$frozen": isinstance(value, frozenset)}
    if isinstance(value, dict):
        return {"$dict": [[encode_value(key), encode_value(item)] for key, item in value.items()]}
    if isinstance(value, complex):
        return {"$complex": [value.real, value.imag]}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": bytes(value).hex()}
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return encode_value(value.tolist())
    return {"$repr": repr(value)[:10000], "$type": type(value).__name__}


def decode_value(value):
    if isinstance(value, list):
        return [decode_value(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "$tuple" in value:
        return tuple(decode_value(item) for item in value["$tuple"])
    if "$set" in value:
        items = [decode_value(item) for item in value["$set"]]
        return frozenset(items) if value.get("$frozen") else set(items)
    if "$dict" in value:
        return {decode_value(key): decode_value(item) for key, item in value["$dict"]}
    if "$complex" in value:
        return complex(*value["$complex"])
    if "$bytes" in value:
        return bytes.fromhex(value["$bytes"])
    if "$int" in value:
        return int(value["$int"], 16)
    if "$repr" in value:
        return Opaque(value.get("$type", ""), value["$repr"])
    return {key: decode_value(item) for key, item in value.items()}


# The program that calls the function under test inside the sandbox. Its job (stdin) carries the code,
# the function name and the encoded arguments, never the expected values, so code under test has
# nothing to copy them from. One JSON line per test goes to the saved stdout; the code's own stdin
# and stdout are /dev/null.
_DRIVER = r'''
import json, os, signal, sys, time
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)
_job = json.loads(sys.stdin.read())
_out, _null = os.dup(1), os.open(os.devnull, os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)


def _emit(message):
    data = (json.dumps(message) + "\n").encode("utf-8", "surrogatepass")
    while data:
        data = data[os.write(_out, data):]


class _TimeLimit(BaseException):
    pass


def _ring(signum, frame):
    raise _TimeLimit()


def _timed(function, args, limit):
    signal.signal(signal.SIGALRM, _ring)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        started = time.perf_counter()
        value = function(*args)
        return value, time.perf_counter() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _describe(exc):
    return "time limit exceeded" if isinstance(exc, _TimeLimit) else f"{type(exc).__name__}: {exc}"[:500]


_scope = {"__name__": "solution", "__builtins__": __builtins__}
try:
    _timed(exec, (compile(_job["code"], "solution.py", "exec"), _scope), _job["load_limit"])
    if _job["method"] and isinstance(_scope.get("Solution"), type):
        _target = getattr(_scope["Solution"](), _job["function"])
    else:
        _target = _scope[_job["function"]]
except BaseException as exc:
    _emit({"load_error": _describe(exc) if not isinstance(exc, KeyError) else f"no function {_job['function']}"})
    sys.exit(0)
for _phase in _job["phases"]:
    for _index, (_args, _limit) in enumerate(zip(_phase["inputs"], _phase["limits"])):
        try:
            _value, _spent = _timed(_target, decode_value(_args), _limit)  # fresh objects per call
            _message = {"phase": _phase["name"], "index": _index, "value": encode_value(_value), "time": _spent}
        except BaseException as exc:
            _message = {"phase": _phase["name"], "index": _index, "error": _describe(exc)}
        _emit(_message)
        if "error" in _message:
            break
'''
DRIVER = "\n".join(inspect.getsource(part) for part in (Opaque, encode_value, decode_value)) + _DRIVER


# -- output comparison -----------------------------------------------------------------------------
def stdout_matches(got: str, expected: str) -> bool:
    """Line by line after stripping; a differing line may still match as whitespace-split Decimals."""
    got_lines = [line.strip() for line in got.strip().split("\n")]
    expected_lines = [line.strip() for line in expected.strip().split("\n")]
    if len(got_lines) != len(expected_lines):
        return False
    for mine, theirs in zip(got_lines, expected_lines):
        if mine != theirs:
            try:
                if [Decimal(x) for x in mine.split()] != [Decimal(x) for x in theirs.split()]:
                    return False
            except InvalidOperation:
                return False
    return True


def close(got: Any, expected: Any, atol: float, rtol: float = 0.0) -> bool:
    """Equal, with numbers (not bools) within atol + rtol*|expected|, through lists, tuples and dicts."""
    if isinstance(got, bool) or isinstance(expected, bool):
        return got == expected
    if isinstance(got, (int, float)) and isinstance(expected, (int, float)):
        if got == expected:
            return True
        return abs(got - expected) <= atol + rtol * abs(expected)  # nan never matches, as in numpy
    if isinstance(got, (list, tuple)) and isinstance(expected, (list, tuple)):
        return len(got) == len(expected) and all(close(a, b, atol, rtol) for a, b in zip(got, expected))
    if isinstance(got, dict) and isinstance(expected, dict):
        return got.keys() == expected.keys() and all(close(got[k], expected[k], atol, rtol) for k in got)
    return got == expected


def _is_floats(value: Any) -> bool:
    return isinstance(value, float) or (isinstance(value, (list, tuple)) and bool(value)
                                        and all(isinstance(item, float) for item in value))


def _poly(coefficients: list, x: float) -> float:
    return sum(c * x**i for i, c in enumerate(coefficients))


MBPP_SET_EQUAL = {"similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly", "larg_nnum",
                  "intersection_array", "find_dissimilar", "Diff"}
MBPP_NOT_NONE = {"check_str", "text_match_three", "text_starta_endb"}  # outputs compared as "is not None"


def evalplus_matches(dataset: str, entry_point: str, args: list, got: Any, expected: Any, atol: float) -> bool:
    """EvalPlus' rule for one output, special oracles included."""
    try:
        exact = got == expected
        if dataset == "mbpp":
            if entry_point == "are_equivalent":  # Mbpp/164: the reference output is unreliable
                return True
            if entry_point == "sum_div":
                exact = exact or got == 0
            elif entry_point == "surface_Area":
                base, height = args
                exact = exact or abs(got - round(base**2 + 2 * base * ((base / 2) ** 2 + height**2) ** 0.5)) <= atol
            elif entry_point == "digit_distance_nums":
                one, two = str(args[0]), str(args[1])
                width = max(len(one), len(two))
                exact = exact or got == sum(abs(int(a) - int(b)) for a, b in zip(one.zfill(width), two.zfill(width)))
            elif entry_point in MBPP_SET_EQUAL:
                exact = set(got) == set(expected)
            elif entry_point in MBPP_NOT_NONE:
                exact = got == expected if isinstance(got, bool) else expected == (got is not None)
        elif entry_point == "find_zero":  # HumanEval/32: any root will do
            return isinstance(got, (int, float)) and abs(_poly(args[0], got)) <= atol
        if exact:
            return True
        atol = atol or (1e-6 if _is_floats(expected) else 0)
        if not atol or type(got) is not type(expected):
            return False
        return close(got, expected, atol, rtol=1e-7)
    except Exception:  # an output that cannot even be compared is wrong
        return False


def mbpp_inputs(task_id: str, inputs: list) -> list:
    """MBPP+ stores tuples, sets and complex numbers as JSON lists/strings; rebuild them per task as
    EvalPlus does before calling anything (the reference outputs are computed on these)."""
    number = int(str(task_id).rsplit("/", 1)[-1]) if str(task_id).rsplit("/", 1)[-1].isdigit() else -1
    tup = tuple

    def deep(value):
        return tuple(deep(item) for item in value) if isinstance(value, list) else value

    rules = {
        "args": lambda inp: [tup(a) for a in inp],
        "nested": lambda inp: [[tup(x) for x in a] for a in inp],
        "first_nested": lambda inp: [[tup(x) for x in inp[0]], inp[1]],
        "second": lambda inp: [inp[0], tup(inp[1])],
        "first": lambda inp: [tup(inp[0]), *inp[1:]],
        "nested_args": lambda inp: [tup(tup(x) for x in a) for a in inp],
        "deep": deep,
        115: lambda inp: [[set(item) if isinstance(item, list) and item else {} for item in inp[0]]],
        124: lambda inp: (float(inp[0]), complex(inp[1])),
        252: lambda inp: [complex(inp[0])],
        278: lambda inp: [tup(tup(x) if isinstance(x, list) else x for x in inp[0])],
        722: lambda inp: [{key: tup(value) for key, value in inp[0].items()}, *inp[1:]],
    }
    groups = {"args": (2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726,
                       740, 744, 809),
              "nested": (63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780),
              "first_nested": (75, 413, 444, 753), "second": (106, 750),
              "first": (250, 405, 446, 617, 720, 763, 808, 307), "nested_args": (259, 401, 445),
              "deep": (580, 615, 791)}
    rule = rules.get(number) or next((rules[name] for name, members in groups.items() if number in members), None)
    return [rule(inp) for inp in inputs] if rule else inputs


# -- the verifier ----------------------------------------------------------------------------------
def _brief(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit // 2] + " ... " + text[-limit // 2:]


def _with_prompt(code: str, row: dict) -> str:
    """HumanEval-style completion: the prompt goes first unless the code defines the entry point itself,
    in which case the rest of the prompt does (imports for type hints, helper functions it may call)."""
    prompt, entry = row.get("prompt"), row.get("entry_point")
    if not isinstance(prompt, str) or not entry:
        return code
    try:
        tree = ast.parse(code)
        defined = any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry
                      for node in tree.body)
    except (SyntaxError, ValueError):
        defined = False
    if not defined:
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
    for passed, message in enumerate(messages):
        index = message["index"]
        got = decode_value(message["value"]) if "value" in message else None
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
        "allow_unsandboxed": False,  # run with resource limits only where namespaces are unavailable
    }

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
                               disk_mb=self.number_option("disk_mb", 1, True))
        self.isolated = self.sandbox.check()  # refuses here, before any model call, when isolation is missing
        self._truth: dict[str, dict] = {}
        self._truth_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def verify(self, row: dict, response: str) -> Verdict:
        code, problem = extract_code(response)
        if code is None:
            return Verdict(0.0, None, {"error": problem})
        if isinstance(row.get("unit_tests"), dict):
            details = self._unit_tests(row["unit_tests"], PREAMBLE + code)
        elif row.get("base_input") is not None and row.get("canonical_solution") is not None:
            details = self._evalplus(row, _with_prompt(code, row))
        elif isinstance(row.get("test"), str) and row.get("entry_point"):
            program = f"{_with_prompt(code, row)}\n\n{row['test']}\n\ncheck({row['entry_point']})\n"
            outcome = self.sandbox.run(program, [Run("", self.timeout, self.output_limit)],
                                       total_timeout=self.total_timeout)
            result = outcome.results[0] if outcome.results else None
            details = {"tests": 1, "passed": int(result is not None and result.status == "ok")}
            if not details["passed"]:
                details["failure"] = {"reason": f"program {result.status}" if result else outcome.error,
                                      "stderr": _brief(result.stderr.strip(), 1000) if result else ""}
        else:
            raise GymError("task row has no tests for the code verifier (needs unit_tests, base_input + "
                           "canonical_solution, or test + entry_point); re-run task=prepare for this benchmark")
        details["isolated"] = self.isolated
        passed = details.pop("_passed", details["passed"] == details["tests"])
        return Verdict(1.0 if passed else 0.0, code, details)

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
        """Run the call driver: ({phase: messages}, what went wrong beyond single tests or None)."""
        job = json.dumps({"code": code, "function": function, "method": method, "load_limit": load_limit,
                          "phases": [{**phase, "inputs": [encode_value(a) for a in phase["inputs"]]}
                                     for phase in phases]})
        outcome = self.sandbox.run(DRIVER, [Run(job, total, CALL_OUTPUT_LIMIT)], total_timeout=total + 10)
        result = outcome.results[0] if outcome.results else None
        messages: dict[str, list] = {}
        trouble = None
        for line in (result.stdout if result else "").splitlines():
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                break  # a line cut short by a kill
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
                phases = [{"name": phase, "inputs": inputs[phase], "limits": [60.0] * len(inputs[phase])}
                          for phase in ("base", "plus")]
                messages, trouble = self._call(code, entry, False, phases, 60.0, 900.0)
                truth = {}
                for phase in ("base", "plus"):
                    got = messages.get(phase, [])
                    if len(got) != len(inputs[phase]) or any("error" in m for m in got):
                        problem = next((m["error"] for m in got if "error" in m), None) or trouble
                        raise RuntimeError(f"reference solution of {task_id or entry} failed on its {phase} inputs: "
                                           f"{problem or 'no output'}")
                    values = [decode_value(m["value"]) for m in got]
                    if dataset == "mbpp" and entry in MBPP_NOT_NONE:
                        values = [value is not None for value in values]
                    truth[phase] = {"values": values, "times": [m["time"] for m in got]}
                self._truth[key] = truth
        return self._truth[key]


def reference_program(row: dict, correct: bool = True) -> str | None:
    """What gym's reference server answers a code task with: a program that passes its tests (the
    canonical solution, or a table of the test answers) or one that returns wrong values; None when
    the row is not a code task."""
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
    return _with_prompt(solution, row) if correct else f"def {entry}(*args, **kwargs):\n    return None\n"
