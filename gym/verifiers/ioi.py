"""IOI subtasks: a C++ answer compiled with the system g++ and run against one subtask's tests in gym's sandbox.

A prepared row is one (problem, subtask) of the contest: `problem_id` (the graders' file name, e.g. "nile"),
`subtask`, `subtask_score` (its points), `score_precision`, `test_names`, `grader_files` ([path, content]
pairs: grader.cpp / stub.cpp / manager.cpp, the header, checker, graders/grader_config.json with the task
type and its time and memory limits). The tests live beside the prepared data, one file per problem
(`<tests_root>/<problem_id>.json`: {"tests": {name: [input, output]}}), written by prepare.

As the reference (NeMo Gym's competitive_coding_challenges server, IOI's run scripts):
* the program is the last ```cpp block of the answer (without one, the whole answer), with
  `#include <bits/stdc++.h>` in front and `using namespace std;` when it uses neither that nor `std::`;
* each test runs under the task's time limit (wall clock, times `time_scale`) and memory limit (address
  space), and scores what the grader's manager or checker prints (0 to 1; a timeout or crash is 0);
* a subtask scores round(min over its tests x points, score_precision) (huggingface/ioi scoring.py);
  tests stop at the first 0, which cannot change the minimum;
* the reward is 1 when the subtask's full points are reached, else 0 (the reference's binary reward);
  details["points"] holds the points, which task=aggregate sums into the contest total (best rollout
  per subtask, as the reference's total_score).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections import OrderedDict, defaultdict
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.sandbox.host import Run, Sandbox, SandboxUnavailable
from gym.verifiers.base import FamilyStats, Verdict, Verifier, VerifierError, details_of

DRIVER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ioi_driver.py")
_CPP_BLOCK = re.compile(r"```(?:cpp)\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)
STATUS_ORDER = {"CE": -1, "RE": 0, "WA": 1, "MLE": 2, "TLE": 3, "PA": 4, "AC": 5, "SKIPPED": 999}


def extract_program(text: str) -> str:
    """The reference's extraction: the last ```cpp block, else the whole text; then its includes."""
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    blocks = _CPP_BLOCK.findall(text)
    code = blocks[-1] if blocks else (text or "")
    if not code:
        return code
    header = "#include <bits/stdc++.h>\n"
    if "using namespace std;" not in code and "std::" not in code:
        header += "\nusing namespace std;\n\n"
    return header + code + ("" if code.endswith("\n") else "\n")


def verdict_status(score: float, feedback: str) -> str:
    """huggingface/ioi's status of one test from its score and feedback."""
    if score == 0.0:
        for words, status in (("Compilation error", "CE"), ("Memory limit exceeded", "MLE"),
                              ("Time limit exceeded", "TLE"), ("Output isn't correct", "WA")):
            if words in feedback:
                return status
        return "RE"
    return "AC" if score == 1.0 else "PA"


def subtask_points(scores: list[float], points: float, precision: int) -> float:
    """round(min(test scores) x points, precision); 0 without tests."""
    return round(min(scores) * points, precision) if scores else 0.0


def grader_config(row: dict) -> dict:
    for path, content in row.get("grader_files") or []:
        if path == "graders/grader_config.json":
            try:
                return json.loads(content)
            except json.JSONDecodeError:
                raise GymError(f"task row {row.get('problem_id')}: graders/grader_config.json is not JSON") from None
    raise GymError(f"task row {row.get('problem_id')}: no graders/grader_config.json among grader_files; "
                   "re-run task=prepare for this benchmark")


PCH_FLAGS = ["-DEVAL", "-std=gnu++17", "-O2", "-pipe"]  # the solution's compile flags (a PCH needs the same)


def precompiled_header(folder: Path) -> Path | None:
    """<folder>/bits/stdc++.h(.gch): the system's header and its precompiled form, built once with the flags the
    solution is compiled with; g++ -I<folder> then reads the .gch (or the copy of the header if it cannot).
    None (compile as usual) when the system g++ cannot build it."""
    target = folder / "bits" / "stdc++.h.gch"
    if target.is_file():
        return folder
    try:
        probe = subprocess.run(["g++", "-std=gnu++17", "-x", "c++", "-E", "-H", "-"], input="#include <bits/stdc++.h>\n",
                               capture_output=True, text=True, timeout=120)
        header = probe.stderr.splitlines()[0].split(" ", 1)[1].strip() if probe.returncode == 0 else ""
        if not header.endswith("stdc++.h"):
            return None
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as scratch:
            (Path(scratch) / "bits").mkdir()
            shutil.copy(header, Path(scratch) / "bits" / "stdc++.h")
            built = subprocess.run(["g++", *PCH_FLAGS, "-x", "c++-header", str(Path(scratch) / "bits" / "stdc++.h"),
                                    "-o", str(Path(scratch) / "bits" / "stdc++.h.gch")], capture_output=True, timeout=600)
            if built.returncode:
                return None
            if not target.is_file():
                (folder / "bits").mkdir(exist_ok=True)
                shutil.copy(Path(scratch) / "bits" / "stdc++.h", folder / "bits" / "stdc++.h")
                os.replace(Path(scratch) / "bits" / "stdc++.h.gch", target)  # last: its presence means ready
    except (OSError, subprocess.SubprocessError, IndexError):
        return None
    return folder


