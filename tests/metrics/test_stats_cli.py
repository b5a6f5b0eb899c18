"""Honest intervals, clustering, repeats and compare's power statement as a user types them."""

from __future__ import annotations

import json

import pytest

from gym.rollouts.subsets import task_subsets
from tests.conftest import UPSTREAM, assert_clean_failure, run_gym
from tests.tasks.test_aggregate_task import row, write


def test_three_task_run_shows_an_honest_interval(tmp_path, data_dir):
    run = tmp_path / "run"
    result = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=3", "model.mock.accuracy=1.0",
                     f"data.mirror={UPSTREAM}", "progress=false", f"hydra.run.dir={run}")
    assert result.returncode == 0, result.stderr
    assert "100.00 [43.85, 100.00]" in result.stdout and "100.00 [100.00, 100.00]" not in result.stdout
    assert "wilson = Wilson score interval over tasks" in result.stdout
    assert "note: gsm8k: only 3 tasks: the 95% interval spans 56.1 points" in result.stdout
    pass1 = json.loads((run / "metrics.json").read_text())["benchmarks"]["gsm8k"]["pass@1"]
    assert pass1["method"] == "wilson" and pass1["ci_low"] == pytest.approx(43.8503, abs=1e-3)
    head = json.loads((run / "run.json").read_text())["headline"]
    assert head["ci95"] == [pass1["ci_low"], pass1["ci_high"]] and head["ci_method"] == "wilson"


def _clustered_rows():
    rows = []
    for task in range(12):  # four passages of three questions; passages differ, questions within agree
        passage = task // 3
        for rollout in range(2):
            reward = float(passage % 2 == 0 or (task + rollout) % 5 == 0)
            rows.append({**row(task, rollout, reward), "subsets": {"passage": f"p{passage}"}})
    return rows


def test_cluster_by_a_subsets_column_shows_the_design_effect(tmp_path):
    path = write(tmp_path / "run" / "rollouts.jsonl", _clustered_rows())
    out = tmp_path / "agg"
    result = run_gym("task=aggregate", f"rollouts={path}", "metrics.cluster_by=passage", f"hydra.run.dir={out}")
    assert result.returncode == 0, result.stderr
    entry = json.loads((out / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    assert entry["clustering"]["by"] == "passage" and entry["clustering"]["clusters"] == 4
    assert entry["clustering"]["design_effect"] > 1 and entry["pass@1"]["method"] == "cluster"
    assert "intervals clustered by passage (4 clusters); design effect" in result.stdout
    assert "cluster = cluster-robust (CR1)" in result.stdout
    plain = run_gym("task=aggregate", f"rollouts={path}", f"hydra.run.dir={tmp_path / 'plain'}")
    plain_entry = json.loads((tmp_path / "plain" / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    width = lambda m: m["ci_high"] - m["ci_low"]  # noqa: E731
    assert plain.returncode == 0 and width(entry["pass@1"]) > width(plain_entry["pass@1"])
    assert "repeats:" in plain.stdout and plain_entry["repeats"]["repeats_per_task"] == 2


def test_benchmark_cluster_column_is_carried_as_subsets_cluster():
    rows = [{"metadata": {"passage": "a", "subset": "x"}}, {"passage": "b"}, {}]
    assert task_subsets(rows, ["subset"], "passage") == [{"subset": "x", "cluster": "a"}, {"cluster": "b"}, None]


def test_cluster_by_an_unknown_field_fails_in_one_line(tmp_path):
    path = write(tmp_path / "run" / "rollouts.jsonl", _clustered_rows())
    result = run_gym("task=aggregate", f"rollouts={path}", "metrics.cluster_by=subsets.nothing",
                     f"hydra.run.dir={tmp_path / 'x'}")
    assert_clean_failure(result, "metrics.cluster_by=subsets.nothing: no rollout carries it")
    bad = run_gym("task=aggregate", f"rollouts={path}", "metrics.target_delta=-3", f"hydra.run.dir={tmp_path / 'y'}")
    assert_clean_failure(bad, "metrics.target_delta must be a difference in percent points")


def test_compare_prints_mcnemar_and_power(tmp_path):
    a = [row(t, r, float(t % 3 != 0)) for t in range(30) for r in range(2)]
    b = [row(t, r, float(t % 5 != 0), model="n") for t in range(30) for r in range(2)]
    path_a, path_b = write(tmp_path / "a" / "rollouts.jsonl", a), write(tmp_path / "b" / "rollouts.jsonl", b)
    out = tmp_path / "cmp"
    result = run_gym("task=aggregate", f"compare=[{path_a},{path_b}]", "metrics.target_delta=5",
                     f"hydra.run.dir={out}")
    assert result.returncode == 0, result.stderr
    assert "McNemar: solved by A only" in result.stdout and "95% CI (paired t)" in result.stdout
    assert "gsm8k: power: with 30 paired tasks, a true difference of" in result.stdout
    assert "to detect 5 points:" in result.stdout
    entry = json.loads((out / "compare.json").read_text())["benchmarks"]["gsm8k"]
    assert entry["power"]["minimal_detectable_difference"] > 0 and entry["power"]["tasks_needed"] > 30
    assert entry["mcnemar"]["a_only"] + entry["mcnemar"]["b_only"] > 0 and entry["metrics"]["pass@1"]["se"] > 0
