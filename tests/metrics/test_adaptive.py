"""Adaptive repeats: the stopping rule, its unbiased estimators, and collect/aggregate/profile driving them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict

import pytest

from gym.rollouts.adaptive import AdaptiveRule
from gym.metrics.adaptive_estimates import _paths, estimate
from gym.core.config import compose
from gym.core.errors import GymError
from gym.tasks import aggregate, collect, profile
from tests.conftest import ROOT, assert_clean_failure, run_gym
from tests.model_time_data import read_rows, write_tasks

ADAPTIVE = ["adaptive.enabled=true", "num_repeats=16", "model.mock.task_accuracy=beta:0.5:0.5", "model.sampling.seed=0"]


def run_collect(tmp_path, *overrides):
    return collect.run(compose(["task=collect", "benchmark=gsm8k", "model=mock", "progress=false",
                                f"+run_dir={tmp_path}", *overrides]))


def by_task(rows):
    out = defaultdict(dict)
    for row in rows:
        out[row["task_index"]][row["rollout_index"]] = row
    return out


@pytest.mark.parametrize("split", [False, True])
def test_all_fail_and_all_pass_stop_early_and_mixed_tasks_go_on(split):
    rule = AdaptiveRule(min_repeats=4, max_repeats=32, step=2, split_extremes=split)
    for rewards in ([0.0] * 32, [1.0] * 32):
        assert rule.wanted(rewards) < 32
        assert rule.wanted(rewards[:4]) <= (6 if not split else 32)
    assert rule.wanted([]) == 4 and rule.wanted([1.0, 0.0]) == 4  # the first round is always min_repeats
    assert rule.wanted([1.0, 0.0] * 16) > 4  # a 50% task needs more than the first round
    if not split:
        assert rule.wanted([0.0] * 32) == 6


@pytest.mark.parametrize("spec_args", [dict(split_extremes=False), dict(split_extremes=True, step=3, min_repeats=3)])
def test_estimators_are_exactly_unbiased_over_every_stopping_path(spec_args):
    """Sum over all stop states (s, m): P(stop there) × estimate == true value, for several pass rates."""
    rule = AdaptiveRule(max_repeats=16, **spec_args)
    spec = rule.spec()
    stops = [(s, m) for m in rule.checkpoints() for s in range(m + 1)
             if _paths(spec, 0, 0, m)[s] and rule.stops(s, m)]
    for p in (0.02, 0.2, 0.5, 0.77, 0.97):
        for k in (1, 2, rule.min_repeats):
            expected = sum(_paths(spec, 0, 0, m)[s] * p**s * (1 - p) ** (m - s) * estimate(spec, s, m, k)
                           for s, m in stops)
            total = sum(_paths(spec, 0, 0, m)[s] * p**s * (1 - p) ** (m - s) for s, m in stops)
            assert total == pytest.approx(1.0, abs=1e-9)  # the rule always stops
            assert expected == pytest.approx(1 - (1 - p) ** k, abs=1e-9)
    # ...whereas the plain mean reward at the stop is biased for some pass rates
    naive = sum(_paths(spec, 0, 0, m)[s] * 0.2**s * 0.8 ** (m - s) * s / m for s, m in stops)
    assert abs(naive - 0.2) > 1e-4


def test_rule_round_trips_through_its_spec_and_rejects_bad_values():
    rule = AdaptiveRule(min_repeats=3, max_repeats=20, step=3, confidence=0.9, split_extremes=True)
    assert AdaptiveRule.parse(rule.spec()) == rule
    with pytest.raises(GymError, match="min_repeats"):
        AdaptiveRule(min_repeats=8, max_repeats=4)
    with pytest.raises(GymError, match="confidence"):
        AdaptiveRule(confidence=1.0)


def test_adaptive_collect_samples_prefixes_by_the_rule_with_the_fixed_runs_keys(data_dir, tmp_path):
    write_tasks(data_dir, 60)
    summary = run_collect(tmp_path / "a", *ADAPTIVE, "concurrency=8")
    rows = read_rows(tmp_path / "a" / "rollouts.jsonl")
    rule = AdaptiveRule(max_repeats=16)
    tasks = by_task(rows)
    assert len(tasks) == 60 and len(rows) == summary["ran"] < 60 * 16
    stops = set()
    for task, got in tasks.items():
        n = len(got)
        assert sorted(got) == list(range(n))  # a prefix of rollout indices
        rewards = [got[i]["reward"] for i in range(n)]
        assert rule.stop_point(rewards) == n  # exactly where the rule stops
        stops.add(n)
        assert all(r["adaptive"] == rule.spec() for r in got.values())
    assert min(stops) < 16 and summary["adaptive"]["rollouts_wanted"] == len(rows)
    # the same rollout in a fixed run has the same key and the same reply
    run_collect(tmp_path / "f", "num_repeats=16", "model.mock.task_accuracy=beta:0.5:0.5", "model.sampling.seed=0")
    fixed_rows = {r["key"]: r for r in read_rows(tmp_path / "f" / "rollouts.jsonl")}
    assert all(fixed_rows[r["key"]]["response"] == r["response"] for r in rows)


def test_adaptive_aggregate_and_profile_use_unbiased_estimates_and_name_what_they_cannot_give(data_dir, tmp_path):
    write_tasks(data_dir, 40)
    run_collect(tmp_path / "c", *ADAPTIVE)
    rows = read_rows(tmp_path / "c" / "rollouts.jsonl")
    metrics = aggregate.run(compose(["task=aggregate", f"rollouts={tmp_path / 'c'}", f"+run_dir={tmp_path / 'agg'}"]))
    entry = json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    rule = AdaptiveRule(max_repeats=16)
    expected = []
    for task, got in sorted(by_task(rows).items()):
        rewards = [got[i]["reward"] for i in range(len(got))]
        expected.append(estimate(rule.spec(), int(sum(rewards)), len(rewards)))
    assert entry["pass@1"]["value"] == pytest.approx(100 * sum(expected) / len(expected), abs=1e-3)
    assert max(entry["k_values"]) <= 4 and set(entry["pass@k"]) <= {"1", "2", "4"}
    assert "k > 4" in next(iter(entry["adaptive"]["not_estimable"]))
    assert metrics["metrics"]
    result = profile.run(compose(["task=profile", f"rollouts={tmp_path / 'c'}", "plots=false", "report=false",
                                  f"+run_dir={tmp_path / 'prof'}"]))  # complete without allow_partial
    summary = json.loads(open(result["files"]["profile_summary"]).read())
    assert summary["completion"]["total"]["partial_tasks"] == 0
    assert summary["overall"]["pass@1"]["value"] == pytest.approx(entry["pass@1"]["value"], abs=1e-3)
    assert set(summary["overall"]["pass@k"]) <= {"1", "2", "4"}


def test_adaptive_kill_dash_nine_then_resume_ends_where_an_uninterrupted_run_ends(data_dir, tmp_path):
    write_tasks(data_dir, 40)
    run_collect(tmp_path / "whole", *ADAPTIVE)
    whole = {r["key"]: r["reward"] for r in read_rows(tmp_path / "whole" / "rollouts.jsonl")}
    args = [sys.executable, "-m", "gym", "task=collect", "benchmark=gsm8k", "model=mock", *ADAPTIVE,
            "model.mock.latency=0.02", "concurrency=4", "progress=false", f"hydra.run.dir={tmp_path}/run"]
    proc = subprocess.Popen(args, cwd=ROOT, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = tmp_path / "run" / "rollouts.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or len(out.read_bytes().splitlines()) < 170):
        time.sleep(0.02)  # polling the file for progress, not synchronising on time
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 0 < len(out.read_bytes().splitlines()) < len(whole)
    with out.open("ab") as handle:
        handle.write(b'{"key": "torn')  # what a kill in the middle of a write leaves
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", *ADAPTIVE, "progress=false", "resume=true",
                     f"output={out}", f"hydra.run.dir={tmp_path}/resumed", env={"GYM_DATA_DIR": str(data_dir)})
    assert result.returncode == 0, result.stderr
    resumed = {}
    for line in out.read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        resumed[row["key"]] = row["reward"]
    assert resumed == whole  # same rollouts, same rewards, nothing extra


def test_bad_adaptive_settings_fail_in_one_line(data_dir, tmp_path):
    write_tasks(data_dir, 3)
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "adaptive.enabled=true",
                     "adaptive.min_repeats=8", "num_repeats=4", f"hydra.run.dir={tmp_path}",
                     env={"GYM_DATA_DIR": str(data_dir)})
    assert_clean_failure(result, "min_repeats")


def test_compare_pairs_the_unbiased_estimates_of_an_adaptive_run(data_dir, tmp_path):
    write_tasks(data_dir, 30)
    run_collect(tmp_path / "fixed", "num_repeats=16", "model.mock.task_accuracy=beta:0.5:0.5", "model.sampling.seed=0")
    run_collect(tmp_path / "adaptive", *ADAPTIVE)
    aggregate.run(compose(["task=aggregate", f"rollouts={tmp_path / 'adaptive'}", f"+run_dir={tmp_path / 'agg'}"]))
    single = json.loads((tmp_path / "agg" / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    aggregate.run(compose(["task=aggregate", f"compare=[{tmp_path / 'fixed'},{tmp_path / 'adaptive'}]",
                           f"+run_dir={tmp_path / 'cmp'}"]))
    result = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    entry = next(iter(result["benchmarks"].values())) if "benchmarks" in result else result
    assert max(entry["k_values"]) <= 4
    assert entry["metrics"]["pass@1"]["b"] == pytest.approx(single["pass@1"]["value"], abs=1e-3)


def test_the_rule_names_the_bucket_it_decided():
    three = AdaptiveRule(min_repeats=4, max_repeats=32, step=2)
    assert three.decided_label([1.0] * 6) == "easy_or_solved"  # 6 of 6: easy or solved, never shown to be solved
    assert three.decided_label([0.0] * 6) == "hard_or_unsolved"
    assert three.decided_label([1.0, 0.0, 1.0, 0.0]) == "undecided"  # the rule wants more
    assert three.decided_label([1.0, 0.0] * 16) == "medium"  # at max_repeats: the fixed run's bucket
    five = AdaptiveRule(min_repeats=4, max_repeats=32, step=2, split_extremes=True)
    assert five.decided_label([1.0] * 32) == "solved" and five.decided_label([0.0] * 32) == "unsolved"
    assert five.decided_label([1.0] * 6) == "undecided"


def test_an_adaptive_profile_labels_what_the_rule_decided(data_dir, tmp_path):
    write_tasks(data_dir, 40)
    run_collect(tmp_path / "c", *ADAPTIVE)
    rule = AdaptiveRule(max_repeats=16)
    tasks = by_task(read_rows(tmp_path / "c" / "rollouts.jsonl"))
    base = ["task=profile", f"rollouts={tmp_path / 'c'}", "plots=false"]
    result = profile.run(compose([*base, "select.buckets=[easy_or_solved]", f"+run_dir={tmp_path / 'prof'}"]))
    records = [json.loads(line) for line in open(result["files"]["reward_profile"])]
    for record in records:
        got = tasks[record["task_index"]]
        assert record["bucket"] == rule.decided_label([got[i]["reward"] for i in range(len(got))])
        assert record["bucket_decided_by"] == rule.spec()
    labels = {record["bucket"] for record in records}
    assert labels <= {"hard_or_unsolved", "medium", "easy_or_solved"} and "easy_or_solved" in labels
    summary = json.loads(open(result["files"]["profile_summary"]).read())
    assert list(summary["overall"]["buckets"]) == ["hard_or_unsolved", "medium", "easy_or_solved"]
    assert result["selected"] == sum(record["bucket"] == "easy_or_solved" for record in records)
    page = open(result["files"]["report"], encoding="utf-8").read()
    assert "easy_or_solved" in page and "stopping rule decided" in page
    with pytest.raises(GymError, match="solved is not a bucket of these rollouts"):
        profile.run(compose([*base, "select.buckets=[solved]", f"+run_dir={tmp_path / 'bad'}"]))


def test_adaptive_intervals_honour_metrics_cluster_by(data_dir, tmp_path):
    """An adaptive run aggregated with metrics.cluster_by=<column>: its unbiased per-task estimates get the
    cluster-robust interval (statsmodels' CR1 standard error on the same estimates), not one over tasks."""
    import numpy as np
    import statsmodels.api as sm

    write_tasks(data_dir, 40)
    run_collect(tmp_path / "c", *ADAPTIVE)
    path = tmp_path / "c" / "rollouts.jsonl"
    rows = read_rows(path)
    for row in rows:  # eight passages of five tasks each
        row["subsets"] = {**(row.get("subsets") or {}), "passage": f"p{row['task_index'] // 5}"}
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "agg"
    result = run_gym("task=aggregate", f"rollouts={path}", "metrics.cluster_by=passage", f"hydra.run.dir={out}")
    assert result.returncode == 0, result.stderr
    entry = json.loads((out / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    rule, tasks = AdaptiveRule(max_repeats=16), sorted(by_task(rows).items())
    estimates = np.array([estimate(rule.spec(), int(sum(r["reward"] for r in got.values())), len(got))
                          for _, got in tasks])
    passages = np.array([task // 5 for task, _ in tasks])
    fit = sm.OLS(estimates, np.ones(len(estimates))).fit(cov_type="cluster", cov_kwds={"groups": passages})
    pass1 = entry["pass@1"]
    assert pass1["method"] == "cluster" and pass1["clusters"] == 8 and "adaptive" in entry
    assert pass1["value"] == pytest.approx(100 * estimates.mean(), abs=1e-3)
    half = (pass1["ci_high"] - pass1["ci_low"]) / 2
    from scipy.stats import t

    assert half == pytest.approx(100 * t.ppf(0.975, 7) * float(fit.bse[0]), abs=2e-3)
    assert entry["clustering"]["design_effect"] == pass1["design_effect"]
    assert all(m["method"] == "cluster" for m in entry["pass@k"].values())
