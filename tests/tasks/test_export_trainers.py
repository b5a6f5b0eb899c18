"""task=export format=verl|trl: pick tasks by reward (select.*), then train on the same reward: the files
are read as verl and TRL read them and scored by gym.serve.trainers as those trainers call it."""

from __future__ import annotations

import json
from collections import defaultdict

import pyarrow.parquet as pq

from tests.conftest import assert_clean_failure, run_gym
from tests.serve_helpers import prepare, rows_of


def test_profile_selection_to_verl_and_trl_datasets(tmp_path, monkeypatch):
    data = tmp_path / "data"
    prepare(data, "gsm8k")
    env = {"GYM_DATA_DIR": str(data)}
    run = tmp_path / "collect"
    collected = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "num_repeats=4", "model.mock.accuracy=0.5",
                        "progress=false", f"hydra.run.dir={run}", env=env)
    assert collected.returncode == 0, collected.stderr
    rewards = defaultdict(list)
    for row in rows_of(run / "rollouts.jsonl"):
        rewards[row["task_index"]].append(row["reward"])
    wanted = sorted(t for t, got in rewards.items() if sum(got) / len(got) <= 0.5)
    assert 0 < len(wanted) < len(rewards)  # the selection narrows

    prepared = rows_of(data / "gsm8k" / "gsm8k.jsonl")
    out = tmp_path / "verl"
    result = run_gym("task=export", f"rollouts={run}", "format=verl", "select.max_pass_rate=0.5", f"output_dir={out}",
                     env=env)
    assert result.returncode == 0, result.stderr
    table = pq.read_table(out / "gsm8k_verl.parquet").to_pylist()
    assert [r["extra_info"]["task_index"] for r in table] == wanted
    first = table[0]
    assert set(first) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    assert first["data_source"] == "gsm8k" and first["prompt"][-1]["role"] == "user"
    assert prepared[wanted[0]]["question"] in first["prompt"][-1]["content"]
    assert first["reward_model"] == {"style": "rule", "ground_truth": str(prepared[wanted[0]]["expected_answer"])}

    monkeypatch.setenv("GYM_DATA_DIR", str(data))
    from gym.serve.trainers import compute_score, reward_function

    for row in table:  # verl's call, field for field from its parquet
        gold = row["reward_model"]["ground_truth"]
        assert compute_score(data_source=row["data_source"], solution_str=f"\\boxed{{{gold}}}", ground_truth=gold,
                             extra_info=row["extra_info"]) == 1.0

    trl_dir = tmp_path / "trl"
    result = run_gym("task=export", f"rollouts={run}", "format=trl", "select.max_pass_rate=0.5",
                     f"output_dir={trl_dir}", env=env)
    assert result.returncode == 0, result.stderr
    dataset = [json.loads(line) for line in (trl_dir / "gsm8k_trl.jsonl").read_text().splitlines()]
    assert [r["task_index"] for r in dataset] == wanted
    columns = {name: [r[name] for r in dataset] for name in dataset[0]}  # as TRL hands columns to reward_funcs
    completions = [[{"role": "assistant", "content": f"#### {r['expected_answer']}"}] for r in dataset]
    reward = reward_function("gsm8k")
    assert reward(completions=completions, **columns) == [1.0] * len(dataset)
    assert columns["prompt"][0] == table[0]["prompt"]


def test_export_of_an_episode_benchmark_says_where_it_trains(tmp_path):
    data = tmp_path / "data"
    prepare(data, "tau2_mock")
    run = tmp_path / "collect"
    env = {"GYM_DATA_DIR": str(data)}
    collected = run_gym("task=collect", "benchmark=tau2_mock", "model=mock", "user=mock", "limit=2",
                        "progress=false", f"hydra.run.dir={run}", env=env)
    assert collected.returncode == 0, collected.stderr
    assert_clean_failure(run_gym("task=export", f"rollouts={run}", "format=verl", env=env), "task=serve")
    assert_clean_failure(run_gym("task=export", f"rollouts={run}", "format=verl", "select.min_pas_rate=1",
                                 env=env), "select")
