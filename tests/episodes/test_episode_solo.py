"""Solo mode (user=none): the agent works a τ² task's ticket alone, by tool calls, and ends with `done`.

Upstream's solo agent takes 7 of the mock domain's 10 tasks; its evaluator gives the gold calls followed
by `done` reward 1 on 5 of them (tests/episodes/test_tau2_parity.py pins each task against upstream's values).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.tasks import run_task
from tests.conftest import assert_clean_failure, run_gym
from tests.rollouts.test_episode_collect import MIRROR, rows_of, run_collect, tau2_mock, tau2_retail  # noqa: F401

SOLO_TASKS, SOLVED = 7, 5


def test_solo_mode_from_the_command_line(tau2_mock, tmp_path):  # noqa: F811
    result = run_gym("task=e2e", "benchmark=tau2_mock", "model=mock", "user=none", "model.mock.accuracy=1.0",
                     "num_repeats=2", MIRROR, "data.offline=true", f"hydra.run.dir={tmp_path}",
                     env={"GYM_DATA_DIR": str(tau2_mock.parent.parent)})
    assert result.returncode == 0, result.stderr
    assert "tasks not sent: 3 (no solo mode for this task" in result.stdout
    assert "no simulated user: solo mode" in result.stdout
    entry = json.loads((tmp_path / "metrics.json").read_text())["benchmarks"]["tau2_mock"]
    assert entry["pass^k"]["1"]["value"] == pytest.approx(100 * SOLVED / SOLO_TASKS)
    assert entry["family_metrics"]["terminations"]["agent_stop"]["count"] == 2 * SOLO_TASKS
    run_json = json.loads((tmp_path / "run.json").read_text())
    assert run_json["endpoint"]["user"]["kind"] == "none" and run_json["tasks_not_sent"]
    rows = rows_of(tmp_path / "rollouts.jsonl")
    assert all(m["role"] != "user" for r in rows for m in r["trajectory"])
    assert all(r["trajectory"][-1] == {"role": "assistant", "content": "###STOP###"} for r in rows)


@pytest.mark.parametrize("api", ["chat", "responses", "completions"])
def test_solo_episodes_in_every_wire_format_and_reverify(tau2_mock, tmp_path, api):  # noqa: F811
    summary = run_collect(tmp_path / "run", "user=none", "num_repeats=1", "model.mock.accuracy=1.0", f"model.api={api}")
    assert summary["counts"] == {"ok": SOLO_TASKS} and summary["episodes"]["terminations"] == {"agent_stop": SOLO_TASKS}
    rows = rows_of(tmp_path / "run" / "rollouts.jsonl")
    assert sum(r["reward"] for r in rows) == SOLVED
    assert all(r["episode"]["user_turns"] == 0 and r["episode"]["tool_calls"] >= 1 for r in rows)
    cfg = compose(["task=reverify", f"rollouts={tmp_path / 'run'}", f"+run_dir={tmp_path / 'rev'}"])
    run_task("reverify", cfg)
    after = {r["key"]: r["reward"] for r in rows_of(tmp_path / "rev" / "rollouts.jsonl")}
    assert after == {r["key"]: r["reward"] for r in rows}


def test_a_reply_without_tool_calls_is_an_agent_error(tau2_mock, tmp_path):  # noqa: F811
    summary = run_collect(tmp_path, "user=none", "num_repeats=1", "model.mock.accuracy=0.0")
    assert summary["episodes"]["terminations"] == {"agent_error": SOLO_TASKS}
    assert all(r["reward"] == 0.0 and r["status"] == "ok" for r in rows_of(tmp_path / "rollouts.jsonl"))


def test_solo_and_user_runs_are_different_experiments(tau2_mock, tmp_path):  # noqa: F811
    run_collect(tmp_path, "user=mock", "num_repeats=1", "model.mock.accuracy=1.0")
    summary = run_collect(tmp_path, "user=none", "num_repeats=1", "model.mock.accuracy=1.0")
    assert summary["skipped_done"] == 0 and summary["ran"] == SOLO_TASKS  # nothing resumed across the modes


def test_a_benchmark_without_solo_tasks_stops_in_one_line(tau2_retail, tmp_path):  # noqa: F811
    result = run_gym("task=collect", "benchmark=tau2_retail", "model=mock", "user=none", MIRROR,
                     "data.offline=true", f"hydra.run.dir={tmp_path}",
                     env={"GYM_DATA_DIR": str(Path(tau2_retail).parent.parent)})
    assert_clean_failure(result, "none of the 40 tasks", "solo mode")


def test_only_the_done_call_stops_a_solo_episode(tau2_mock):  # noqa: F811
    """A stop token written as text is still a reply without calls: agent_error, as upstream's solo agent
    refuses it; `done` beside other calls stops at once and the other calls are dropped, as upstream."""
    from gym.episodes.base import Limits, Turn
    from gym.episodes.loop import EpisodeRunner
    from gym.episodes.tau2.env import Tau2Environment
    from gym.toolcalls import ToolCall

    env = Tau2Environment(tau2_mock)
    row = next(r for r in rows_of(tau2_mock) if r.get("solo_system_prompt"))
    said = EpisodeRunner(env, lambda messages, tools: Turn(text="###STOP###"), None, Limits()).run(row, 0)
    assert said.termination == "agent_error" and said.tool_calls == 0
    both = [ToolCall("get_users", {}, None, "a"), ToolCall("done", {}, None, "b")]
    done = EpisodeRunner(env, lambda messages, tools: Turn(tool_calls=both), None, Limits()).run(row, 0)
    assert done.termination == "agent_stop" and done.tool_calls == 0
    assert done.trajectory[-1] == {"role": "assistant", "content": "###STOP###"}
