"""task=reverify: stored rollouts scored again with the current verifiers, no model calls; on a collect run
dir (through the CLI) and on a NeMo Gym rollouts file (through the task function)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.tasks import aggregate, prepare, reverify
from gym.verifiers.base import Verdict
from tests.conftest import assert_clean_failure, run_gym
from tests.rollout_runs import VERIFIER_CRASH, failing_verifier, prepare_mmlu, read_rows, run_collect


@pytest.fixture
def mmlu(data_dir, mirror_url):
    return prepare_mmlu(mirror_url)


def test_reverify_a_run_dir_through_the_cli(mmlu, data_dir, tmp_path, monkeypatch):
    run = tmp_path / "run"
    bugs = {"symmetric group": VERIFIER_CRASH, "Kaaba": Verdict(0.0, "C", {"bug": True})}
    with failing_verifier(monkeypatch, bugs):  # the verifier as it was at collection time
        run_collect(run, "num_repeats=3", "model.mock.accuracy=1.0")
    original = read_rows(run / "rollouts.jsonl")
    before = (run / "rollouts.jsonl").read_bytes()

    out = tmp_path / "rev"
    result = run_gym("task=reverify", f"rollouts={run}", "examples=2", f"hydra.run.dir={out}",
                     env={"GYM_DATA_DIR": str(data_dir)})
    assert result.returncode == 0, result.stderr
    assert "re-verified 15 rollout(s) in 1 file(s), no model calls" in result.stdout
    line = next(line for line in result.stdout.splitlines() if line.startswith("mmlu "))
    assert line.split()[:7] == ["mmlu", "15", "6", "3", "0", "3", "0"]
    assert re.search(r"mmlu task 1 rollout \d: verifier_error - \(answer None\) -> ok 1.00 \(answer 'B'\)", result.stdout)
    assert re.search(r"mmlu task 4 rollout \d: ok 0.00 \(answer 'C'\) -> ok 1.00 \(answer 'C'\)", result.stdout)

    assert (run / "rollouts.jsonl").read_bytes() == before  # the original is never touched
    assert sorted(p.name for p in run.glob("*.jsonl")) == ["rollouts.jsonl"]  # nor written into
    redone = read_rows(out / "rollouts.jsonl")
    assert [r["key"] for r in redone] == [r["key"] for r in original]
    assert all(r["status"] == "ok" and r["reward"] == 1.0 for r in redone)
    fixed = next(r for r in redone if r["task_index"] == 4)
    assert fixed["reverified"]["reward"] == 0.0 and fixed["reverified"]["status"] == "ok"
    assert fixed["response"] == next(r for r in original if r["key"] == fixed["key"])["response"]
    metrics = json.loads((out / "metrics.json").read_text())["benchmarks"]["mmlu"]
    assert metrics["pass@1"]["value"] == 100.0 and metrics["counts"]["verifier_error"] == 0
    summary = json.loads((out / "reverify.json").read_text())
    assert summary["changed"] == 6
    assert sorted(ex["task_index"] for ex in summary["benchmarks"]["mmlu"]["examples"]) == [1, 4]

    # reverify's own run dir is a run like any other: aggregate reads its re-verified rows, once each.
    aggregate.run(compose(["task=aggregate", f"rollouts={out}", f"+run_dir={tmp_path / 'agg'}"]))
    again = json.loads((tmp_path / "agg" / "metrics.json").read_text())
    assert again["benchmarks"]["mmlu"]["pass@1"]["value"] == 100.0 and again["inputs"]["duplicates_dropped"] == 0
    # Re-verifying the dir again starts from the original, as the first time.
    second = run_gym("task=reverify", f"rollouts={run}", f"hydra.run.dir={tmp_path / 'rev2'}",
                     env={"GYM_DATA_DIR": str(data_dir)})
    assert second.returncode == 0 and "re-verified 15 rollout(s) in 1 file(s)" in second.stdout


def nemo_row(task: dict, task_index: int, rollout_index: int, reply: str, reward: float, answer: str | None) -> dict:
    """A NeMo Gym rollouts-file line (layout of its simple agent + verify response)."""
    return {
        "responses_create_params": {"input": [{"role": "user", "content": task["question"]}], "tools": [],
                                    "tool_choice": "auto"},
        "response": {"id": f"resp_{task_index}_{rollout_index}", "object": "response", "model": "policy-7b",
                     "status": "completed",
                     "output": [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "hmm"}]},
                                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                                 "content": [{"type": "output_text", "text": reply, "annotations": []}]}],
                     "usage": {"input_tokens": 40, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 9,
                               "output_tokens_details": {"reasoning_tokens": 2}, "total_tokens": 49}},
        "reward": reward, "expected_answer": task["expected_answer"], "extracted_answer": answer,
        "_ng_task_index": task_index, "_ng_rollout_index": rollout_index,
        "agent_ref": {"type": "responses_api_agents", "name": "mmlu_mcqa_simple_agent"},
    }


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_reverify_a_nemo_gym_rollouts_file(mmlu, tmp_path, capsys):
    rows = []
    for t, task in enumerate(mmlu[:3]):
        gold = task["expected_answer"]
        rows.append(nemo_row(task, t, 0, f"Answer: \\boxed{{{gold}}}", 1.0, gold))
        rows.append(nemo_row(task, t, 1, f"I think **Answer: \\boxed{{{gold}}}**", 0.0, None))  # their grader missed it
        rows.append(nemo_row(task, t, 2, "Answer: \\boxed{D}", 0.0, "D"))
    source = write_jsonl(tmp_path / "mmlu.jsonl", rows)

    cfg = compose(["task=reverify", f"rollouts={source}", f"+run_dir={tmp_path / 'rev'}"])
    result = reverify.run(cfg)
    assert result["reverified"] == 9 and result["changed"] == 3
    out = capsys.readouterr().out
    assert "mmlu_mcqa_simple_agent task 0 rollout 1: ok 0.00 (answer None) -> ok 1.00" in out
    redone = read_rows(tmp_path / "rev" / "mmlu_rollouts.jsonl")  # gym rows now, in reverify's run dir
    assert [(r["task_index"], r["rollout_index"]) for r in redone] == [(t, k) for t in range(3) for k in range(3)]
    assert [r["reward"] for r in redone] == [1.0, 1.0, 0.0] * 3
    first = redone[0]
    assert first["model"] == "policy-7b" and first["reasoning"] == "hmm" and first["usage"]["prompt_tokens"] == 40
    assert first["key"] == f"{source.resolve()}:0:0" and first["benchmark"] == "mmlu_mcqa_simple_agent"
    metrics = json.loads((tmp_path / "rev" / "metrics.json").read_text())["benchmarks"]["mmlu_mcqa_simple_agent"]
    assert metrics["pass@1"]["value"] == pytest.approx(200 / 3, abs=1e-3)

    # Gold rows from a materialized-inputs file beside it win over the prepared data.
    inputs = [{**{k: v for k, v in mmlu[r["_ng_task_index"]].items()}, "expected_answer": "D",
               "_ng_task_index": r["_ng_task_index"], "_ng_rollout_index": r["_ng_rollout_index"]} for r in rows]
    write_jsonl(tmp_path / "mmlu_materialized_inputs.jsonl", inputs)
    reverify.run(cfg)
    assert [r["reward"] for r in read_rows(tmp_path / "rev" / "mmlu_rollouts.jsonl")] == [0.0, 0.0, 1.0] * 3


def test_changed_data_unknown_benchmark_and_missing_judge_fail_cleanly(mmlu, data_dir, tmp_path, mirror_url):
    task = dict(mmlu[0], expected_answer="A")  # the data now says otherwise
    path = write_jsonl(tmp_path / "mmlu.jsonl", [nemo_row(task, 0, 0, "Answer: \\boxed{A}", 1.0, "A")])
    env = {"GYM_DATA_DIR": str(data_dir)}
    result = run_gym("task=reverify", f"rollouts={path}", f"hydra.run.dir={tmp_path / 'r1'}", env=env)
    assert_clean_failure(result, "the prepared data of mmlu changed since collection (task 0")
    assert not (tmp_path / "r1").exists() and not (tmp_path / "mmlu.reverified.jsonl").exists()

    row = nemo_row(mmlu[0], 0, 0, "x", 0.0, None)
    row["agent_ref"]["name"] = "mystery_agent"
    write_jsonl(path, [row])
    result = run_gym("task=reverify", f"rollouts={path}", f"hydra.run.dir={tmp_path / 'r2'}", env=env)
    assert_clean_failure(result, "rollouts of 'mystery_agent': no benchmark of that name", "benchmark=<name>")
    assert run_gym("task=reverify", f"rollouts={path}", "benchmark=mmlu", f"hydra.run.dir={tmp_path / 'r3'}",
                   env=env).returncode == 0  # benchmark= says which one it is

    row["agent_ref"]["name"] = "simpleqa_judge_agent"
    write_jsonl(path, [row])
    with pytest.raises(GymError, match="graded by an LLM judge .* but judge=none"):
        reverify.run(compose(["task=reverify", f"rollouts={path}", f"+run_dir={tmp_path / 'r4'}"]))
    assert_clean_failure(run_gym("task=reverify", f"hydra.run.dir={tmp_path / 'r5'}"), "rollouts=")


def test_judge_graded_rollouts_with_a_judge(data_dir, tmp_path, mirror_url):
    base = ["benchmark=simpleqa", f"data.mirror={mirror_url}", "judge=mock"]
    prepare.run(compose(["task=prepare", *base]))
    run = tmp_path / "run"
    run_collect_cfg = compose(["task=collect", *base, "model=mock", "model.mock.accuracy=1.0", "limit=3",
                               "num_repeats=2", "progress=false", f"+run_dir={run}"])
    from gym.tasks import collect

    collect.run(run_collect_cfg)
    result = reverify.run(compose(["task=reverify", f"rollouts={run}", "judge=mock", f"+run_dir={tmp_path / 'rev'}"]))
    assert result["reverified"] == 6 and result["changed"] == 0
    redone = read_rows(tmp_path / "rev" / "rollouts.jsonl")
    assert all(r["status"] == "ok" and r["reward"] == 1.0 and r["verifier"].get("judged") for r in redone)
    assert os.path.getsize(tmp_path / "rev" / "rollouts.jsonl") > 0
