"""shard=i/n: each job runs a deterministic part of the tasks; aggregate and profile of the sweep dir
merge the shards into exactly the metrics and profile of the unsharded run, and name missing or
unfinished shards instead of averaging the rest."""

from __future__ import annotations

import json

import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.tasks import aggregate, collect, profile
from tests.conftest import assert_clean_failure, run_gym
from tests.model_time_data import read_rows, write_tasks

# a sampling seed pins each rollout's answer (the reference server draws by seed), so two runs agree row by row
RUN = ["benchmark=gsm8k", "model=mock", "progress=false", "num_repeats=4", "model.mock.task_accuracy=beta:0.7:0.7",
       "model.sampling.seed=7"]


def collect_into(run_dir, *extra):
    return collect.run(compose(["task=collect", *RUN, f"+run_dir={run_dir}", *extra]))


def merged(rollouts, out):
    aggregate.run(compose(["task=aggregate", f"rollouts={rollouts}", f"+run_dir={out}"]))
    profile.run(compose(["task=profile", f"rollouts={rollouts}", f"+run_dir={out}", "plots=false", "report=false"]))
    return read_merged(out)


def read_merged(out):
    """The metrics (without timings) and the reward profile that aggregate and profile wrote into `out`."""
    metrics = json.loads((out / "metrics.json").read_text())["benchmarks"]
    for entry in metrics.values():
        entry.pop("latency_s")  # timing, not a score
    records = sorted((json.loads(line) for line in (out / "reward_profile.jsonl").read_text().splitlines()),
                     key=lambda r: r["task_index"])
    return metrics, records


def test_three_shards_merge_into_exactly_the_unsharded_run(data_dir, tmp_path):
    write_tasks(data_dir, 31)
    whole = collect_into(tmp_path / "whole")
    parts = [collect_into(tmp_path / "sweep" / f"{i}_gsm8k_gym-mock", f"shard={i}/3") for i in range(3)]
    assert [p["tasks"] for p in parts] == [11, 10, 10] and sum(p["ran"] for p in parts) == whole["ran"] == 124
    rows = read_rows(tmp_path / "sweep" / "1_gsm8k_gym-mock" / "rollouts.jsonl")
    assert {r["task_index"] for r in rows} == set(range(1, 31, 3))  # task_index % 3 == 1, indices as in the file
    keys = {r["key"] for i in range(3) for r in read_rows(tmp_path / "sweep" / f"{i}_gsm8k_gym-mock" / "rollouts.jsonl")}
    assert keys == {r["key"] for r in read_rows(tmp_path / "whole" / "rollouts.jsonl")}
    assert merged(tmp_path / "sweep", tmp_path / "merged") == merged(tmp_path / "whole", tmp_path / "unsharded")


def test_missing_and_unfinished_shards_are_named(data_dir, tmp_path):
    write_tasks(data_dir, 8)
    sweep = tmp_path / "sweep"
    for i in (0, 2, 3):
        collect_into(sweep / f"{i}_gsm8k", f"shard={i}/4")
    run_json = sweep / "3_gsm8k" / "run.json"
    run_json.write_text(json.dumps({**json.loads(run_json.read_text()), "status": "interrupted"}))
    with pytest.raises(GymError, match=r"shard\(s\) 1/4 missing.*shard\(s\) 3/4 \(interrupted"):
        aggregate.run(compose(["task=aggregate", f"rollouts={sweep}", f"+run_dir={tmp_path / 'agg'}"]))
    with pytest.raises(GymError, match=r"1/4 missing"):
        profile.run(compose(["task=profile", f"rollouts={sweep}", f"+run_dir={tmp_path / 'prof'}"]))
    summary = aggregate.run(compose(["task=aggregate", f"rollouts={sweep}", "allow_partial=true",
                                     f"+run_dir={tmp_path / 'agg'}"]))
    assert summary["pass@1"]


def test_a_sharded_sweep_from_the_command_line(data_dir, tmp_path):
    write_tasks(data_dir, 6)
    env = {"GYM_DATA_DIR": str(data_dir)}
    sweep = tmp_path / "sweep"
    result = run_gym("-m", "task=collect", "benchmark=gsm8k", "model=mock", "progress=false", "num_repeats=2",
                     "shard=0/2,1/2", f"hydra.sweep.dir={sweep}", env=env)
    assert result.returncode == 0, result.stderr
    infos = sorted(json.loads(p.read_text())["shard"] for p in sweep.glob("*/run.json"))
    assert infos == ["0/2", "1/2"]
    result = run_gym("task=aggregate", f"rollouts={sweep}", f"hydra.run.dir={tmp_path / 'agg'}", env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["gsm8k"]["rollouts"] == 12
    bad = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "shard=2/2", f"hydra.run.dir={tmp_path / 'bad'}",
                  env=env)
    assert_clean_failure(bad, "shard=2/2: need 0 <= i < n")
