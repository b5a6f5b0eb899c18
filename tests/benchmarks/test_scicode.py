"""SciCode through the command line (prepare from the upstream parquet layout over loopback HTTP, one model
call per sub-step, e2e with the reference server), the gold code passing gym's grader step by step, a wrong
earlier step failing the later step that calls it, and a missing test_data.h5 refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXTRA = "pip install 'gym-eval-harness[scicode]'"
pytest.importorskip("h5py", reason=f"SciCode's grading reads test_data.h5 with h5py ({EXTRA})")
pytest.importorskip("scipy", reason=f"SciCode's test cases need scipy ({EXTRA})")

from gym.core.config import compose  # noqa: E402
from gym.verifiers import make_verifier  # noqa: E402
from tests.conftest import assert_clean_failure, run_gym  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, mirror_url):
    root = tmp_path_factory.mktemp("scicode")
    # accuracy 0: the reference server writes a wrong function for every step (tests below grade the gold)
    result = run_gym("task=e2e", "benchmark=scicode", "model=mock", "model.mock.accuracy=0.0",
                     f"data.mirror={mirror_url}", "limit=2", f"data.root={root}", f"hydra.run.dir={root / 'run'}",
                     timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [json.loads(line) for line in (root / "scicode" / "scicode.jsonl").read_text().splitlines()]
    return root, rows, result


def _reply(code: str) -> dict:
    return {"role": "assistant", "content": f"Here it is.\n```python\nimport numpy as np\n{code}\n```\n"}


def _verify(root: Path, row: dict, codes: list[str]):
    options = dict(compose(["benchmark=scicode", f"data.root={root}",
                            f"benchmark.dataset.path={root / 'scicode' / 'scicode.jsonl'}"]).benchmark.verifier.options)
    trajectory = [m for code in codes for m in ({"role": "user", "content": "step"}, _reply(code))]
    with make_verifier("episode", options) as verifier:
        return verifier.verify(row, {"trajectory": trajectory, "termination": "user_stop"})


def test_prepare_and_e2e(prepared):
    root, rows, result = prepared
    assert [r["problem_id"] for r in rows] == ["1", "2", "76"]
    assert [len(r["sub_steps"]) for r in rows] == [2, 2, 4] and rows[0]["prefilled"] == {}
    assert rows[2]["prefilled"]["2"].startswith("def generate_dna(N: int, PWM: dict) -> tuple:")  # upstream's 76.3
    assert (root / "scicode" / "test_data.h5").is_file()  # the mirror held it under the Drive folder's address
    rollouts = [json.loads(line) for line in next((root / "run").rglob("rollouts.jsonl")).read_text().splitlines()]
    assert len(rollouts) == 2 and all(r["status"] == "ok" and r["reward"] == 0.0 for r in rollouts)
    for rollout in rollouts:  # one model call per sub-step; the second prompt holds the model's own first code
        assert rollout["episode"]["agent_turns"] == 2
        assert rollout["verifier"]["step_results"] == [False, False]
    assert "model requests 4" in result.stdout + result.stderr
    metrics = json.loads(next((root / "run").rglob("metrics.json")).read_text())
    entry = next(iter(metrics["benchmarks"].values()))
    assert entry["family_metrics"]["scicode"] == {"subtask_accuracy": 0.0, "steps_passed": 0, "steps_total": 4,
                                                  "problem_accuracy": 0.0}


def test_the_reference_server_answers_with_the_gold_code(prepared, tmp_path):
    root, rows, _ = prepared
    result = run_gym("task=e2e", "benchmark=scicode", "model=mock", "data.mirror=tests/fixtures/upstream",
                     f"data.root={tmp_path / 'data'}", f"hydra.run.dir={tmp_path / 'run'}", timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    entry = json.loads((tmp_path / "run" / "metrics.json").read_text())["benchmarks"]["scicode"]
    assert 0 < entry["pass@1"]["value"] < 100  # right and wrong steps drawn at the mock's default accuracy
    gold = {step["function_header"]: step["ground_truth_code"] for row in rows for step in row["sub_steps"]}
    for rollout in map(json.loads, (tmp_path / "run" / "rollouts.jsonl").read_text().splitlines()):
        turns, right_so_far = rollout["trajectory"], True
        for asked, reply, passed in zip(turns[::2], turns[1::2], rollout["verifier"]["step_results"]):
            header = next(h for h in gold if h in asked["content"].split("NEXT STEP")[1])
            right = gold[header] in reply["content"]
            right_so_far = right_so_far and right
            # the gold code passes on gold code before it; a wrong function fails (the steps after it fail
            # too when they call it: 1.2 calls 1.1, 76.4 does not call 76.2)
            assert passed if right_so_far else (not passed or right)


def test_gold_passes_every_step(prepared):
    root, rows, _ = prepared
    for row in rows:  # 76.3 is upstream's prefilled step: never asked for, not scored
        gold = [step["ground_truth_code"] for step in row["sub_steps"] if step["test_cases"]]
        verdict = _verify(root, row, gold)
        assert verdict.reward == 1.0, (row["problem_id"], verdict.details)
        assert verdict.details["step_results"] == [True] * len(gold)


def test_prompts_hold_earlier_code(prepared):
    from gym.episodes.scicode.env import SciCodeEnvironment

    _, rows, _ = prepared
    env, row = SciCodeEnvironment(), rows[2]
    replies = [_reply(step["ground_truth_code"]) for step in row["sub_steps"] if step["test_cases"]]
    turns = [env.initial_messages(row)[0]["content"]]
    for number in range(1, 4):
        trajectory = [m for reply in replies[:number] for m in ({"role": "user", "content": "step"}, reply)]
        turns.append(env.next_user_turn(None, trajectory, row).text)
    assert "def counts(seq):" in turns[0] and "return np.array" not in turns[0]
    assert "return np.array([seq.count(n) for n in 'ACGT'])" in turns[1] and "import numpy" in turns[1]
    assert "def generate_dna" in turns[2] and "def reverse_complement(seq):" in turns[2]  # 76.3's gold, then 76.4
    assert turns[3] == "###STOP###"


def test_later_step_runs_on_the_models_earlier_code(prepared):
    root, rows, _ = prepared
    row = rows[0]  # dist() calls wrap(): a wrong wrap fails both steps, a wrong dist only the second
    wrong_wrap = "def wrap(r, L):\n    return r"
    verdict = _verify(root, row, [wrong_wrap, row["sub_steps"][1]["ground_truth_code"]])
    assert verdict.reward == 0.0 and verdict.details["step_results"] == [False, False]
    verdict = _verify(root, row, [row["sub_steps"][0]["ground_truth_code"], "def dist(r1, r2, L):\n    return 0.0"])
    assert verdict.details["step_results"] == [True, False] and verdict.details["num_steps_passed"] == 1
    verdict = _verify(root, row, [row["sub_steps"][0]["ground_truth_code"]])  # a step never answered fails
    assert verdict.details["step_results"] == [True, False]


def test_missing_test_data_is_one_line(prepared, tmp_path):
    root, _, _ = prepared
    result = run_gym("task=e2e", "benchmark=scicode", "model=mock", f"data.root={root}", "limit=1",
                     f"benchmark.verifier.options.test_data={tmp_path / 'test_data.h5'}",
                     f"hydra.run.dir={tmp_path / 'run'}")
    assert_clean_failure(result, "test_data", "not found")


def test_sub_step_accuracy_is_pooled_over_rollouts():
    from gym.episodes.metrics import scicode_figures

    details = [{"num_steps_passed": 1, "num_steps_total": 2}, {"num_steps_passed": 4, "num_steps_total": 4},
               {"num_steps_passed": 0, "num_steps_total": 0}]  # a problem with no scored step is not solved
    assert scicode_figures(details) == {"subtask_accuracy": 83.33, "steps_passed": 5, "steps_total": 6,
                                        "problem_accuracy": 33.33}


def test_reverify_grades_a_stored_trajectory(prepared, tmp_path):
    root, rows, _ = prepared
    stored = [json.loads(line) for line in next((root / "run").rglob("rollouts.jsonl")).read_text().splitlines()]
    (tmp_path / "run").mkdir()
    for rollout in stored:  # the model's replies become the gold code: grading reads the trajectory alone
        row = next(r for r in rows if r["sub_steps"][0]["function_header"] in rollout["trajectory"][0]["content"])
        gold = iter(step["ground_truth_code"] for step in row["sub_steps"] if step["test_cases"])
        for message in rollout["trajectory"]:
            if message["role"] == "assistant":
                message["content"] = _reply(next(gold))["content"]
    (tmp_path / "run" / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in stored))
    for name in ("run.json", "prepare.json"):
        source = next((root / "run").rglob(name), None)
        if source:
            (tmp_path / "run" / name).write_text(source.read_text())
    result = run_gym("task=reverify", f"rollouts={tmp_path / 'run'}", f"data.root={root}",
                     f"hydra.run.dir={tmp_path / 'rev'}")
    assert result.returncode == 0, result.stderr[-3000:]
    again = [json.loads(line) for line in (tmp_path / "rev" / "rollouts.jsonl").read_text().splitlines()]
    assert [r["reward"] for r in again] == [1.0, 1.0]
