"""τ² domains re-implemented in gym score, answer and hash as upstream's own evaluator does.

The expected values in tests/fixtures/tau2_expected/<domain>.json were computed by upstream's code at the
pinned commit (tools/tau2_expected.py): every task's gold actions replayed, plus variants that must fail.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gym.episodes.agents import GoldAgent
from gym.episodes.base import Limits
from gym.episodes.loop import EpisodeRunner
from gym.episodes.tau2.env import Tau2Environment
from gym.episodes.tau2.prepare import DOMAINS, prepare_domain
from gym.episodes.tau2.state import replay
from gym.data.prepare_context import PrepareContext

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT / "fixtures" / "upstream"
EXPECTED = ROOT / "fixtures" / "tau2_expected"
DOMAIN_NAMES = ("mock", "retail", "telecom", "airline")


def prepared(tmp_path_factory, domain: str) -> Path:
    """The domain prepared from the upstream-format fixtures (as benchmarks/tau2_<domain>/prepare.py does)."""
    benchmark = f"tau2_{domain}"
    out = tmp_path_factory.mktemp(benchmark) / f"{benchmark}.jsonl"
    ctx = PrepareContext(name=benchmark, output_path=out, mirror=str(MIRROR), offline=True, progress=False)
    return prepare_domain(ctx, DOMAINS[domain])


@pytest.fixture(scope="module")
def domains(tmp_path_factory):
    """domain -> (prepared path, rows by task id), prepared once per module."""
    out = {}
    for domain in DOMAIN_NAMES:
        path = prepared(tmp_path_factory, domain)
        out[domain] = path, {row["task_id"]: row for row in map(json.loads, path.read_text().splitlines())}
    return out


def expected(domain: str) -> dict:
    """task id -> case -> upstream's values (the solo-mode case apart: expected_solo)."""
    tasks = json.loads((EXPECTED / f"{domain}.json").read_text())["tasks"]
    return {task: {case: want for case, want in cases.items() if case != "solo"} for task, cases in tasks.items()}


def expected_solo(domain: str) -> dict:
    tasks = json.loads((EXPECTED / f"{domain}.json").read_text())["tasks"]
    return {task: cases["solo"] for task, cases in tasks.items() if "solo" in cases}


def cases_of(*domains: str) -> list:
    return [pytest.param(domain, task, case, id=f"{domain}-{task}-{case}")
            for domain in domains for task, cases in sorted(expected(domain).items()) for case in sorted(cases)]


