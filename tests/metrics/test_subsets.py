"""Per-subset breakdown: rollouts carrying `subsets` get every headline metric per value, with CIs,
in metrics.json, metrics.csv, the aggregate table and the profile's HTML report."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.rollouts.subsets import row_subsets, task_subsets
from gym.tasks import aggregate, profile


def rollout(task, rollout_index, reward, subsets, benchmark="multi", model="m"):
    row = {"benchmark": benchmark, "model": model, "task_index": task, "rollout_index": rollout_index,
           "key": f"{benchmark}-{model}-{task}-{rollout_index}", "status": "ok", "reward": reward,
           "extracted_answer": str(reward), "expected_answer": "1", "prompt": [{"role": "user", "content": "q"}],
           "response": "r", "latency_s": 1.0, "usage": {"prompt_tokens": 3, "completion_tokens": 2}}
    if subsets is not None:
        row["subsets"] = subsets
    return row


def write(path: Path, rows, blank_lines: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r) + ("\n\n" if blank_lines else "\n") for r in rows)
    path.write_text(text)
    return path


# language de: tasks 0,1 always right; fr: task 2 half right, task 3 always wrong
REWARDS = {0: [1, 1], 1: [1, 1], 2: [1, 0], 3: [0, 0]}
LANG = {0: "de", 1: "de", 2: "fr", 3: "fr"}
LEVEL = {0: "low", 1: "high", 2: "low", 3: "high"}


def pinned(**kw):
    return [rollout(t, r, float(v), {"language": LANG[t], "difficulty": LEVEL[t]}, **kw)
            for t, values in REWARDS.items() for r, v in enumerate(values)]


@pytest.mark.parametrize("blank_lines", [False, True])  # True: the loader's line-by-line path
def test_aggregate_reports_each_subset(tmp_path, capsys, blank_lines):
    path = write(tmp_path / "run" / "rollouts.jsonl", pinned(), blank_lines)
    aggregate.run(compose(["task=aggregate", f"rollouts={path}", f"+run_dir={tmp_path / 'out'}"]))
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    entry = metrics["benchmarks"]["multi"]
    assert entry["pass@1"]["value"] == 62.5
    by_language = entry["subsets"]["language"]
    assert set(by_language) == {"de", "fr"}
    assert by_language["de"]["pass@1"]["value"] == 100.0 and by_language["de"]["tasks"] == 2
    assert by_language["fr"]["pass@1"]["value"] == 25.0
    assert by_language["fr"]["pass@1"]["ci_low"] is not None  # a CI over the subset's tasks
    assert by_language["fr"]["pass@k"]["2"]["value"] == 50.0
    assert entry["subsets"]["difficulty"]["high"]["pass@1"]["value"] == 50.0

    table = capsys.readouterr().out
    assert "multi by language:" in table and "multi by difficulty:" in table
    with open(tmp_path / "out" / "metrics.csv", newline="") as handle:
        rows = {r["metric"]: r for r in csv.DictReader(handle)}
    assert float(rows["subset/language=fr/pass@1"]["value"]) == 25.0
    assert rows["subset/language=fr/pass@1"]["ci_low"] != ""


def test_no_subsets_no_section(tmp_path, capsys):
    path = write(tmp_path / "run" / "rollouts.jsonl", [rollout(0, 0, 1.0, None), rollout(1, 0, 0.0, None)])
    aggregate.run(compose(["task=aggregate", f"rollouts={path}", f"+run_dir={tmp_path / 'out'}"]))
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert "subsets" not in metrics["benchmarks"]["multi"]
    assert " by " not in capsys.readouterr().out


def test_two_models_are_split_per_entry(tmp_path):
    rows = pinned(model="a") + [rollout(t, 0, 0.0, {"language": LANG[t]}, model="b") for t in REWARDS]
    path = write(tmp_path / "run" / "rollouts.jsonl", rows)
    aggregate.run(compose(["task=aggregate", f"rollouts={path}", f"+run_dir={tmp_path / 'out'}"]))
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["benchmarks"]["multi@a"]["subsets"]["language"]["de"]["pass@1"]["value"] == 100.0
    assert metrics["benchmarks"]["multi@b"]["subsets"]["language"]["de"]["pass@1"]["value"] == 0.0
    assert "difficulty" not in metrics["benchmarks"]["multi@b"]["subsets"]


def test_profile_report_has_subset_section(tmp_path):
    path = write(tmp_path / "run" / "rollouts.jsonl", pinned())
    profile.run(compose(["task=profile", f"rollouts={path}", f"+run_dir={tmp_path / 'prof'}", "plots=false"]))
    html = (tmp_path / "prof" / "report.html").read_text()
    assert "<h2>Per subset</h2>" in html and "multi by language" in html
    summary = json.loads((tmp_path / "prof" / "profile_summary.json").read_text())
    assert summary["subsets"]["multi"]["language"]["fr"]["pass@1"]["value"] == 25.0


def test_row_values_come_from_metadata_then_the_row():
    row = {"question": "q", "language": "ja", "metadata": {"subset": "algebra", "difficulty": 3}}
    assert row_subsets(row, ["subset", "language", "difficulty", "missing"]) == {
        "subset": "algebra", "language": "ja", "difficulty": "3"}
    assert row_subsets({"question": "q"}, ["subset"]) is None
    assert task_subsets([row], []) == [None]
