"""task=profile through a composed config: per-task profile, completion, selection, plots, report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.tasks import profile as profile_task

REWARDS = {0: [1, 1, 1, 1], 1: [0, 0, 0, 0], 2: [1, 0, 1, 0], 3: [1, 0, 0, 0], 4: [1, 1, 1, 0]}


def row(task, rollout, reward, status="ok", benchmark="gsm8k", model="m", response="The answer is 1."):
    return {"benchmark": benchmark, "model": model, "task_index": task, "rollout_index": rollout,
            "key": f"{benchmark}-{model}-{task}-{rollout}", "status": status,
            "reward": None if status == "infra_error" else float(reward),
            "extracted_answer": str(reward) if status == "ok" else None, "expected_answer": "1",
            "prompt": [{"role": "user", "content": f"Question {task}?"}], "response": response,
            "reasoning": None, "verifier": {}, "error": None, "attempts": 1, "latency_s": 0.5,
            "finish_reason": "stop", "usage": {"prompt_tokens": 10 + task, "completion_tokens": 20, "total_tokens": 30},
            "time": "t"}


def rows_for(rewards=REWARDS, **kw):
    return [row(t, r, v, **kw) for t, vals in rewards.items() for r, v in enumerate(vals)]


def write(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def prepared_file(path: Path, n: int = 5) -> Path:
    rows = [{"question": f"Question {i}?", "expected_answer": str(i), "options": {"A": "x", "B": "y"},
             "metadata": {"id": f"t{i}"}} for i in range(n)]
    return write(path, rows)


def run(tmp_path, *overrides):
    out = tmp_path / "out"
    cfg = compose(["task=profile", f"+run_dir={out}", *overrides])
    return profile_task.run(cfg), out


def read_jsonl(path: Path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_profile_outputs(tmp_path, capsys):
    path = write(tmp_path / "run" / "rollouts.jsonl", rows_for())
    summary, out = run(tmp_path, f"rollouts={path.parent}")
    profile = {r["task_index"]: r for r in read_jsonl(out / "reward_profile.jsonl")}
    assert sorted(profile) == [0, 1, 2, 3, 4]
    assert [profile[t]["bucket"] for t in range(5)] == ["solved", "unsolved", "medium", "hard", "easy"]
    t2 = profile[2]
    assert t2["rollouts"] == 4 and t2["expected_rollouts"] == 4 and t2["complete"] is True
    assert t2["pass_rate"] == 50.0 and t2["reward"]["mean"] == 0.5 and t2["reward"]["median"] == 0.5
    assert t2["reward"]["std"] == pytest.approx(0.57735, abs=1e-5)  # sample std
    assert t2["pass@k"] == {"1": 50.0, "2": pytest.approx(83.3333), "4": 100.0}
    assert t2["tokens"] == {"prompt_mean": 12.0, "completion_mean": 20.0}

    summ = json.loads((out / "profile_summary.json").read_text())
    assert summ["scale"] == "percent"
    assert summ["completion"]["total"] == {"expected_rollouts": 20, "completed_rollouts": 20, "tasks": 5,
                                           "complete_tasks": 5, "partial_tasks": 0, "missing_tasks": 0,
                                           "completion_pct": 100.0}
    group = summ["benchmarks"]["gsm8k"]
    assert group["buckets"] == {"unsolved": 1, "hard": 1, "medium": 1, "easy": 1, "solved": 1}
    assert group["pass_rate"]["mean"] == 50.0 and group["pass@1"]["value"] == 50.0
    assert group["pass@k"]["4"]["value"] == 80.0
    assert summ["overall"]["tasks"] == 5
    assert summary["tasks"] == 5 and summary["completion_pct"] == 100.0

    for png in ("pass_rate_hist.png", "pass_at_k.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 2
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing fetched from elsewhere
    assert "Question 2?" in html and "Sample responses per bucket" in html
    printed = capsys.readouterr().out
    assert "completion: 20/20 rollouts (100.00%)" in printed and "unsolved" in printed


def test_report_escapes_model_text(tmp_path):
    evil = "<script>alert('x')</script> & <b>bold</b>"
    path = write(tmp_path / "rollouts.jsonl", rows_for({0: [1, 0], 1: [0, 0]}, response=evil))
    _, out = run(tmp_path, f"rollouts={path}", "plots=false")
    html = (out / "report.html").read_text()
    assert "<script>alert" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in html
    assert not (out / "pass_at_k.png").exists()


def test_plots_and_report_can_be_skipped(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", rows_for())
    summary, out = run(tmp_path, f"rollouts={path}", "plots=false", "report=false")
    assert sorted(p.name for p in out.iterdir()) == ["profile_summary.json", "reward_profile.jsonl"]
    assert set(summary["files"]) == {"reward_profile", "profile_summary"}


def test_bucket_edges_are_configurable(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", rows_for())
    _, out = run(tmp_path, f"rollouts={path}", "buckets.hard_max=0.5", "buckets.easy_min=0.8")
    buckets = {r["task_index"]: r["bucket"] for r in read_jsonl(out / "reward_profile.jsonl")}
    assert buckets == {0: "solved", 1: "unsolved", 2: "hard", 3: "hard", 4: "medium"}


def test_partial_tasks_need_allow_partial(tmp_path):
    rows = rows_for()
    rows = [r for r in rows if not (r["task_index"] == 2 and r["rollout_index"] == 3)]
    rows += [row(5, 0, 0, status="infra_error"), row(3, 3, 0, status="infra_error")]
    rows = [r for r in rows if not (r["task_index"] == 3 and r["rollout_index"] == 3 and r["status"] == "ok")]
    path = write(tmp_path / "rollouts.jsonl", rows)
    with pytest.raises(GymError) as err:
        run(tmp_path, f"rollouts={path}")
    message = str(err.value)
    assert "allow_partial=true" in message
    assert "2 of 6 task(s) are partial" in message and "1 have none" in message and "18/24 rollouts" in message

    _, out = run(tmp_path, f"rollouts={path}", "allow_partial=true")
    profile = {r["task_index"]: r for r in read_jsonl(out / "reward_profile.jsonl")}
    assert sorted(profile) == [0, 1, 2, 3, 4]  # task 5 has no scored rollout: dropped
    assert profile[2]["complete"] is False and profile[2]["rollouts"] == 3
    assert profile[3]["infra_errors"] == 1 and "4" not in profile[3]["pass@k"]
    summ = json.loads((out / "profile_summary.json").read_text())
    total = summ["completion"]["total"]
    assert (total["complete_tasks"], total["partial_tasks"], total["missing_tasks"]) == (3, 2, 1)
    pass_k = summ["benchmarks"]["gsm8k"]["pass@k"]
    assert pass_k["1"]["tasks"] == 5 and pass_k["4"]["tasks"] == 3  # partial tasks have no pass@4


def test_expected_repeats_knob(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", rows_for())
    with pytest.raises(GymError, match="5 of 5 task"):
        run(tmp_path, f"rollouts={path}", "expected_repeats=8")
    with pytest.raises(GymError, match="expected_repeats must be"):
        run(tmp_path, f"rollouts={path}", "expected_repeats=0")


def test_selection_exports_prepared_rows(tmp_path):
    prepared = prepared_file(tmp_path / "data" / "gsm8k" / "gsm8k.jsonl")
    path = write(tmp_path / "rollouts.jsonl", rows_for() + rows_for(model="other"))
    # Default prepared path: ${data.root}/<benchmark>/<benchmark>.jsonl
    summary, out = run(tmp_path, f"rollouts={path}", f"data.root={tmp_path / 'data'}", "select.buckets=[hard,medium]")
    selected = read_jsonl(out / "selected_tasks.jsonl")
    originals = read_jsonl(prepared)
    assert selected == [originals[2], originals[3]]  # once each although two models picked them
    assert summary["selected"] == 2
    sel = json.loads((out / "profile_summary.json").read_text())["selection"]
    assert sel["criteria"]["buckets"] == ["hard", "medium"] and sel["prepared"] == {"gsm8k": str(prepared)}
    assert sel["rule"] == "bucket in hard, medium"

    other = prepared_file(tmp_path / "elsewhere.jsonl")
    _, out = run(tmp_path, f"rollouts={path}", f"prepared={other}", "select.min_pass_rate=0.5",
                 "select.max_pass_rate=0.75")
    assert [r["metadata"]["id"] for r in read_jsonl(out / "selected_tasks.jsonl")] == ["t2", "t4"]
    _, out = run(tmp_path, f"rollouts={path}", f"+prepared.gsm8k={other}", "select.min_pass_rate=1")
    assert [r["metadata"]["id"] for r in read_jsonl(out / "selected_tasks.jsonl")] == ["t0"]


def test_selection_errors(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", rows_for())
    missing = tmp_path / "data" / "gsm8k" / "gsm8k.jsonl"
    with pytest.raises(GymError, match=rf"prepared file for benchmark 'gsm8k' not found: {missing}"):
        run(tmp_path, f"rollouts={path}", f"data.root={tmp_path / 'data'}", "select.buckets=[solved]")
    short = prepared_file(tmp_path / "short.jsonl", n=3)
    with pytest.raises(GymError, match="has no row for task_index 4"):
        run(tmp_path, f"rollouts={path}", f"prepared={short}", "select.buckets=[easy]")


@pytest.mark.parametrize("override, message", [
    ("select.min_pass_rate=1.5", r"select.min_pass_rate must be in \[0, 1\]"),
    ("select.max_pass_rate=-0.1", r"select.max_pass_rate must be in \[0, 1\]"),
    ("select.buckets=[medum]", "unknown bucket 'medum' \\(did you mean medium"),
    ("buckets.hard_max=0.9", "must not exceed buckets.easy_min"),
    ("buckets.easy_min=1", "strictly between 0 and 1"),
    ("allow_partial=maybe", "allow_partial must be true or false"),
])
def test_bad_knobs_fail_before_reading(tmp_path, override, message):
    with pytest.raises(GymError, match=message):
        run(tmp_path, f"rollouts={tmp_path / 'does-not-exist.jsonl'}", override)


def test_min_above_max(tmp_path):
    with pytest.raises(GymError, match="is above select.max_pass_rate"):
        run(tmp_path, f"rollouts={tmp_path}/x.jsonl", "select.min_pass_rate=0.8", "select.max_pass_rate=0.2")


def test_several_benchmarks_profiled_separately(tmp_path):
    path = write(tmp_path / "rollouts.jsonl", rows_for() + rows_for({0: [1, 1], 1: [0, 1]}, benchmark="aime24"))
    _, out = run(tmp_path, f"rollouts={path}")
    summ = json.loads((out / "profile_summary.json").read_text())
    assert set(summ["benchmarks"]) == {"gsm8k", "aime24"}
    assert summ["benchmarks"]["aime24"]["tasks"] == 2 and summ["overall"]["tasks"] == 7
    expected = {c["benchmark"]: c["expected_repeats"] for c in summ["completion"]["groups"]}
    assert expected == {"gsm8k": 4, "aime24": 2}
