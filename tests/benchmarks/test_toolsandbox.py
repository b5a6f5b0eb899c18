"""benchmark=toolsandbox: prepare, the environment's episode plumbing (user view, end_conversation, not sent),
the world's snapshots and the commands the docs show. Parity with upstream: tests/episodes/test_toolsandbox_parity.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gym.episodes.base import Limits, Turn
from gym.episodes.loop import EpisodeRunner
from gym.episodes.toolsandbox.env import ToolSandboxEnvironment
from gym.episodes.toolsandbox.world import CONTACT, SETTING, World
from gym.toolcalls import ToolCall
from tests.conftest import run_gym

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "data.mirror=tests/fixtures/upstream"


def gym(*args: str) -> subprocess.CompletedProcess:
    return run_gym(*args, timeout=600)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("data")
    done = gym("task=prepare", "benchmark=toolsandbox", MIRROR, f"data.root={root}")
    assert done.returncode == 0, done.stderr[-2000:]
    path = root / "toolsandbox" / "toolsandbox.jsonl"
    rows = {r["scenario"]: r for r in map(json.loads, path.read_text().splitlines())}
    return path, rows


def test_prepare_writes_one_row_per_named_scenario(prepared):
    """One row per scenario of upstream's registry (1,032, as the reference); the 517 that offer a
    RapidAPI tool carry why they are not sent: 272 need one, 245 offer them as distractions."""
    path, rows = prepared
    assert len(rows) == 1032
    reasons = [r["not_sent"] for r in rows.values() if r["not_sent"]]
    assert len(reasons) == 517
    assert sum("distractions" in r for r in reasons) == 245
    assert rows["cellular_off"]["question"] == "Turn off cellular"
    assert rows["cellular_off"]["task"]["evaluation_criteria"]["actions"] == [
        {"name": "set_cellular_service_status", "arguments": {"on": False}, "requestor": "assistant"}]
    assert (path.parent / "toolsandbox.scenarios.json.gz").is_file()
    manifest = json.loads((path.parent / "manifest.json").read_text())
    assert any("apple/ToolSandbox" in s for s in manifest["sources"])


def test_prepare_with_a_missing_scenario_file_is_one_line(tmp_path):
    done = gym("task=prepare", "benchmark=toolsandbox", MIRROR, f"data.root={tmp_path}",
               f"benchmark.dataset.prepare_args.scenarios={tmp_path}/nothing.json.gz")
    assert done.returncode != 0
    assert "no scenario file" in done.stderr and "Traceback" not in done.stderr


def _runner(env: ToolSandboxEnvironment, agent, user) -> EpisodeRunner:
    return EpisodeRunner(env, agent, user, Limits(max_steps=40))


def test_an_episode_ends_on_the_users_end_conversation_and_scores_the_world(prepared):
    """The agent turns cellular off and says so; the simulated user (shown upstream's few-shot examples
    and the scenario's prompt) calls end_conversation: user_stop, similarity 1 as upstream scores it."""
    path, rows = prepared
    env = ToolSandboxEnvironment(path)
    row = rows["cellular_off"]
    seen: list[list[dict]] = []

    def agent(messages, tools):
        assert {t["name"] for t in tools} >= {"set_cellular_service_status"}
        if not any(m.get("role") == "tool" for m in messages):
            return Turn(tool_calls=[ToolCall("set_cellular_service_status", {"on": False}, None, "call_0")])
        return Turn(text="Cellular service is turned off")

    def user(view, tools, row, seed=None):
        seen.append(view)
        assert [t["name"] for t in tools] == ["end_conversation"]
        return Turn(tool_calls=[ToolCall("end_conversation", {}, None, "user_0")])

    episode = _runner(env, agent, user).run(row)
    assert episode.termination == "user_stop"
    view = seen[0]
    assert view[0]["role"] == "system" and "role play as a user" in view[0]["content"]
    assert any(m["content"] == row["user_system_prompt"] for m in view if m["role"] == "system")
    assert view[-2:] == [{"role": "assistant", "content": "Turn off cellular"},
                         {"role": "user", "content": "Cellular service is turned off"}]
    assert episode.state.world.rows(SETTING)[0]["cellular"] is False
    assert env.call(episode.state, "get_wifi_status", {}).content == "Error: unknown tool 'get_wifi_status'"
    score = env.score(row, episode.trajectory, episode.termination)
    assert score.reward == 1.0 and score.details["milestone_mapping"] == {"0": [17, 1.0], "1": [18, 1.0]}


def test_a_matched_minefield_zeroes_the_episode(prepared):
    """An insufficient-information scenario's minefield: an agent message to the console that names
    timestamp_diff (the call's Python code, as upstream writes it). Making the call zeroes the episode."""
    path, rows = prepared
    env = ToolSandboxEnvironment(path)
    name = "find_days_till_holiday_insufficient_information"
    scenario = env.scenario(rows[name])
    target = scenario.world["minefields"]["nodes"][0]["constraints"][0]["target"]["rows"][0]
    assert target == {"sender": "AGENT", "recipient": "EXECUTION_ENVIRONMENT", "content": "timestamp_diff"}
    calls = [{"id": "call_0", "type": "function", "function": {
        "name": "timestamp_diff", "arguments": json.dumps({"timestamp_0": 1722859200.0, "timestamp_1": 1722945600.0})}}]
    base = env.initial_messages(rows[name])
    said = base + [{"role": "assistant", "content": "I cannot find that holiday."},
                   {"role": "user", "content": "###STOP###"}]
    called = base + [{"role": "assistant", "content": None, "tool_calls": calls},
                     {"role": "tool", "tool_call_id": "call_0", "content": ""}] + said[len(base):]
    assert env.score(rows[name], said, "user_stop").details["minefield_similarity"] == 0
    hit = env.score(rows[name], called, "user_stop")
    assert hit.details["minefield_similarity"] > 0 and hit.reward == 0


def test_scenarios_that_offer_rapid_api_are_not_sent(prepared):
    from gym.core.errors import TaskNotSent

    path, rows = prepared
    env = ToolSandboxEnvironment(path)
    row = next(r for r in rows.values() if r["not_sent"])
    with pytest.raises(TaskNotSent, match="RapidAPI"):
        env.initial_messages(row)


def test_world_snapshots_land_at_the_answer_index():
    """A write while message k is answered makes snapshot k+1; earlier indices read the state before."""
    world = World.start(0.0, [{"sender": "USER", "recipient": "AGENT", "content": "hi"}],
                        {SETTING: [{"device_id": "d", "wifi": True}], CONTACT: []})
    world.replace(SETTING, [dict(world.rows(SETTING)[0], wifi=False)])
    world.add(CONTACT, [{"name": "A", "phone_number": "+1"}])
    assert world.rows(SETTING, 0)[0]["wifi"] is True and world.rows(SETTING, 1)[0]["wifi"] is False
    assert world.rows(CONTACT, 0) == [] and world.rows(CONTACT)[0]["name"] == "A"
    with pytest.raises(ValueError, match="all None"):
        world.add(CONTACT, [{}])


def test_e2e_offline_through_the_command_line(tmp_path):
    """The documented offline run: prepare from the fixture mirror, the reference agent plays the
    gold-ish script (always, at accuracy 1), the mock user ends; the six sent variants of the first
    scenario score 1 as upstream scores their gold; RapidAPI scenarios are counted as not sent."""
    done = gym("task=e2e", "benchmark=toolsandbox", "model=mock", "user=mock", MIRROR, "model.mock.accuracy=1.0",
               f"data.root={tmp_path}/data", f"output={tmp_path}/rollouts.jsonl", "limit=8", "progress=false")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all(r["status"] == "ok" for r in rows)
    assert [r["reward"] for r in rows] == [1.0] * 6
    assert "tasks not sent: 2 (offers RapidAPI search tools as distractions" in done.stdout + done.stderr
    again = gym("task=reverify", f"rollouts={tmp_path}/rollouts.jsonl", f"data.root={tmp_path}/data",
                f"hydra.run.dir={tmp_path}/rev")
    assert again.returncode == 0, again.stderr[-2000:]
    report = json.loads((tmp_path / "rev" / "reverify.json").read_text())
    assert report["reverified"] == len(rows) and report["changed"] == 0


def test_model_and_user_over_endpoints(prepared, tmp_path):
    """model=vllm user=vllm, the reference server standing in for both endpoints: the user simulator is
    sent upstream's few-shot examples and the scenario's prompt, and its stop ends each episode."""
    from gym.mock.server import MockServer

    path, _ = prepared
    with MockServer(data_paths=[path], accuracy=1.0) as server:
        done = gym("task=e2e", "benchmark=toolsandbox", "model=vllm", f"model.base_url={server.base_url}",
                   "model.name=gym-mock", "user=vllm", f"user.base_url={server.base_url}", "user.name=gym-mock",
                   f"data.root={path.parent.parent}", f"output={tmp_path}/rollouts.jsonl", "limit=8", "progress=false")
        answered = server.stats["answers"].get("episode_turn", 0)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all(r["episode"]["termination"] == "user_stop" for r in rows)
    assert min(r["reward"] for r in rows) > 0.9
    assert answered == sum(r["episode"]["agent_turns"] + r["episode"]["user_turns"] for r in rows)


def test_parallel_calls_run_in_every_order_live(prepared):
    """Two calls in one message that only work in the order asked (cellular on, then send): upstream runs
    every order, and the failing one gives the answers, in its order, and the world. Live as on replay."""
    path, rows = prepared
    env = ToolSandboxEnvironment(path)
    row = rows["send_message_with_contact_content_cellular_off"]
    calls = [ToolCall("set_cellular_service_status", {"on": True}, None, "call_on"),
             ToolCall("send_message_with_phone_number", {"phone_number": "+12453344098", "content": "Hi"}, None,
                      "call_send")]
    replies = iter([Turn(tool_calls=calls), Turn(text="Sent.")])

    def user(view, tools, row, seed=None):
        return Turn(text="Thanks. ###STOP###")

    episode = _runner(env, lambda messages, tools: next(replies), user).run(row)
    answers = [m for m in episode.trajectory if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answers] == ["call_send", "call_on"]
    assert answers[0]["content"] == "ConnectionError: Cellular service is not enabled"
    world = episode.state.world
    assert world.rows(SETTING)[0]["cellular"] is True and len(world.rows("MESSAGING")) == 5
    replayed = env.replay(row, episode.trajectory)
    assert [m["content"] for m in replayed.messages if m["sender"] == "EXECUTION_ENVIRONMENT"][:2] == [
        a["content"] for a in answers]


def test_messages_beyond_upstreams_cap_are_not_scored(prepared):
    """Upstream stops a conversation at max_messages (30) new messages; a longer trajectory is scored on
    what upstream would have seen: the call that comes too late does not count."""
    path, rows = prepared
    env = ToolSandboxEnvironment(path)
    row = rows["cellular_off"]
    opening = env.initial_messages(row)
    chatter = [{"role": "assistant", "content": "Let me think."}, {"role": "user", "content": "Sure."}] * 15
    late = [{"role": "assistant", "content": None, "tool_calls": [{"id": "call_0", "type": "function", "function": {
        "name": "set_cellular_service_status", "arguments": '{"on": false}'}}]},
            {"role": "tool", "tool_call_id": "call_0", "content": "None"},
            {"role": "assistant", "content": "Cellular service is turned off"}, {"role": "user", "content": "###STOP###"}]
    assert env.score(row, opening + late, "user_stop").reward == 1.0
    capped = env.replay(row, opening + chatter + late)
    assert capped.max_index == env.replay(row, opening).max_index + 30
    assert env.score(row, opening + chatter + late, "max_steps").reward < 1.0


def test_an_episode_ends_at_upstreams_message_cap(prepared):
    """An agent that never stops talking: the episode ends after 30 new messages, as upstream's."""
    path, rows = prepared
    env = ToolSandboxEnvironment(path)
    episode = _runner(env, lambda messages, tools: Turn(text="Let me think."),
                      lambda view, tools, row, seed=None: Turn(text="Sure.")).run(rows["cellular_off"])
    assert episode.termination == "max_steps"
    assert len(episode.trajectory) - len(env.initial_messages(rows["cellular_off"])) == 30


def test_the_trainers_step_environment_plays_a_scenario(prepared, monkeypatch):
    """gym.serve.trainers.Environment: reset to a scenario, the agent's call and answer as steps, the mock
    user's stop ends it with upstream's similarity."""
    from gym.serve.trainers import Environment

    path, _ = prepared
    monkeypatch.setenv("GYM_DATA_DIR", str(path.parent.parent))
    env = Environment("toolsandbox", user="mock")
    observation, _ = env.reset(task_index=0, seed=300)
    assert observation[-1] == {"role": "user", "content": "Add Stephen Sondheim to my contact, his phone_number is +19876543210"}
    call = {"id": "c1", "type": "function", "function": {
        "name": "add_contact", "arguments": json.dumps({"name": "Stephen Sondheim", "phone_number": "+19876543210"})}}
    observation, reward, done, _, _ = env.step({"role": "assistant", "content": None, "tool_calls": [call]})
    assert not done and observation[-1]["role"] == "tool"
    observation, reward, done, _, _ = env.step({"role": "assistant",
                                                "content": "Stephen Sondheim has been added to your contact"})
    assert done and reward == 1.0
