"""The episode loop on the τ² mock domain with in-process agents and users, and pass^k arithmetic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gym.episodes.agents import GoldAgent
from gym.episodes.base import Limits, Turn
from gym.episodes.loop import EpisodeRunner
from gym.episodes.passk import pass_hat_k
from gym.episodes.tau2.env import Tau2Environment
from gym.episodes.users import MockUser
from gym.toolcalls import ToolCall
from tests.episodes.test_tau2_parity import prepared


@pytest.fixture(scope="module")
def mock_data(tmp_path_factory):
    path = prepared(tmp_path_factory, "mock")
    return path, [json.loads(line) for line in path.read_text().splitlines()]


def run(path: Path, row: dict, agent, limits: Limits = Limits()):
    env = Tau2Environment(path)
    episode = EpisodeRunner(env, agent, MockUser(), limits).run(row, seed=0)
    return episode, env.score(row, episode.trajectory, episode.termination)


def test_gold_agent_with_mock_user_scores_as_upstream_gold(mock_data):
    path, rows = mock_data
    rewards = {}
    for row in rows:
        episode, score = run(path, row, GoldAgent(row))
        assert episode.status == "ok" and episode.termination == "user_stop", episode.trajectory
        rewards[row["task_id"]] = score.reward
    expected = json.loads((Path(__file__).parents[1] / "fixtures/tau2_expected/mock.json").read_text())["tasks"]
    # The mock user also does the user-side part the gold leaves out: update_task_with_user_tools has none
    # listed, so it still fails as upstream's gold replay does.
    assert rewards == {task: cases["gold"]["reward"] for task, cases in expected.items()}


def test_trajectory_is_chat_messages_with_tool_calls(mock_data):
    path, rows = mock_data
    row = next(r for r in rows if r["task_id"] == "create_task_1")
    episode, score = run(path, row, GoldAgent(row))
    roles = [m["role"] for m in episode.trajectory]
    assert roles == ["system", "assistant", "user", "assistant", "tool", "assistant", "user"]
    call = episode.trajectory[3]["tool_calls"][0]
    assert call["function"]["name"] == "create_task" and json.loads(call["function"]["arguments"])["title"]
    assert episode.trajectory[4]["tool_call_id"] == call["id"]
    assert json.loads(episode.trajectory[4]["content"])["task_id"] == "task_2"
    # steps as τ² counts them: user, agent call, tool results, agent text, user stop
    assert (episode.steps, episode.agent_turns, episode.tool_calls, episode.tool_errors) == (5, 2, 1, 0)
    assert score.reward == 1.0


def test_refusing_agent_fails_write_tasks(mock_data):
    path, rows = mock_data
    row = next(r for r in rows if r["task_id"] == "update_task_1")
    episode, score = run(path, row, GoldAgent(row, right=False))
    assert episode.termination == "user_stop" and score.reward == 0.0 and score.details["db_match"] is False


def looping_agent(name: str, arguments: dict):
    def agent(messages, tools):
        return Turn(tool_calls=[ToolCall(name, arguments)])
    return agent


def test_max_steps_ends_the_episode_and_scores_zero(mock_data):
    path, rows = mock_data
    row = rows[0]
    episode, score = run(path, row, looping_agent("get_users", {}), Limits(max_steps=9))
    assert episode.termination == "max_steps" and episode.steps == 9 and score.reward == 0.0


def test_tool_errors_end_the_episode_at_max_errors(mock_data):
    path, rows = mock_data
    row = rows[0]
    episode, score = run(path, row, looping_agent("update_task_status", {"task_id": "nope", "status": "x"}),
                         Limits(max_errors=3))
    assert episode.termination == "too_many_errors" and episode.tool_errors == 3 and score.reward == 0.0
    assert episode.trajectory[-1]["content"] == "Error: Task nope not found"


def test_unknown_tool_and_bad_arguments_are_error_outputs(mock_data):
    path, rows = mock_data
    calls = iter([[ToolCall("no_such_tool", {})], [ToolCall("create_task", None, "{oops")]])

    def finishing(messages, tools):
        batch = next(calls, None)
        return Turn(tool_calls=batch) if batch else Turn(text="Done.")

    episode, _ = run(path, rows[0], finishing)
    tools = [m["content"] for m in episode.trajectory if m["role"] == "tool"]
    assert tools[0] == "Error: Tool 'no_such_tool' not found." and tools[1].startswith("Error:")
    assert episode.tool_errors == 2 and episode.unknown_tools == 1 and episode.termination == "user_stop"


def test_agent_infra_error_is_an_unfinished_episode(mock_data):
    path, rows = mock_data
    episode, _ = run(path, rows[0], lambda m, t: Turn(status="infra_error", error="HTTP 503"))
    assert episode.status == "infra_error" and episode.termination == "infrastructure_error"


def test_agent_limit_on_its_own_turns(mock_data):
    path, rows = mock_data
    episode, score = run(path, rows[0], looping_agent("get_users", {}), Limits(max_agent_steps=2))
    assert episode.agent_turns == 2 and episode.termination == "max_steps" and score.reward == 0.0


def test_pass_hat_k_arithmetic():
    # n=4 tries, c=2 successes: pass^1 = 2/4, pass^2 = C(2,2)/C(4,2) = 1/6, pass^3 = pass^4 = 0
    values = pass_hat_k({"t": [1, 0, 1, 0.0]})
    assert values[1] == pytest.approx(0.5) and values[2] == pytest.approx(1 / 6)
    assert values[3] == 0.0 and values[4] == 0.0
    # success is reward 1 within 1e-6; mean over tasks; k up to the smallest count
    mixed = pass_hat_k({"a": [1 - 1e-7, 1.0, 1.0], "b": [0.999, 1.0]})
    assert sorted(mixed) == [1, 2] and mixed[1] == pytest.approx((1 + 0.5) / 2) and mixed[2] == pytest.approx(0.5)


def test_trajectory_round_trips_through_responses_items(mock_data):
    from gym.episodes.export import items_to_trajectory, trajectory_items

    path, rows = mock_data
    for row in rows:
        episode, _ = run(path, row, GoldAgent(row))
        inputs, output = trajectory_items(episode.trajectory)
        assert inputs[0]["role"] == "system" and {i["type"] for i in output} <= {
            "message", "function_call", "function_call_output"}
        assert items_to_trajectory(inputs, output) == episode.trajectory


def test_episode_metrics_from_rows():
    from gym.episodes.metrics import episode_metrics, macro_average
    from gym.metrics.compute import mean_ci

    def row(task, reward, termination="user_stop", tools=1):
        return {"status": "ok", "task_index": task, "reward": reward, "verifier": {"db_match": reward == 1.0},
                "episode": {"termination": termination, "steps": 5, "tool_calls": tools, "transfers": 0,
                            "user_usage": {"total_tokens": 10}}}

    rows = [row(0, 1.0), row(0, 0.0), row(0, 1.0), row(0, 0.0, "max_steps", 0),
            row(1, 1.0), row(1, 1.0), row(1, 1.0), row(1, 1.0), {"status": "infra_error", "task_index": 1}]
    m = episode_metrics(rows, mean_ci)
    assert m["k_values"] == [1, 2, 3, 4]
    assert m["pass^k"]["1"]["value"] == pytest.approx(100 * (0.5 + 1) / 2)
    assert m["pass^k"]["2"]["value"] == pytest.approx(100 * (1 / 6 + 1) / 2)
    assert m["terminations"]["max_steps"]["count"] == 1 and m["db_match_rate"] == pytest.approx(75.0)
    assert m["user_tokens"]["total"] == 80 and m["no_tool_call_rate"] == pytest.approx(12.5)
    macro = macro_average([m, {"pass^k": {"1": {"value": 50.0}, "2": {"value": 10.0}}}])
    assert macro["pass^k"]["1"] == pytest.approx((75.0 + 50.0) / 2) and set(macro["pass^k"]) == {"1", "2"}


def test_family_line_reads_rates_as_percentages_and_says_n_a_where_no_episode_had_the_check():
    from gym.episodes.metrics import episode_metrics
    from gym.metrics.compute import mean_ci
    from gym.verifiers.episode import episode_text

    rows = [{"status": "ok", "task_index": task, "reward": reward, "verifier": {"db_match": reward == 1.0},
             "episode": {"termination": "user_stop", "steps": 4, "tool_calls": 1, "transfers": 0}}
            for task, reward in ((0, 1.0), (1, 0.0), (2, 0.0))]
    metrics = episode_metrics(rows, mean_ci)
    line = episode_text({"family_metrics": metrics, "pass^k": metrics["pass^k"]})
    assert "DB match 33.33%, communicate n/a" in line and "transfers 0.00%" in line
