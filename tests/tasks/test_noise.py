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
