"""task=noise: flip rate and noise floor of a run with repeats, as a user types it, and the floor checked
against simulated pairs of runs of the same model."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from gym.metrics.noise import flip_rate
from gym.metrics.repeats import components
from tests.conftest import run_gym
from tests.tasks.test_aggregate_task import row, write


def test_flip_rate_is_the_share_of_disagreeing_pairs():
    rewards = [[1, 1, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0]]
    task = np.repeat(np.arange(3), 4)
    by_pairs = np.mean([np.mean([a != b for a, b in combinations(r, 2)]) for r in rewards])
    assert flip_rate(task, np.array(rewards, float).ravel(), 3) == pytest.approx(by_pairs)


def test_noise_floor_matches_simulated_runs_of_one_model():
    rng = np.random.default_rng(11)
    tasks, k = 200, 4
    rates = rng.beta(0.6, 0.6, size=tasks)
    task = np.repeat(np.arange(tasks), k)

    def one_run():
        return (rng.random(tasks * k) < rates[task]).astype(float)

    within, _, _ = components(task, one_run(), tasks)
    floor = 1.959963984540054 * np.sqrt(2 * within / (k * tasks))
    diffs = [one_run().mean() - one_run().mean() for _ in range(3000)]
    assert np.quantile(np.abs(diffs), 0.95) == pytest.approx(floor, rel=0.12)


def test_task_noise_on_a_tau2_run_reports_its_floor(tmp_path, data_dir):
    run = tmp_path / "tau"
    made = run_gym("task=e2e", "benchmark=tau2_mock", "model=mock", "user=mock", "num_repeats=4", "progress=false",
                   f"hydra.run.dir={run}")
    assert made.returncode == 0, made.stderr
    single = write(tmp_path / "one" / "rollouts.jsonl", [row(t, 0, float(t % 2)) for t in range(6)])
    out = tmp_path / "noise"
    result = run_gym("task=noise", f"rollouts={run}", f"+noise.runs.single={single.parent}", f"hydra.run.dir={out}")
    assert result.returncode == 0, result.stderr
    noise = json.loads((out / "noise.json").read_text())["benchmarks"]
    entry = noise["tau2_mock"]
    assert entry["repeats_per_task"] == 4 and entry["noise_floor"] > 0
    assert entry["noise_floor_one_repeat"] == pytest.approx(2 * entry["noise_floor"], rel=1e-3)  # sqrt(4)
    assert f"±{entry['noise_floor']:.2f}" in result.stdout and "flip rate" in result.stdout
    assert noise["single: gsm8k"]["why_not"].startswith("needs two or more scored rollouts")


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _floor(rows):
    tasks = sorted({r["task_index"] for r in rows})
    task = np.array([tasks.index(r["task_index"]) for r in rows])
    within, _, _ = components(task, np.array([r["reward"] for r in rows], float), len(tasks))
    return within, round(100 * 1.959963984540054 * np.sqrt(2 * within / len(rows)), 4)


def test_task_noise_plays_the_held_side_replays_of_an_episode_benchmark(tmp_path, data_dir):
    out = tmp_path / "noise"
    args = ("task=noise", "benchmark=tau2_mock", "model=mock", "user=mock", "limit=6", "noise.repeats=4",
            "progress=false", f"hydra.run.dir={out}")
    result = run_gym(*args)
    assert result.returncode == 0, result.stderr
    noise = json.loads((out / "noise.json").read_text())
    assert set(noise["benchmarks"]) == {"tau2_mock", "user_seeds: tau2_mock", "agent_seeds: tau2_mock"}
    held_agent = _rows(out / "user_seeds" / "rollouts.jsonl")
    held_user = _rows(out / "agent_seeds" / "rollouts.jsonl")
    both = _rows(out / "agent_and_user" / "rollouts.jsonl")
    assert len(held_agent) == len(held_user) == len(both) == 24
    # the agent held and gym's mock user deterministic: every rollout of a task is the same episode
    by_task = {}
    for r in held_agent:
        by_task.setdefault(r["task_index"], set()).add(json.dumps(r["trajectory"], sort_keys=True))
    assert all(len(episodes) == 1 for episodes in by_task.values())
    parts = noise["parts"]["tau2_mock"]
    assert parts["user"]["within_task_variance"] == 0 and parts["user"]["noise_floor"] == 0
    within, floor = _floor(held_user)
    assert parts["agent"]["within_task_variance"] == pytest.approx(within, abs=1e-6) and floor > 0
    assert noise["benchmarks"]["agent_seeds: tau2_mock"]["noise_floor"] == pytest.approx(floor, abs=1e-3)
    assert noise["benchmarks"]["tau2_mock"]["noise_floor"] == pytest.approx(_floor(both)[1], abs=1e-3)
    assert "user: the simulated user's seed varies, the agent's is held: within-task variance 0.0000" in result.stdout
    assert f"noise floor ±{floor:.2f}" in result.stdout
    again = run_gym(*args)  # the replays are there: resumed, nothing played twice
    assert again.returncode == 0, again.stderr
    assert len(_rows(out / "user_seeds" / "rollouts.jsonl")) == 24


class SeededJudge:
    """A loopback judge whose verdict on some answers depends on the request's seed: a noisy judge."""

    def __init__(self):
        from tests.verifiers.test_judge_panel import Judges

        self.judges = Judges({"judge-a": self.reply})
        self.url = self.judges.url

    @staticmethod
    def reply(body):
        prompt = body["messages"][-1]["content"]
        return "B" if (sum(map(ord, prompt)) + int(body.get("seed") or 0)) % 4 == 0 else "A"


