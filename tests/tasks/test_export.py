"""task=export format=nemo_gym: NeMo Gym's layout, checked field by field, and read back by gym's NeMo Gym
reader to the same metrics."""

from __future__ import annotations

import pytest

from gym.rollouts import nemo_gym
from gym.core.config import compose
from gym.core.errors import GymError
from gym.metrics.output import metrics_for
from gym.tasks import export
from tests.conftest import assert_clean_failure, run_gym
from tests.rollout_runs import VERIFIER_CRASH, failing_verifier, prepare_mmlu, read_rows, run_collect


@pytest.fixture
def mixed_run(data_dir, mirror_url, tmp_path, monkeypatch):
    """An mmlu run with every status: ok (right and wrong), model_error, infra_error, verifier_error."""
    prepare_mmlu(mirror_url)
    run = tmp_path / "run"
    with failing_verifier(monkeypatch, {"symmetric group": VERIFIER_CRASH}):
        run_collect(run, "num_repeats=4", "model.mock.accuracy=0.6", "model.mock.max_context_tokens=52",
                    "model.mock.faults={error_500: 0.15}", "model.max_retries=0", "model.mock.reasoning=think_tags")
    return run


def test_export_round_trip_and_layout(mixed_run, data_dir, tmp_path):
    statuses = {r["status"] for r in read_rows(mixed_run / "rollouts.jsonl")}
    assert statuses == {"ok", "model_error", "infra_error", "verifier_error"}
    out = tmp_path / "nemo"
    result = run_gym("task=export", f"rollouts={mixed_run}", "format=nemo_gym", f"output_dir={out}",
                     f"hydra.run.dir={tmp_path / 'exp'}", env={"GYM_DATA_DIR": str(data_dir)})
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["mmlu_rollouts.jsonl", "mmlu_rollouts_failures.jsonl",
                                                     "mmlu_rollouts_materialized_inputs.jsonl"]

    original, _ = metrics_for(str(mixed_run / "rollouts.jsonl"))
    both, _ = metrics_for([str(out / "mmlu_rollouts.jsonl"), str(out / "mmlu_rollouts_failures.jsonl")])
    assert both["benchmarks"] == original["benchmarks"]  # identical metrics, error counts included
    scored_only, _ = metrics_for(str(out))  # a directory: the side files are skipped
    entry, source = scored_only["benchmarks"]["mmlu"], original["benchmarks"]["mmlu"]
    for name in ("pass@1", "pass@k", "majority@k", "pass@1[avg-of-k]", "no_answer", "tokens", "latency_s", "tasks"):
        assert entry[name] == source[name], name
    assert entry["counts"]["infra_error"] == entry["counts"]["verifier_error"] == 0

    # What NeMo Gym's profile reads: unique (task, rollout) keys, every result key among the inputs,
    # results sorted, a response object with usage, the agent name.
    rows = read_rows(out / "mmlu_rollouts.jsonl")
    inputs = read_rows(out / "mmlu_rollouts_materialized_inputs.jsonl")
    failures = read_rows(out / "mmlu_rollouts_failures.jsonl")
    keys = [(r["_ng_task_index"], r["_ng_rollout_index"]) for r in rows]
    input_keys = {(r["_ng_task_index"], r["_ng_rollout_index"]) for r in inputs}
    assert keys == sorted(keys) and len(set(keys)) == len(keys) and set(keys) <= input_keys
    assert len(inputs) == len(input_keys) == 20 and len(rows) + len(failures) == 20
    assert {r["_ng_failure_class"] for r in failures} == {"verify_failed", "infra_error"}
    for row in rows:
        response = row["response"]
        assert row["agent_ref"] == {"type": "responses_api_agents", "name": "mmlu"}
        assert response["object"] == "response" and isinstance(response["usage"], dict)
        flat = {**row, **response["usage"]}  # how NeMo Gym's profile flattens a result
        numeric = {k for k, v in flat.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        assert {"reward", "_ng_task_index", "_ng_rollout_index"} <= numeric
        if response["status"] == "failed":
            assert row["reward"] == 0.0 and response["error"]["code"] == "model_error" and response["output"] == []
        else:
            assert {"input_tokens", "output_tokens", "total_tokens"} <= numeric
            kinds = [item["type"] for item in response["output"]]
            assert kinds == ["reasoning", "message"]  # think_tags: the reasoning comes back as its own item
            assert response["output"][1]["content"][0]["type"] == "output_text"
    first = inputs[0]
    assert first["question"] and first["options"] and first["expected_answer"]  # the prepared row
    assert first["responses_create_params"]["input"][-1]["role"] == "user"

    # Imported back as gym rows: lossless for what gym keeps.
    gym_rows = {r["key"]: r for r in read_rows(mixed_run / "rollouts.jsonl")}
    for i, row in enumerate(rows):
        back = nemo_gym.to_gym(row, out / "mmlu_rollouts.jsonl", f"x:{i}")
        src = gym_rows[back["key"]]
        for name in ("status", "reward", "extracted_answer", "expected_answer", "prompt", "response", "reasoning",
                     "finish_reason", "verifier", "error", "latency_s", "model", "task_index", "rollout_index"):
            assert back[name] == src[name], name


def test_bad_format_and_missing_rollouts(tmp_path):
    result = run_gym("task=export", f"rollouts={tmp_path}", "format=nemo", f"hydra.run.dir={tmp_path / 'x'}")
    assert_clean_failure(result, "format='nemo' is not one gym exports", "nemo_gym")
    with pytest.raises(GymError, match="no rollouts.jsonl"):
        export.run(compose(["task=export", f"rollouts={tmp_path}", f"+run_dir={tmp_path / 'y'}"]))
