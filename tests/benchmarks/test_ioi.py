"""IOI'24 through the command line (prepare from open-r1's layout over loopback HTTP, e2e with the reference
server) and the judge against the official solutions of the contest's own packages: each category the
IOI 2024 task package files a solution under (model_solution, partially_correct, incorrect, time_limit,
protocol_violation) must get that verdict, with the subtask points IOI's scoring gives."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gym.verifiers import make_verifier
from gym.verifiers.ioi import extract_program, subtask_points, verdict_status
from tests.conftest import assert_clean_failure, run_gym

SOLUTIONS = Path(__file__).resolve().parents[1] / "fixtures" / "ioi"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, mirror_url):
    root = tmp_path_factory.mktemp("ioi")
    result = run_gym("task=e2e", "benchmark=ioi", "model=mock", f"data.mirror={mirror_url}", f"data.root={root}",
                     f"hydra.run.dir={root / 'run'}", timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return root, result


def test_prepare_and_e2e(prepared):
    root, result = prepared
    rows = [json.loads(line) for line in (root / "ioi" / "ioi.jsonl").read_text().splitlines()]
    assert [(r["problem_id"], r["subtask"], r["subtask_score"]) for r in rows] == [
        ("message", "01-len64", 10.0), ("sphinx", "01-N2", 3.0)]
    manifest = json.loads((root / "ioi" / "manifest.json").read_text())
    assert manifest["upstream_rows"]["left_out"] == 2  # the two 0-point sample subtasks, as the reference
    tests = json.loads((root / "ioi" / "tests" / "sphinx.json").read_text())["tests"]
    assert sorted(tests) == ["0-01", "1-01", "1-02", "1-03", "1-04"]
    rollouts = [json.loads(line) for line in next((root / "run").rglob("rollouts.jsonl")).read_text().splitlines()]
    assert {r["verifier"]["family"] for r in rollouts} == {"ioi"}
    assert {r["verifier"]["status"] for r in rollouts} == {"CE"}  # the mock answers in prose: nothing compiles
    assert "contest total 0 of 13 points" in result.stdout


def _row(root: Path, problem: str) -> dict:
    rows = [json.loads(line) for line in (root / "ioi" / "ioi.jsonl").read_text().splitlines()]
    return next(r for r in rows if r["problem_id"] == problem)


# (solution file, problem, reward, points, status): what the task package's folder says of each solution
CASES = [("sphinx-model_solution", "sphinx", 1.0, 3.0, "AC"), ("message-model_solution", "message", 1.0, 10.0, "AC"),
         ("sphinx-partially_correct", "sphinx", 0.0, 1.5, "PA"), ("message-time_limit", "message", 0.0, 0.0, "TLE"),
         ("sphinx-incorrect", "sphinx", 0.0, 0.0, "WA")]  # one of each problem first: their graders compile once


def test_official_solutions_get_their_verdicts(prepared):
    root, _ = prepared
    with make_verifier("ioi", {"tests_root": str(root / "ioi" / "tests")}) as verifier:
        def judge(case):
            name, problem = case[0], case[1]
            text = "My solution:\n```cpp\n" + (SOLUTIONS / f"{name}.cpp").read_text() + "```\n"
            verdict = verifier.verify(_row(root, problem), text)
            return verdict.reward, verdict.details["points"], verdict.details["status"]

        with ThreadPoolExecutor(2) as pool:
            got = list(pool.map(judge, CASES))
        empty = verifier.verify(_row(root, "sphinx"), "")
    assert got == [case[2:] for case in CASES]
    assert (empty.reward, empty.details["points"], empty.details["status"]) == (0.0, 0.0, "CE")


def test_scoring_rules():
    # huggingface/ioi scoring.py: min over the tests times the points, rounded to the task's precision
    assert subtask_points([1.0, 0.5, 1.0], 3, 2) == 1.5
    assert subtask_points([1.0, 0.3333333], 7, 2) == 2.33
    assert subtask_points([], 10, 2) == 0.0
    assert [verdict_status(0.0, "Time limit exceeded (3.0s)"), verdict_status(0.0, "Output isn't correct (diff)"),
            verdict_status(0.0, "Runtime error with exit code 1"), verdict_status(0.5, ""), verdict_status(1.0, "")] == [
        "TLE", "WA", "RE", "PA", "AC"]
    # the reference's extraction: last ```cpp block (else the whole text), bits/stdc++ and std in front
    program = extract_program("```cpp\nint a;\n```\ntext\n```cpp\nint f() { return 1; }\n```")
    assert program == "#include <bits/stdc++.h>\n\nusing namespace std;\n\nint f() { return 1; }\n"
    assert extract_program("```cpp\nstd::vector<int> v;\n```") == "#include <bits/stdc++.h>\nstd::vector<int> v;\n"


def test_missing_compiler_is_one_line(prepared, tmp_path):
    root, _ = prepared
    result = run_gym("task=collect", "benchmark=ioi", "model=mock", f"data.root={root}",
                     "benchmark.verifier.options.toolchain=[/nonexistent]", f"hydra.run.dir={tmp_path}")
    assert_clean_failure(result, "no g++ in the toolchain folders")


def _aplusb_row(subtask: str, tests_root: Path) -> dict:
    """A Batch task with a checker, from the IOI 2024 practice package (aplusb), in open-r1's row shape."""
    package = SOLUTIONS / "aplusb"
    problem = json.loads((package / "problem.json").read_text())
    config = {"task_type": problem["task_type"], "code": problem["code"], "time_limit": problem["time_limit"],
              "memory_limit": problem["memory_limit"], **json.loads(problem["task_type_params"])}
    files = [[str(path.relative_to(package)), path.read_text()] for folder in ("graders", "checker")
             for path in sorted((package / folder).iterdir())]
    names = json.loads((package / "subtasks" / f"{subtask}.json").read_text())["testcases"]
    tests = {name: [(package / "tests" / f"{name}.in").read_text(), (package / "tests" / f"{name}.out").read_text()]
             for name in sorted(p.stem for p in (package / "tests").glob("*.in"))}
    (tests_root / "aplusb.json").write_text(json.dumps({"tests": tests}))
    score = json.loads((package / "subtasks" / f"{subtask}.json").read_text())["score"]
    return {"problem_id": "aplusb", "subtask": subtask, "subtask_score": score, "score_precision": 2,
            "test_names": names, "grader_files": [*files, ["graders/grader_config.json", json.dumps(config)]]}


def test_batch_task_with_checker(prepared):
    # "b-zero" returns A: filed as incorrect, it still solves the subtask where B = 0, and only that one
    root, _ = prepared
    tests_root = root / "ioi" / "tests"
    with make_verifier("ioi", {"tests_root": str(tests_root)}) as verifier:
        def judge(case):
            subtask, name = case
            text = "```cpp\n" + (SOLUTIONS / "aplusb" / f"{name}.cpp").read_text() + "```"
            verdict = verifier.verify(_aplusb_row(subtask, tests_root), text)
            return verdict.details["points"], verdict.details["status"]

        got = [judge(case) for case in [("02-bZero", "model_solution"), ("02-bZero", "incorrect-solution-b-zero"),
                                        ("01-smallAB", "incorrect-solution-b-zero")]]
    assert got == [(30, "AC"), (30, "AC"), (0, "WA")]