def play(env: Tau2Environment, row: dict, want: dict) -> tuple[list[dict], list[str], object]:
    """The episode upstream graded, played live on gym's tools: (trajectory, output hashes, live state)."""
    state = env.reset(row)
    trajectory = env.initial_messages(row) + [{"role": "user", "content": "I need help with my request."}]
    hashes = []
    for number, (name, arguments, requestor) in enumerate(want["calls"]):
        role = "assistant" if requestor == "assistant" else "user"
        call_id = f"gold-{number}"
        trajectory.append({"role": role, "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        output = env.call(state, name, arguments, requestor)
        trajectory.append({"role": "tool", "tool_call_id": call_id, "content": output.content})
        hashes.append(hashlib.sha256(output.content.encode()).hexdigest())
    trajectory += [{"role": "assistant", "content": want["closing"]}, {"role": "user", "content": "Thanks. ###STOP###"}]
    return trajectory, hashes, state


@pytest.mark.parametrize("domain,task_id,case", cases_of(*DOMAIN_NAMES))
def test_scores_outputs_and_hashes_as_upstream(domains, domain, task_id, case):
    path, rows = domains[domain]
    want = expected(domain)[task_id][case]
    env = Tau2Environment(path)
    trajectory, hashes, state = play(env, rows[task_id], want)
    assert hashes == want["tool_output_sha256"]  # every tool answered upstream's exact text
    score = env.score(rows[task_id], trajectory, "user_stop")
    if "upstream_error" in want:  # upstream's evaluation stops on a check that raises; gym fails the check
        assert score.reward == 0.0
        assert any("error" in check for check in score.details["env_assertions"])
        return
    assert score.reward == want["reward"], score.details
    assert score.details["breakdown"] == want["breakdown"]
    assert list(state.hashes()) == [want["db_hash"], want["user_db_hash"]]
    replayed = env._fresh(rows[task_id])
    replay(replayed, trajectory)
    assert list(replayed.hashes()) == [want["db_hash"], want["user_db_hash"]]


@pytest.mark.parametrize("domain,task_id", [pytest.param(domain, task, id=f"{domain}-{task}")
                                             for domain in ("mock", "telecom") for task in sorted(expected_solo(domain))])
def test_solo_mode_as_upstream(domains, domain, task_id):
    """user=none: prepare offers solo mode exactly on the tasks upstream's solo agent accepts; the gold
    agent working alone (every gold call, the user's too, then `done`) gets upstream's tool outputs, reward
    and breakdown, live and from the stored trajectory."""
    path, rows = domains[domain]
    row, want = rows[task_id], expected_solo(domain)[task_id]
    assert bool(row.get("solo_system_prompt")) == want["solo_ready"]
    if not want["solo_ready"]:
        return
    env = Tau2Environment(path)
    episode = EpisodeRunner(env, GoldAgent(row, solo=True), None, Limits()).run(row, 0)
    assert episode.termination == "agent_stop" and episode.user_turns == 0
    assert episode.trajectory[0]["content"] == row["solo_system_prompt"]
    assert episode.trajectory[-1] == {"role": "assistant", "content": "###STOP###"}
    outputs = [m["content"] for m in episode.trajectory if m["role"] == "tool"]
    assert [hashlib.sha256(text.encode()).hexdigest() for text in outputs] == want["tool_output_sha256"]
    for final in (episode.state, None):
        score = env.score(row, episode.trajectory, episode.termination, final)
        assert score.reward == want["reward"] and score.details["breakdown"] == want["breakdown"], score.details


def test_gold_replay_scores_one_where_the_gold_is_complete():
    """Every retail and airline task; 8 of the 10 mock tasks: two need more than the gold actions (an env
    assertion on a task the gold does not update; a notification only the user can dismiss)."""
    assert all(cases["gold"]["reward"] == 1.0 for cases in expected("retail").values())
    assert all(cases["gold"]["reward"] == 1.0 for cases in expected("airline").values())
    assert sorted(t for t, cases in expected("mock").items() if cases["gold"]["reward"] == 0.0) == [
        "update_task_with_history_and_env_assertions", "update_task_with_user_tools"]


def test_unfinished_episodes_score_zero(domains):
    path, rows = domains["mock"]
    env = Tau2Environment(path)
    trajectory, _, _ = play(env, rows["update_task_1"], expected("mock")["update_task_1"]["gold"])
    assert env.score(rows["update_task_1"], trajectory, "user_stop").reward == 1.0
    for ending in ("max_steps", "too_many_errors", "timeout", "agent_error"):
        assert env.score(rows["update_task_1"], trajectory, ending).reward == 0.0


def test_retail_calculate_matches_python_arithmetic_without_eval():
    from gym.episodes.tau2.arithmetic import calculate

    assert calculate("(12.5 + 7.25) * 2 - 1/3") == str(round(float((12.5 + 7.25) * 2 - 1 / 3), 2))
    assert calculate("2 ** 10 // 3") == "341.0"
    with pytest.raises(ValueError, match="Invalid characters"):
        calculate("__import__('os')")
    with pytest.raises(ZeroDivisionError):
        calculate("1/0")


def test_episodes_never_change_the_shared_parsed_database(domains):
    """Databases are copied on write: after every case of every task (writes included) the parsed copy
    the episodes share still hashes as the file does."""
    from gym.episodes.tau2.env import load_domain_file
    from gym.episodes.tau2.records import db_hash

    for domain in DOMAIN_NAMES:
        path, rows = domains[domain]
        env = Tau2Environment(path)
        parsed = load_domain_file(path.parent / next(iter(rows.values()))["env_file"])
        before = db_hash(parsed["db"]), db_hash(parsed["user_db"])
        for task_id, cases in expected(domain).items():
            for want in cases.values():
                trajectory, _, state = play(env, rows[task_id], want)
                env.score(rows[task_id], trajectory, "user_stop", state)
                env.score(rows[task_id], trajectory, "user_stop")
        assert (db_hash(parsed["db"]), db_hash(parsed["user_db"])) == before


def test_telecom_gold_is_complete_and_the_phone_tools_take_upstreams_parameter_types(domains):
    """Every telecom fixture task scores 1 on its gold actions (both sides); the user's tools typed by
    upstream's enums and records get their values as a schema (upstream: anyOf the enum or the record,
    and a plain string or object)."""
    assert all(cases["gold"]["reward"] == 1.0 for cases in expected("telecom").values())
    path, rows = domains["telecom"]
    data = json.loads((path.parent / next(iter(rows.values()))["env_file"]).read_text())
    user_tools = {schema["name"]: schema for schema in data["user_tools"]}
    mode = user_tools["set_network_mode_preference"]["parameters"]["properties"]["mode"]
    assert mode["anyOf"] == [{"enum": ["4g_5g_preferred", "4g_only", "3g_only", "2g_only"], "type": "string"},
                             {"type": "string"}]
    apn = user_tools["set_apn_settings"]["parameters"]["properties"]["apn_settings"]["anyOf"]
    assert apn[0]["properties"]["apn_name"]["enum"] == ["internet", "broken"]
    assert apn[1] == {"additionalProperties": True, "type": "object"}
    assert data["policy"].startswith("<main_policy>\n") and "</main_policy>\n<tech_support_policy>\n" in data["policy"]
    assert len(data["tools"]) == 13 and len(data["user_tools"]) == 30