class IOIVerifier(Verifier):
    family = "ioi"
    OPTIONS = {
        "tests_root": None,  # folder of <problem_id>.json test files (written by prepare)
        "time_scale": 1.0,  # multiplies each task's time limit
        "compile_timeout": 60.0,  # seconds per g++ call
        "max_parallel": None,  # sandboxes at once; default: CPU count
        "memory_mb": 4096,  # address space of the judge inside the sandbox (tests get the task's own limit)
        "disk_mb": 1024,  # size of the sandbox's work dir (test inputs, binaries)
        "toolchain": ["/usr"],  # host folders holding g++ and its libraries, shown read-only in the sandbox
        "precompiled_header": True,  # compile bits/stdc++.h once per machine (same flags, same program; 4x faster)
        "allow_unsandboxed": False,
        "sandbox": "auto",  # auto | bwrap | namespaces
    }

    @classmethod
    def family_metrics(cls, rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
        return contest_total(rows)

    @classmethod
    def summary_line(cls, entry: dict[str, Any]) -> str:
        fm = entry["family_metrics"]
        return (f"contest total {fm['total_score']:g} of {fm['max_score']:g} points (best rollout per subtask), "
                f"{fm['mean_total_score']:g} expected from one attempt")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if not self.options["tests_root"]:
            raise GymError("verifier 'ioi': set option tests_root to the folder of <problem_id>.json test files")
        self.tests_root = Path(str(self.options["tests_root"])).expanduser()
        self.time_scale = self.number_option("time_scale", 0.01)
        self.compile_timeout = self.number_option("compile_timeout", 1)
        self.disk_mb = int(self.number_option("disk_mb", 16, integer=True))
        toolchain = self.options["toolchain"]
        if isinstance(toolchain, str) or not all(isinstance(p, str) for p in toolchain or []):
            raise GymError("verifier 'ioi': option toolchain must be a list of folders, e.g. [/usr]")
        if not shutil.which("g++", path=os.pathsep.join(f"{folder}/bin" for folder in toolchain)):
            raise GymError(f"verifier 'ioi': no g++ in the toolchain folders {list(toolchain)} (their bin/); install "
                           "the system C++ compiler or point benchmark.verifier.options.toolchain at it")
        self.pch_dir = precompiled_header(self.tests_root.parent / "pch") if self.options["precompiled_header"] else None
        toolchain = [*toolchain, *([str(self.pch_dir)] if self.pch_dir else [])]
        parallel = None if self.options["max_parallel"] is None else self.number_option("max_parallel", 1, True)
        self.sandbox = Sandbox(max_parallel=parallel, allow_unsandboxed=bool(self.options["allow_unsandboxed"]),
                               memory_mb=self.number_option("memory_mb", 256, True), processes=256, open_files=256,
                               disk_mb=self.disk_mb, toolchain=tuple(toolchain),
                               mechanism=self.choice_option("sandbox", ("auto", "bwrap", "namespaces")))
        self.mechanism = self.sandbox.check()
        with open(DRIVER_PATH, encoding="utf-8") as handle:
            self.driver = handle.read()
        self._tests: OrderedDict[str, dict] = OrderedDict()
        self._prebuilt: dict[str, dict] = {}  # grader files' digest -> their manager / checker, compiled once
        self._lock = threading.Lock()

    def run_info(self) -> dict:
        return {"sandbox": self.mechanism, "allow_unsandboxed": self.options["allow_unsandboxed"]}

    def problem_tests(self, problem: str) -> dict:
        """{test name: [input, output]} of a problem, read once (the two most recent problems stay loaded)."""
        with self._lock:
            if problem in self._tests:
                self._tests.move_to_end(problem)
                return self._tests[problem]
            path = self.tests_root / f"{problem}.json"
            if not problem or "/" in problem or not path.is_file():
                raise GymError(f"no test file for IOI problem {problem!r} at {path}; re-run task=prepare")
            with open(path, encoding="utf-8") as handle:
                self._tests[problem] = json.load(handle)["tests"]
            while len(self._tests) > 2:
                self._tests.popitem(last=False)
            return self._tests[problem]

    def verify(self, row: dict, response: str) -> Verdict:
        problem, points = str(row.get("problem_id") or ""), float(row.get("subtask_score") or 0)
        precision = int(row.get("score_precision") or 0)
        config = grader_config(row)
        tests = self.problem_tests(problem)
        names = list(row.get("test_names") or [])
        missing = [name for name in names if name not in tests]
        if missing or not names:
            raise GymError(f"IOI {problem} {row.get('subtask')}: tests {missing[:3] or '(none)'} are not in "
                           f"{self.tests_root / (problem + '.json')}; re-run task=prepare")
        program = extract_program(response)
        details: dict[str, Any] = {"family": "ioi", "problem_id": problem, "subtask": row.get("subtask"),
                                   "max_points": points, "tests": len(names), "sandbox": self.mechanism}
        results = self.run_tests(program, row, config, [(n, *tests[n]) for n in names]) if program else []
        scores = [r["score"] for r in results]
        if program and len(results) < len(names) and (not scores or min(scores) > 0):  # cut short, no 0: no verdict
            raise VerifierError("IOI judge stopped before the last test", {**details, "results": results[-3:]})
        details["points"] = subtask_points(scores, points, precision) if program else 0.0
        details["status"] = min((verdict_status(r["score"], r["feedback"]) for r in results),
                                key=STATUS_ORDER.__getitem__, default="CE" if not program else "SKIPPED")
        details["passed"] = sum(1 for s in scores if s >= 1.0)
        failure = next((r for r in results if r["score"] < 1.0), None)
        if failure:
            details["failure"] = {"test": failure["test"], "score": failure["score"],
                                  "feedback": str(failure["feedback"])[-1000:]}
        reward = 1.0 if points and details["points"] >= points else 0.0
        return Verdict(reward, program or None, details)

    def run_tests(self, program: str, row: dict, config: dict, tests: list[tuple]) -> list[dict]:
        limit = float(config.get("time_limit") or 1.0) * self.time_scale
        key = hashlib.sha256(json.dumps(row.get("grader_files") or []).encode()).hexdigest()
        with self._lock:
            prebuilt = self._prebuilt.get(key)
        job = json.dumps({"grader_files": row.get("grader_files") or [], "solution": program, "prebuilt": prebuilt,
                          "problem": str(row["problem_id"]), "code": str(config.get("code") or row["problem_id"]),
                          "config": config, "tests": tests, "time_scale": self.time_scale,
                          "compile_timeout": self.compile_timeout, "stop_on_zero": True,
                          "include": str(self.pch_dir) if self.pch_dir else None})
        budget = 3 * self.compile_timeout + len(tests) * (limit + 5)
        try:
            outcome = self.sandbox.run(self.driver, [Run(job, budget, self.disk_mb << 20)], total_timeout=budget + 30)
        except SandboxUnavailable as exc:
            raise VerifierError(f"sandbox refused: {exc}", {"sandbox": self.mechanism}) from None
        result = outcome.results[0] if outcome.results else None
        messages = []
        for line in (result.stdout if result else "").splitlines():
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                break
            if isinstance(message, dict) and isinstance(message.get("built"), dict) and not messages:
                with self._lock:
                    self._prebuilt.setdefault(key, message["built"])
            elif isinstance(message, dict) and isinstance(message.get("score"), (int, float)):
                messages.append(message)
        if result is None or (result.status != "ok" and (not messages or messages[-1]["score"] > 0)):
            reason = outcome.error or (f"judge {result.status}: {result.stderr.strip()[-500:]}" if result else "")
            raise VerifierError(f"IOI judge failed ({reason})", {"sandbox": self.mechanism})
        return messages


def contest_total(rows: list[dict]) -> dict[str, Any]:
    """The contest total as the reference reports it (its total_score): per subtask the best points over its
    rollouts, summed per problem and over problems; beside it the expected total of one attempt (mean points
    per subtask)."""
    best: dict[str, dict[str, float]] = defaultdict(dict)
    points: dict[tuple[str, str], list[float]] = defaultdict(list)
    caps: dict[tuple[str, str], float] = {}
    for row in rows:
        details = details_of(row)
        problem, subtask = str(details.get("problem_id") or ""), str(details.get("subtask") or "")
        if not problem:
            continue
        score = float(details.get("points") or 0.0) if row["status"] == "ok" else 0.0
        best[problem][subtask] = max(best[problem].get(subtask, 0.0), score)
        points[(problem, subtask)].append(score)
        caps[(problem, subtask)] = float(details.get("max_points") or 0.0)
    problems = {problem: {"score": round(sum(subs.values()), 4),
                          "max_score": round(sum(caps[(problem, st)] for st in subs), 4),
                          "subtasks": {st: {"score": value, "max_score": caps[(problem, st)]}
                                       for st, value in sorted(subs.items())}}
                for problem, subs in sorted(best.items())}
    return {"total_score": round(sum(p["score"] for p in problems.values()), 4),
            "max_score": round(sum(caps.values()), 4),
            "mean_total_score": round(sum(sum(v) / len(v) for v in points.values()), 4), "problems": problems}
