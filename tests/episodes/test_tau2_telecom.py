"""τ²-bench telecom end to end: the agent's tools and the user's phone in one episode, through collect and
the command line, against the reference server (model=mock plays the gold agent) and gym's mock user (it
makes the task's user-side gold calls on its phone)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.data.prepare_context import PrepareContext
from gym.episodes.passk import pass_hat_k
from gym.episodes.tau2.prepare import DOMAINS, prepare_domain
from gym.tasks import collect
from tests.conftest import UPSTREAM, run_gym
from tests.rollouts.test_episode_collect import expected_rewards, rows_of

# the fixture's tasks.json: upstream's 20 small-split tasks (one issue each) and 4 of its 40 test-split ones
FIXTURE_TASKS, TEST_TASKS = 24, 4


@pytest.fixture
def tau2_telecom(data_dir) -> Path:
    """Every task of the fixture's tasks.json (split=null)."""
    out = data_dir / "tau2_telecom" / "tau2_telecom.jsonl"
    ctx = PrepareContext(name="tau2_telecom", output_path=out, mirror=str(UPSTREAM), offline=True, progress=False)
    return prepare_domain(ctx, DOMAINS["telecom"], split=None)


def test_prepared_rows_open_apart_and_carry_both_toolkits(tau2_telecom):
    rows = rows_of(tau2_telecom)
    assert len(rows) == FIXTURE_TASKS == len({r["question"] for r in rows})  # variants of one issue name their task
    # only the MMS task abroad (in France) opens as no other does, and so does not name itself
    assert [r["task_id"] for r in rows if r["task_id"] not in r["question"]] == [
        "[mms_issue]airplane_mode_on|break_app_both_permissions|data_usage_exceeded|user_abroad_roaming_disabled_off[PERSONA:None]"]
    data = json.loads((tau2_telecom.parent / rows[0]["env_file"]).read_text())
    assert data["domain"] == "telecom" and {t["name"] for t in data["user_tools"]} >= {"toggle_airplane_mode", "reboot_device"}
    assert "simulation_guidelines_tools" not in rows[0]["user_system_prompt"]  # the guidelines' text, not a name
    assert "</main_policy>" in rows[0]["system_prompt"]


def test_known_pass_hat_k_with_the_user_acting_on_the_phone(tau2_telecom, tmp_path):
    cfg = compose(["task=collect", "benchmark=tau2_telecom", "model=mock", "user=mock", "progress=false",
                   "num_repeats=4", "model.mock.accuracy=0.5", f"+run_dir={tmp_path}"])
    collect.run(cfg)
    rows = rows_of(tmp_path / "rollouts.jsonl")
    got: dict[int, list[float]] = {}
    for r in sorted(rows, key=lambda r: r["rollout_index"]):
        got.setdefault(r["task_index"], []).append(r["reward"])
    assert got == expected_rewards(tau2_telecom, 0.5, 4)
    assert 0 < pass_hat_k(got)[4] < pass_hat_k(got)[1] < 1
    # a refusing agent still passes a task the user fixes alone on the phone, never one that needs the agent
    agent_needed = {i for i, row in enumerate(rows_of(tau2_telecom))
                    if any(a["requestor"] == "assistant" for a in row["task"]["evaluation_criteria"]["actions"] or [])}
    for r in rows:
        if r["task_index"] in agent_needed and not r["episode"]["tool_calls"]:
            assert r["reward"] == 0.0
    assert all(r["episode"]["user_tool_calls"] >= 1 for r in rows if r["task_index"] not in agent_needed)
    wrong = [r for r in rows if r["reward"] == 0.0]
    failed = {name for r in wrong for name, value in r["verifier"]["breakdown"].items() if value == 0.0}
    assert failed == {"ENV_ASSERTION", "ACTION"}  # the phone left broken; a transfer the task wants not made


def test_try_it_command_line(tmp_path):
    """docs/agents.md's command on the default split (test: the fixture holds 4 of its tasks)."""
    result = run_gym("task=e2e", "benchmark=tau2_telecom", "model=mock", "user=mock", "model.mock.accuracy=1.0",
                     "num_repeats=2", f"data.mirror={UPSTREAM}", "data.offline=true",
                     f"hydra.run.dir={tmp_path}", env={"GYM_DATA_DIR": str(tmp_path / "data")})
    assert result.returncode == 0, result.stderr
    entry = json.loads((tmp_path / "metrics.json").read_text())["benchmarks"]["tau2_telecom"]
    assert entry["pass^k"]["1"]["value"] == pytest.approx(100.0) and entry["pass^k"]["2"]["value"] == pytest.approx(100.0)
    family = entry["family_metrics"]
    assert family["terminations"] == {"user_stop": {"count": 2 * TEST_TASKS, "percent": 100.0}}
    # the user-side gold calls, once each: 3 (VPN), 0 (locked SIM: a transfer), 3 (overdue bill), 4 (MMS)
    assert family["per_episode"]["user_tool_calls"] == pytest.approx(10 / TEST_TASKS)
    rows = rows_of(tmp_path / "rollouts.jsonl")
    outputs = [m["content"] for r in rows for m in r["trajectory"] if m["role"] == "tool"]
    assert any("Status Bar:" in text for text in outputs)  # the phone answered the user's calls
    assert "pass^1 100.00" in result.stdout


def test_workflow_variant_is_the_same_domain_under_the_workflow_policy(tau2_telecom, data_dir):
    out = data_dir / "tau2_telecom_workflow" / "tau2_telecom_workflow.jsonl"
    ctx = PrepareContext(name="tau2_telecom_workflow", output_path=out, mirror=str(UPSTREAM), offline=True,
                         progress=False)
    workflow = rows_of(prepare_domain(ctx, DOMAINS["telecom-workflow"], split=None))
    manual = rows_of(tau2_telecom)
    assert [r["task"] for r in workflow] == [r["task"] for r in manual]
    assert [r["question"] for r in workflow] == [r["question"] for r in manual]
    heading = "Technical Support Troubleshooting Workflow"
    assert all(heading in r["system_prompt"] and "<tech_support_policy>" in r["system_prompt"] for r in workflow)
    assert not any(heading in r["system_prompt"] for r in manual)
    solo = [r["solo_system_prompt"] for r in workflow if r.get("solo_system_prompt")]
    assert solo and all(heading in text for text in solo)
    data = json.loads((out.parent / workflow[0]["env_file"]).read_text())
    assert data["domain"] == "telecom" and len(data["user_tools"]) == 30