def test_task_noise_judges_the_same_trajectories_again_for_the_judges_part(tmp_path, data_dir):
    from tests.conftest import UPSTREAM

    judge = SeededJudge()
    out = tmp_path / "noise"
    try:
        result = run_gym("task=noise", "benchmark=simpleqa", "model=mock", "model.mock.accuracy=1.0", "judge=vllm",
                         f"judge.base_url={judge.url}", "judge.name=judge-a", "judge.sampling.seed=7", "limit=4",
                         "noise.repeats=2", "noise.judge_repeats=3", "progress=false", f"data.mirror={UPSTREAM}",
                         f"hydra.run.dir={out}")
    finally:
        judge.judges.close()
    assert result.returncode == 0, result.stderr
    noise = json.loads((out / "noise.json").read_text())
    assert set(noise["benchmarks"]) == {"simpleqa"}  # an answer benchmark: no user to hold
    judgings = [{r["key"]: r["reward"] for r in _rows(out / "judge" / str(n) / "rollouts.jsonl")} for n in range(3)]
    keys = sorted(judgings[0])
    variance = np.mean([np.var([j[k] for j in judgings], ddof=1) for k in keys])
    part = noise["parts"]["simpleqa"]["judge"]
    assert part["judgings"] == 3 and part["items"] == len(keys) == 8
    assert part["judge_variance"] == pytest.approx(variance, abs=1e-6) and variance > 0
    assert judge.judges.asked["judge-a"] == 8 + 3 * 8  # the run's own judging, then three more of the same rows
    assert "judge: variance" in result.stdout


def test_task_noise_without_a_run_or_a_benchmark_fails_in_one_line(tmp_path):
    from tests.conftest import assert_clean_failure

    result = run_gym("task=noise", f"hydra.run.dir={tmp_path}")
    assert_clean_failure(result, "rollouts=<file|glob|run dir> (a run with num_repeats >= 2) or benchmark=<name>")
    once = run_gym("task=noise", "benchmark=tau2_mock", "model=mock", "user=mock", "noise.repeats=1",
                   f"hydra.run.dir={tmp_path / 'once'}")
    assert_clean_failure(once, "noise.repeats=1: the floor needs two or more rollouts of a task")
    hold = run_gym("task=collect", "benchmark=tau2_mock", "model=mock", "user=mock", "episode.hold=judge",
                   "limit=1", f"hydra.run.dir={tmp_path / 'hold'}")
    assert_clean_failure(hold, "episode.hold=judge is not one of: agent, user")
