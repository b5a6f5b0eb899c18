"""task=aggregate through a composed config: files written, table, compare mode and bad input."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.tasks import aggregate


def row(task, rollout, reward=1.0, status="ok", benchmark="gsm8k", model="m", key=None, answer=None):
    return {"benchmark": benchmark, "model": model, "task_index": task, "rollout_index": rollout,
            "key": key or f"{benchmark}-{model}-{task}-{rollout}", "status": status, "reward": reward,
            "extracted_answer": answer if answer is not None else str(reward), "expected_answer": "1",
            "prompt": [{"role": "user", "content": "q"}], "response": "r", "reasoning": None, "verifier": {},
            "error": None, "attempts": 1, "latency_s": 1.0, "finish_reason": "stop",
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}, "time": "t"}


def write(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def pinned_rows(**kw):
    rewards = [[1, 1, 1, 1], [0, 0, 0, 0], [1, 0, 1, 0]]
    return [row(t, r, float(v), **kw) for t, vals in enumerate(rewards) for r, v in enumerate(vals)]


def run(tmp_path, *overrides):
    out = tmp_path / "out"
    cfg = compose(["task=aggregate", f"+run_dir={out}", *overrides])
    return aggregate.run(cfg), out


def test_metrics_files_and_table(tmp_path, capsys):
    path = write(tmp_path / "run" / "rollouts.jsonl", pinned_rows())
    summary, out = run(tmp_path, f"rollouts={path.parent}")
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["scale"] == "percent" and metrics["ci_method"].startswith("95% interval over tasks")
    assert set(metrics["ci_methods"]) == {"wilson", "t", "bounded", "cluster"}
    entry = metrics["benchmarks"]["gsm8k"]
    assert {"model", "tasks", "rollouts", "counts", "pass@1", "pass@k", "majority@k", "pass@1[avg-of-k]",
            "no_answer", "tokens", "latency_s"} <= set(entry)
    assert entry["pass@1"]["value"] == 50.0 and entry["pass@k"]["4"]["value"] == pytest.approx(66.6667)
    assert set(entry["pass@1"]) == {"value", "ci_low", "ci_high", "method", "n"} and entry["pass@1"]["method"] == "t"
    assert entry["counts"] == {"ok": 12, "model_error": 0, "infra_error": 0, "verifier_error": 0}
    assert metrics["inputs"]["files"] == [str(path.resolve())]
    assert summary["pass@1"] == {"gsm8k": 50.0}

    with open(out / "metrics.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    by_metric = {r["metric"]: r for r in rows}
    assert float(by_metric["pass@4"]["value"]) == pytest.approx(66.6667)
    assert by_metric["pass@1"]["unit"] == "percent" and by_metric["latency_s/p95"]["unit"] == "seconds"
    assert {r["benchmark"] for r in rows} == {"gsm8k"}

    printed = capsys.readouterr().out
    assert "pass@1 [95% CI]" in printed and "gsm8k" in printed and "pass@4 66.67" in printed
    assert "scale: percent" in printed


def test_output_json_goes_to_stdout(tmp_path, capsys):
    path = write(tmp_path / "rollouts.jsonl", pinned_rows())
    run(tmp_path, f"rollouts={path}", "format=json")
    printed = json.loads(capsys.readouterr().out)
    assert printed["benchmarks"]["gsm8k"]["pass@1"]["value"] == 50.0


def test_k_knob(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", pinned_rows())
    run(tmp_path, f"rollouts={path}", "k=2")
    entry = json.loads((tmp_path / "out" / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    assert list(entry["pass@k"]) == ["1", "2"]
    with pytest.raises(GymError, match="k must be null"):
        run(tmp_path, f"rollouts={path}", "k=0")
    with pytest.raises(GymError, match="format must be"):
        run(tmp_path, f"rollouts={path}", "format=yaml")


def test_mixed_benchmarks_and_models_are_grouped(tmp_path, capsys):
    rows = pinned_rows() + pinned_rows(benchmark="aime24", model="a") + [
        row(0, 0, 0.0, benchmark="aime24", model="b"), row(1, 0, 1.0, benchmark="aime24", model="b")]
    write(tmp_path / "sweep" / "0" / "rollouts.jsonl", rows[:12])
    write(tmp_path / "sweep" / "1" / "rollouts.jsonl", rows[12:])
    run(tmp_path, f"rollouts={tmp_path / 'sweep'}")
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert set(metrics["benchmarks"]) == {"gsm8k", "aime24@a", "aime24@b"}
    assert metrics["benchmarks"]["aime24@b"]["model"] == "b"
    assert metrics["benchmarks"]["aime24@b"]["pass@1"]["value"] == 50.0
    assert metrics["benchmarks"]["aime24@a"]["tasks"] == 3
    printed = capsys.readouterr().out
    assert sum(line.startswith("aime24 ") for line in printed.splitlines()) == 2  # a table row per model


def test_partial_and_unscored_tasks_are_noted(tmp_path, capsys):
    rows = pinned_rows()[:-1] + [row(7, 0, None, status="infra_error")]
    path = write(tmp_path / "rollouts.jsonl", rows)
    run(tmp_path, f"rollouts={path}")
    printed = capsys.readouterr().out
    assert "gsm8k: 1 task(s) have fewer scored rollouts than 4, so k stops at 3" in printed
    assert "gsm8k: 1 task(s) only have infra errors" in printed
    entry = json.loads((tmp_path / "out" / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    assert entry["k_values"] == [1, 2, 3] and entry["counts"]["infra_error"] == 1


def test_only_infra_errors(tmp_path, capsys):
    path = write(tmp_path / "rollouts.jsonl", [row(0, 0, None, status="infra_error")])
    run(tmp_path, f"rollouts={path}")
    entry = json.loads((tmp_path / "out" / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    assert entry["tasks"] == 0 and entry["pass@1"]["value"] is None and entry["k_values"] == []
    assert "only have infra errors" in capsys.readouterr().out


def test_empty_rollout_file(tmp_path):
    path = tmp_path / "rollouts.jsonl"
    path.write_text("\n")
    with pytest.raises(GymError, match="no rollout rows"):
        run(tmp_path, f"rollouts={path}")


def test_glob_matching_nothing(tmp_path):
    with pytest.raises(GymError, match="no rollout files matched"):
        run(tmp_path, f"rollouts={tmp_path}/*/rollouts.jsonl")


def test_missing_reward_field(tmp_path):
    rows = pinned_rows()
    del rows[5]["reward"]
    path = write(tmp_path / "rollouts.jsonl", rows)
    with pytest.raises(GymError, match=rf"{path}:6: status 'ok' but the reward is missing"):
        run(tmp_path, f"rollouts={path}")


def test_nan_reward(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", pinned_rows())
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace('"reward": 1.0', '"reward": NaN')
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(GymError, match=rf"{path}:3: .*NaN"):
        run(tmp_path, f"rollouts={path}")


def test_duplicate_keys_later_row_wins_and_is_reported(tmp_path, caplog, capsys):
    rows = pinned_rows()
    # The run was resumed: task 1's rollouts were redone and now pass.
    redo = [row(1, r, 1.0) for r in range(4)]
    path = write(tmp_path / "rollouts.jsonl", rows + redo)
    with caplog.at_level("INFO", logger="gym"):
        run(tmp_path, f"rollouts={path}")
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["inputs"]["duplicates_dropped"] == 4
    assert metrics["inputs"]["duplicates_reward_changed"] == 4
    assert metrics["benchmarks"]["gsm8k"]["pass@1"]["value"] == pytest.approx(83.3333)
    assert "4 key(s) had different rewards" in caplog.text
    assert "4 duplicate row(s) dropped by key, the last row wins (4 key(s) with different rewards)" in \
        capsys.readouterr().out


def test_rollouts_or_compare_required(tmp_path):
    with pytest.raises(GymError, match="rollouts=.* is required"):
        run(tmp_path)
    path = write(tmp_path / "rollouts.jsonl", pinned_rows())
    with pytest.raises(GymError, match="not both"):
        run(tmp_path, f"rollouts={path}", f"compare=[{path},{path}]")
    with pytest.raises(GymError, match="list of two"):
        run(tmp_path, f"compare=[{path}]")


def _simulated(path: Path, accuracy: float, model: str, seed: int, tasks: int = 200):
    rng = np.random.default_rng(seed)
    difficulty = np.clip(accuracy + 0.2 * np.random.default_rng(99).standard_normal(tasks), 0, 1)
    rows = [row(t, r, float(rng.random() < difficulty[t]), model=model) for t in range(tasks) for r in range(4)]
    return write(path, rows)


def test_compare_mode(tmp_path, capsys):
    a = _simulated(tmp_path / "a" / "rollouts.jsonl", 0.55, "base", 1)
    b = _simulated(tmp_path / "b" / "rollouts.jsonl", 0.70, "tuned", 2)
    summary, out = run(tmp_path, f"compare=[{a.parent},{b.parent}]")
    result = json.loads((out / "compare.json").read_text())
    assert result["scale"] == "percent" and "paired bootstrap" in result["test"]
    entry = result["benchmarks"]["gsm8k"]
    assert entry["model_a"] == "base" and entry["model_b"] == "tuned" and entry["paired_tasks"] == 200
    assert entry["metrics"]["pass@1"]["diff"] > 5 and entry["metrics"]["pass@1"]["p_value"] < 0.05
    flipped = entry["flipped"]
    assert flipped["solved_in_b_only"] and isinstance(flipped["solved_in_a_only"], list)
    printed = capsys.readouterr().out
    assert "B-A" in printed and "solved in B only" in printed
    assert summary["benchmarks"] == ["gsm8k"]


def test_compare_needs_a_shared_benchmark(tmp_path):
    a = write(tmp_path / "a" / "rollouts.jsonl", pinned_rows())
    b = write(tmp_path / "b" / "rollouts.jsonl", pinned_rows(benchmark="aime24"))
    with pytest.raises(GymError, match="share no benchmark"):
        run(tmp_path, f"compare=[{a},{b}]")


def test_cli_error_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "gym", "task=aggregate", f"rollouts={tmp_path}/nothing*.jsonl",
                           f"hydra.run.dir={tmp_path / 'cli'}"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"gym: error: rollouts: no rollout files matched '{tmp_path}/nothing*.jsonl'" in proc.stderr
