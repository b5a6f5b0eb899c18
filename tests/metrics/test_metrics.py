"""gym.metrics.compute: pinned values, pass@k against brute-force enumeration, majority ties, CI coverage,
simulated runs and the paired comparison."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from gym.metrics import compute as M
from gym.metrics import estimators as E


def make_frame(tasks, answers=None, status=None, benchmark="bench", model="m") -> pd.DataFrame:
    """Rollout frame from per-task reward lists (answers/status: same shape, optional)."""
    rows = []
    for t, rewards in enumerate(tasks):
        for r, reward in enumerate(rewards):
            st = status[t][r] if status else "ok"
            rows.append({
                "benchmark": benchmark, "model": model, "task_index": t, "rollout_index": r, "key": f"{t}:{r}",
                "status": st, "reward": None if st == "infra_error" else float(reward),
                "extracted_answer": answers[t][r] if answers else str(reward),
                "prompt_tokens": 10.0, "completion_tokens": 20.0 + r, "latency_s": 0.5,
            })
    frame = pd.DataFrame(rows)
    for col in ("benchmark", "model", "status"):
        frame[col] = frame[col].astype("category")
    return frame


def entry(frame, k=None):
    result = M.compute_metrics(frame, k)
    assert result["scale"] == "percent" and "ci_method" in result
    (value,) = result["benchmarks"].values()
    return value


def test_pinned_pass_at_k_values():
    e = entry(make_frame([[1, 1, 1, 1], [0, 0, 0, 0], [1, 0, 1, 0]]))
    assert e["pass@1"]["value"] == pytest.approx(50.0)
    assert e["pass@k"]["4"]["value"] == pytest.approx(66.67, abs=0.01)
    assert e["k_values"] == [1, 2, 4]
    assert e["tasks"] == 3 and e["rollouts"] == 12


def test_pinned_avg_of_k():
    e = entry(make_frame([[1, 0], [0, 1], [1, 1]]))
    assert e["pass@1[avg-of-k]"]["2"]["value"] == pytest.approx(66.67, abs=0.01)


def _brute_pass_at_k(values, k):
    subsets = list(itertools.combinations(values, k))
    return sum(max(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("seed", range(6))
def test_pass_at_k_matches_enumeration(seed):
    rng = np.random.default_rng(seed)
    n_tasks = 7
    lengths = rng.integers(1, 9, size=n_tasks)
    binary = seed % 2 == 0
    values = [rng.integers(0, 2, size=n).astype(float) if binary else rng.random(n) for n in lengths]
    task = np.concatenate([np.full(n, t) for t, n in enumerate(lengths)])
    reward = np.concatenate(values)
    perm = rng.permutation(task.size)  # order of rows must not matter
    ks = list(range(1, 9))
    got = E.pass_at_k_per_task(task[perm], reward[perm], n_tasks, ks)
    for t, vals in enumerate(values):
        for col, k in enumerate(ks):
            if k > len(vals):
                assert math.isnan(got[t, col])
            else:
                assert got[t, col] == pytest.approx(_brute_pass_at_k(list(vals), k), abs=1e-9)
                if binary:
                    n, c = len(vals), int(sum(vals))
                    assert got[t, col] == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k), abs=1e-9)


def test_pass_at_k_large_n_is_stable():
    task = np.zeros(1000, dtype=np.int64)
    reward = np.zeros(1000)
    reward[:10] = 1.0
    got = E.pass_at_k_per_task(task, reward, 1, [1, 64, 1000])[0]
    assert got[0] == pytest.approx(0.01)
    assert got[1] == pytest.approx(1 - math.comb(990, 64) / math.comb(1000, 64), rel=1e-9)
    assert got[2] == pytest.approx(1.0)


def test_majority_ties_and_rules():
    answers = [
        ["a", "b", "a", "b"],  # tie a/b: a is right, b wrong -> a random pick scores 0.5 on average
        ["z", "y", None, None],  # tie y/z, z right -> 0.5
        [None, None, None, None],  # no answer at all -> 0
        [" 7", "7 ", "8", None],  # stripped, "7" appears twice and beats "8" although "8" is right
        ["q", "q", "r", "r"],  # q: rewards 1, 0 (mean .5) vs r: 0, 0 -> (0.5 + 0) / 2
        ["u", "u", "u", "v"],  # a clear winner scores its own mean reward
    ]
    rewards = [[1, 0, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1], [0, 0, 1, 0], [1, 0, 0, 0], [1, 1, 0, 1]]
    frame = make_frame(rewards, answers)
    task, rank = np.repeat(np.arange(6), 4), np.tile(np.arange(4), 6)
    codes = E.answer_codes(frame["extracted_answer"])
    assert codes[8:12].tolist() == [-1, -1, -1, -1]
    scores = E.majority_at_k_per_task(task, rank, codes, frame["reward"].to_numpy(), 6, [1, 4])
    assert scores[:, 1].tolist() == pytest.approx([0.5, 0.5, 0.0, 0.0, 0.25, 2 / 3])
    assert scores[:, 0].tolist() == [1.0, 1.0, 0.0, 0.0, 1.0, 1.0]  # first rollout only


def test_answer_codes_follow_lexicographic_order():
    codes = E.answer_codes(pd.Series(["b", None, "a ", "c", "a"]))
    assert codes.tolist() == [1, -1, 0, 2, 0]


def test_majority_uses_first_k_by_rollout_index():
    frame = make_frame([[0, 0, 1, 1, 1]], [["x", "x", "y", "y", "y"]])
    frame = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)  # row order scrambled
    e = entry(frame, k=[2, 5])
    assert e["majority@k"]["2"]["value"] == 0.0  # first two rollouts say "x"
    assert e["majority@k"]["5"]["value"] == 100.0


def test_infra_errors_excluded_model_errors_score_zero():
    status = [["ok", "ok", "infra_error", "model_error"], ["infra_error"] * 4]
    e = entry(make_frame([[1, 1, 1, 0], [1, 1, 1, 1]], status=status))
    assert e["counts"] == {"ok": 2, "model_error": 1, "infra_error": 5, "verifier_error": 0}
    assert e["tasks"] == 1 and e["unscored_tasks"] == 1
    assert e["pass@1"]["value"] == pytest.approx(200 / 3, abs=1e-3)
    assert e["k_values"] == [1, 2, 3]


def test_verifier_errors_are_excluded_like_infra_errors():
    # A verifier that could not decide is not a wrong answer: the same numbers as without those rows.
    status = [["ok", "ok", "verifier_error", "model_error"], ["verifier_error", "infra_error", "ok", "ok"]]
    e = entry(make_frame([[1, 1, 0, 0], [0, 0, 1, 0]], status=status))
    assert e["counts"] == {"ok": 4, "model_error": 1, "infra_error": 1, "verifier_error": 2}
    assert e["scored_rollouts"] == 5 and e["rollouts_per_task"] == {"min": 2, "max": 3}
    assert e["pass@1"]["value"] == pytest.approx(100 * (2 / 3 + 1 / 2) / 2, abs=1e-3)


def test_partial_tasks_cap_k_and_are_reported():
    e = entry(make_frame([[1, 0, 1, 0, 1, 0, 1, 0], [1, 1, 0]]))
    assert e["rollouts_per_task"] == {"min": 3, "max": 8}
    assert e["partial_tasks"] == 1
    assert e["k_values"] == [1, 2, 3]


def test_k_values():
    assert E.k_values(1) == [1]
    assert E.k_values(8) == [1, 2, 4, 8]
    assert E.k_values(100) == [1, 2, 4, 8, 16, 32, 64, 100]
    assert E.k_values(100, 10) == [1, 2, 4, 8, 10]
    assert E.k_values(4, 16) == [1, 2, 4]
    assert E.k_values(5, [1, 3, 7]) == [1, 3]


def test_t_critical():
    from gym.metrics.intervals import t_critical

    assert t_critical(1) == pytest.approx(12.706, abs=1e-3)  # printed tables of Student's t
    assert t_critical(30) == pytest.approx(2.042, abs=1e-3)
    assert t_critical(60) == pytest.approx(2.000, abs=1e-3)
    assert t_critical(10_000) == pytest.approx(1.960, abs=1e-3)


def test_no_answer_tokens_latency():
    answers = [["1", None, "1", None], ["2", "2", "2", "2"]]
    e = entry(make_frame([[1, 0, 1, 0], [1, 1, 1, 1]], answers))
    assert e["no_answer"]["value"] == pytest.approx(25.0)
    assert e["tokens"]["completion"]["mean"] == pytest.approx(21.5)
    assert e["latency_s"] == {"mean": 0.5, "p50": 0.5, "p95": 0.5}


def simulate(rng, n_tasks, n_rollouts, accuracy, spread=0.0, model="m"):
    """Tasks with difficulty p_i ~ clip(accuracy + noise); rewards Bernoulli(p_i)."""
    p = np.clip(accuracy + spread * rng.standard_normal(n_tasks), 0, 1)
    rewards = (rng.random((n_tasks, n_rollouts)) < p[:, None]).astype(float)
    return make_frame(rewards.tolist(), model=model)


def test_simulated_accuracy_is_within_the_ci():
    rng = np.random.default_rng(7)
    e = entry(simulate(rng, 400, 4, 0.62))
    assert e["pass@1"]["ci_low"] <= 62.0 <= e["pass@1"]["ci_high"]
    assert abs(e["pass@1"]["value"] - 62.0) < 5


def test_ci_coverage_over_tasks():
    """Tasks drawn from a population with mean difficulty 0.5: the CI covers 50 % about 95 % of the time."""
    rng = np.random.default_rng(11)
    covered, sims = 0, 300
    for _ in range(sims):
        p = rng.beta(2, 2, size=40)
        rewards = (rng.random((40, 4)) < p[:, None]).astype(float)
        ci = E.mean_ci(rewards.mean(axis=1))
        covered += ci["ci_low"] <= 50.0 <= ci["ci_high"]
    assert 0.91 <= covered / sims <= 0.985


def test_compare_detects_planted_difference():
    rng = np.random.default_rng(5)
    a = simulate(rng, 300, 4, 0.60, spread=0.2, model="a")
    b = simulate(rng, 300, 4, 0.70, spread=0.2, model="b")
    result = M.compare_groups(a, b, n_boot=2000)
    diff = result["metrics"]["pass@1"]
    assert result["paired_tasks"] == 300
    assert 4 < diff["diff"] < 16 and diff["ci_low"] > 0
    assert diff["p_value"] < 0.05


def test_compare_finds_no_difference_when_there_is_none():
    rng = np.random.default_rng(6)
    a = simulate(rng, 300, 4, 0.65, spread=0.2, model="a")
    b = simulate(rng, 300, 4, 0.65, spread=0.2, model="b")
    diff = M.compare_groups(a, b, n_boot=2000)["metrics"]["pass@1"]
    assert diff["p_value"] > 0.05 and diff["ci_low"] < 0 < diff["ci_high"]


def test_compare_pairs_common_tasks_and_lists_flips():
    a = make_frame([[1, 1], [0, 0], [1, 0], [1, 1]], model="a")
    b = make_frame([[0, 0], [1, 1], [1, 0]], model="b")  # task 3 missing in B
    result = M.compare_groups(a, b, n_boot=500)
    assert result["paired_tasks"] == 3 and result["only_in_a"] == 1 and result["only_in_b"] == 0
    assert result["flipped"] == {"solved_in_a_only": [0], "solved_in_b_only": [1]}
    assert result["metrics"]["pass@1"]["diff"] == 0.0
    assert set(result["metrics"]) >= {"pass@1", "pass@2", "majority@2", "pass@1[avg-of-2]"}


def test_identical_runs_give_p_one():
    a = make_frame([[1, 0], [0, 0], [1, 1]], model="a")
    diff = M.compare_groups(a, a.assign(model="b"), n_boot=200)["metrics"]["pass@1"]
    assert diff["diff"] == 0.0 and diff["p_value"] == 1.0
