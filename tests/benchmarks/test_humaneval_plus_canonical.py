"""Every canonical solution of the real HumanEval+ release scores 1 and every `pass` body scores 0, through
the code verifier as collect calls it (its time limits loosened: outputs count here, not speed); the same
for the mbpp and livecodebench fixtures.

HumanEval+ is tests/fixtures/real/humanevalplus/HumanEvalPlus.jsonl.gz, an exact copy of the EvalPlus release
(Apache-2.0, LICENSE beside it). Its tasks 15 and 130 return outputs of several MB for each of ~100 plus
inputs (far more than any output cap): they are compared by digest.

The default run checks a fixed sample of the 164 tasks (every eighth, and one with outsized outputs); the
whole release runs with the `heavy` marker (`python -m pytest -m heavy`), as do the other
whole-benchmark checks.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gym.core.paths import BENCHMARKS_DIR
from gym.verifiers import make_verifier
from gym.verifiers.code.reference import reference_program

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # ~1 CPU-minute each; more wall time on a busy machine


OUTSIZED = {"HumanEval/130"}  # MBs of output per input (15 too: the whole release has it)
WHOLE_RELEASE = [pytest.param(False, id="sample"), pytest.param(True, id="all", marks=pytest.mark.heavy)]


def human_eval_rows(whole: bool = True) -> list[dict]:
    """The release's 164 rows as prepare converts them; without `whole`, the sample the default run checks."""
    spec = importlib.util.spec_from_file_location("human_eval_prepare", BENCHMARKS_DIR / "human_eval" / "prepare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with gzip.open(FIXTURES / "real" / "humanevalplus" / "HumanEvalPlus.jsonl.gz", "rt", encoding="utf-8") as handle:
        items = [json.loads(line) for line in handle]
    rows = [module.convert(item, index)[0] for index, item in enumerate(items)]
    assert len(rows) == 164 and all(rows)
    return rows if whole else [row for index, row in enumerate(rows)
                               if index % 8 == 0 or row["metadata"]["task_id"] in OUTSIZED]


def fenced(code: str) -> str:
    return f"Here it is.\n\n```python\n{code}\n```\n"


def canonical(row: dict) -> str:
    return row["prompt"] + row["canonical_solution"]


def do_nothing(row: dict) -> str:
    return row["prompt"] + "    pass\n"


@pytest.fixture(scope="module")
def verifier():
    # EvalPlus' per-input limits (4x the reference time, at least 1 s) are a speed check that a busy test
    # machine can fail; here only the outputs count, so the limits are ten times looser
    with make_verifier("code", {"min_time_limit": 10.0, "time_limit_factor": 40.0}) as instance:
        yield instance


def verify_all(verifier, rows: list[dict], answer) -> dict[str, tuple[float, dict]]:
    def one(row: dict) -> tuple[str, tuple[float, dict]]:
        verdict = verifier.verify(row, fenced(answer(row)))
        return row["metadata"]["task_id"], (verdict.reward, verdict.details)

    with ThreadPoolExecutor(4) as pool:
        return dict(pool.map(one, rows))


@pytest.mark.parametrize("whole", WHOLE_RELEASE)
def test_every_human_eval_plus_canonical_solution_passes(verifier, whole):
    passed = verify_all(verifier, human_eval_rows(whole), canonical)
    assert {task: details.get("failure") for task, (reward, details) in passed.items() if reward != 1.0} == {}
    for task in {"HumanEval/15", "HumanEval/130"} & set(passed):  # outputs of MBs per input, over the output cap
        assert passed[task][1]["plus"]["tests"] > 100 and passed[task][1]["passing_plus_tests"]


@pytest.mark.parametrize("whole", WHOLE_RELEASE)
def test_every_human_eval_plus_pass_body_fails(verifier, whole):
    failed = verify_all(verifier, human_eval_rows(whole), do_nothing)
    assert {task for task, (reward, _) in failed.items() if reward != 0.0} == set()


@pytest.mark.parametrize("whole", WHOLE_RELEASE)
def test_human_eval_test_code_judges_the_canonical_solutions(verifier, whole):
    """The original HumanEval tests (`test` + `check(entry_point)`) run in the judge process."""
    rows = [{key: value for key, value in row.items() if key not in ("base_input", "plus_input")}
            for row in human_eval_rows(whole)]
    passed = verify_all(verifier, rows, canonical)
    assert {task: details.get("failure") for task, (reward, details) in passed.items() if reward != 1.0} == {}
    failed = verify_all(verifier, rows, do_nothing)
    assert {task for task, (reward, _) in failed.items() if reward != 0.0} == set()


def prepared(name: str, tmp_path: Path, mirror_url: str, **args) -> list[dict]:
    from gym.data.prepare_context import PrepareContext

    spec = importlib.util.spec_from_file_location(f"canonical_{name}", BENCHMARKS_DIR / name / "prepare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ctx = PrepareContext(name=name, output_path=tmp_path / name / f"{name}.jsonl", mirror=mirror_url, offline=False,
                         retries=0, progress=False, skip_bad_rows=False, prepare_args=args)
    out = module.prepare(ctx, **args)
    return [json.loads(line) for line in Path(out).read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("name, args", [("mbpp", {}), ("livecodebench", {"release": "v6", "start_date": "2023-01-01"})])
def test_fixture_benchmarks_reference_solutions_pass_and_empty_ones_fail(verifier, tmp_path, mirror_url, name, args):
    rows = prepared(name, tmp_path, mirror_url, **args)
    assert rows
    for row in rows:
        good = verifier.verify(row, fenced(reference_program(row, True)))
        assert good.reward == 1.0, (row["metadata"], good.details)
        if "entry_point" in row:
            empty = f"def {row['entry_point']}(*args):\n    pass\n"
        elif row["unit_tests"]["fn_name"]:
            empty = f"class Solution:\n    def {row['unit_tests']['fn_name']}(self, *args):\n        pass\n"
        else:
            empty = "pass\n"
        assert verifier.verify(row, fenced(empty)).reward == 0.0, row["metadata"]


def test_a_wrong_answer_to_a_big_number_task_is_scored_with_its_failure_shown(verifier):
    """HumanEval/139's plus inputs expect integers past Python's 4,300-digit str limit: a wrong answer still
    gets its verdict, the failure's expected value shown in short."""
    row = next(row for row in human_eval_rows() if row["metadata"]["task_id"] == "HumanEval/139")
    wrong_when_big = row["prompt"] + "    return 0 if n > 200 else __import__('math').prod(" \
        "__import__('math').factorial(k) for k in range(1, n + 1))\n"
    verdict = verifier.verify(row, fenced(wrong_when_big))
    assert verdict.reward == 0.0 and verdict.details["failure"]["phase"] == "plus"
    assert verdict.details["failure"]["expected"] == "<int too long to show>"
