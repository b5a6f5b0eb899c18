"""Episode benchmarks through collect, e2e, resume, reverify and export, against the reference server
(model=mock plays the gold agent over HTTP in every wire format) and gym's mock user."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.data.prepare_context import PrepareContext
from gym.episodes.agents import GoldAgent
from gym.episodes.loop import EpisodeRunner
from gym.episodes.base import Limits
from gym.episodes.passk import pass_hat_k
from gym.episodes.tau2.env import Tau2Environment
from gym.episodes.tau2.prepare import DOMAINS, prepare_domain
from gym.episodes.users import MockUser
from gym.mock.tasks import unit_draw
from gym.tasks import collect, run_task
from tests.conftest import UPSTREAM, run_gym

MIRROR = f"data.mirror={UPSTREAM}"


@pytest.fixture
def tau2_mock(data_dir) -> Path:
    out = data_dir / "tau2_mock" / "tau2_mock.jsonl"
    ctx = PrepareContext(name="tau2_mock", output_path=out, mirror=str(UPSTREAM), offline=True, progress=False)
    return prepare_domain(ctx, DOMAINS["mock"])


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_collect(tmp_path: Path, *overrides: str) -> dict:
    cfg = compose(["task=collect", "benchmark=tau2_mock", "model=mock", "user=mock", "progress=false",
                   f"+run_dir={tmp_path}", *overrides])
    return collect.run(cfg)


def expected_rewards(path: Path, accuracy: float, repeats: int, seed: int = 300) -> dict[int, list[float]]:
    """What the reference server should score: the gold agent on the episodes its draw sends right."""
    env = Tau2Environment(path)
    out = {}
    for index, row in enumerate(rows_of(path)):
        rewards = []
        for rollout in range(repeats):
            right = unit_draw(0, "episode", row["question"], seed + rollout) < accuracy
            episode = EpisodeRunner(env, GoldAgent(row, right), MockUser(), Limits()).run(row, seed + rollout)
            rewards.append(env.score(row, episode.trajectory, episode.termination).reward)
        out[index] = rewards
    return out


@pytest.mark.parametrize("api", ["chat", "responses", "completions"])
def test_reference_agent_in_every_wire_format(tau2_mock, tmp_path, api):
    summary = run_collect(tmp_path, "num_repeats=2", "model.mock.accuracy=1.0", f"model.api={api}")
    rows = rows_of(tmp_path / "rollouts.jsonl")
    assert summary["counts"] == {"ok": 20} and all(r["schema_version"] == 4 for r in rows)
    by_task = {r["task_index"]: r["reward"] for r in rows}
    assert sum(by_task.values()) == 8  # every task whose gold actions are complete (test_tau2_parity)
    sample = next(r for r in rows if r["episode"]["tool_calls"])
    roles = [m["role"] for m in sample["trajectory"]]
    assert roles[0] == "system" and "tool" in roles and sample["episode"]["termination"] == "user_stop"
    call = next(m for m in sample["trajectory"] if m.get("tool_calls"))["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) and sample["extracted_answer"].startswith("calls:")
    assert summary["episodes"]["terminations"] == {"user_stop": 20}
    assert summary["model_requests"] == sum(r["episode"]["agent_turns"] for r in rows)


def test_accuracy_knob_gives_the_known_pass_hat_k(tau2_mock, tmp_path):
    run_collect(tmp_path, "num_repeats=4", "model.mock.accuracy=0.5")
    got: dict[int, list[float]] = {}
    for r in sorted(rows_of(tmp_path / "rollouts.jsonl"), key=lambda r: r["rollout_index"]):
        got.setdefault(r["task_index"], []).append(r["reward"])
    want = expected_rewards(tau2_mock, 0.5, 4)
    assert got == want
    assert 0 < pass_hat_k(got)[4] < pass_hat_k(got)[1] < 0.8  # some episodes went wrong, reliability falls with k


def test_unfinished_episodes_are_redone_on_resume(tau2_mock, tmp_path):
    faulty = ["num_repeats=2", "model.mock.accuracy=1.0", "model.max_retries=0", "model.mock.faults.error_503=0.2"]
    with pytest.raises(GymError, match="resume"):
        run_collect(tmp_path, *faulty)
    first = rows_of(tmp_path / "rollouts.jsonl")
    unfinished = [r for r in first if r["status"] == "infra_error"]
    assert unfinished and all(r["episode"]["termination"] == "infrastructure_error" for r in unfinished)
    again = run_collect(tmp_path, "num_repeats=2", "model.mock.accuracy=1.0", "resume=true")
    assert again["ran"] == len(unfinished) and again["skipped_done"] == 20 - len(unfinished)
    final = {r["key"]: r for r in rows_of(tmp_path / "rollouts.jsonl")}
    assert len(final) == 20 and all(r["status"] == "ok" for r in final.values())


def test_limits_user_and_bad_input(tau2_mock, tmp_path):
    summary = run_collect(tmp_path, "num_repeats=1", "model.mock.accuracy=1.0", "episode.max_steps=2")
    rows = rows_of(tmp_path / "rollouts.jsonl")
    assert summary["episodes"]["terminations"] == {"max_steps": 10} and all(r["reward"] == 0.0 for r in rows)
    long = run_collect(tmp_path / "ctx", "num_repeats=1", "model.mock.max_context_tokens=50", "limit=2")
    assert long["episodes"]["terminations"] == {"context_window_exceeded": 2} and long["counts"] == {"ok": 2}
    slow = run_collect(tmp_path / "slow", "num_repeats=1", "model.mock.latency=0.2", "episode.timeout=0.1", "limit=2")
    assert slow["episodes"]["terminations"] == {"timeout": 2}
    assert all(r["reward"] == 0.0 for r in rows_of(tmp_path / "slow" / "rollouts.jsonl"))
    with pytest.raises(GymError, match="episode.max_steps"):
        run_collect(tmp_path / "bad", "episode.max_steps=0")


def test_reverify_replays_stored_trajectories_and_export_writes_responses_items(tau2_mock, tmp_path):
    run_collect(tmp_path / "run", "num_repeats=2", "model.mock.accuracy=0.7")
    before = {r["key"]: r["reward"] for r in rows_of(tmp_path / "run" / "rollouts.jsonl")}
    cfg = compose(["task=reverify", f"rollouts={tmp_path / 'run'}", f"+run_dir={tmp_path / 'rev'}"])
    run_task("reverify", cfg)
    after = {r["key"]: r["reward"] for r in rows_of(tmp_path / "rev" / "rollouts.jsonl")}
    assert after == before and len(set(before.values())) == 2  # the same verdicts, rewards of both kinds
    cfg = compose(["task=export", f"rollouts={tmp_path / 'run' / 'rollouts.jsonl'}", "format=nemo_gym",
                   f"output_dir={tmp_path / 'nemo'}", f"+run_dir={tmp_path / 'exp'}"])
    run_task("export", cfg)
    exported = [json.loads(line) for path in sorted((tmp_path / "nemo").glob("*.jsonl"))
                if "materialized" not in path.name and "failures" not in path.name
                for line in path.read_text().splitlines()]
    kinds = {item["type"] for row in exported for item in row["response"]["output"]}
    assert {"message", "function_call", "function_call_output"} <= kinds
    assert all(row["responses_create_params"]["input"][0]["role"] == "system" for row in exported)


def test_try_it_command_line(tau2_mock, tmp_path):
    result = run_gym("task=e2e", "benchmark=tau2_mock", "model=mock", "user=mock", "model.mock.accuracy=1.0",
                     "num_repeats=2", MIRROR, "data.offline=true", f"hydra.run.dir={tmp_path}",
                     env={"GYM_DATA_DIR": str(tau2_mock.parent.parent)})
    assert result.returncode == 0, result.stderr
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    entry = metrics["benchmarks"]["tau2_mock"]
    assert entry["pass^k"]["1"]["value"] == pytest.approx(80.0) and entry["pass^k"]["2"]["value"] == pytest.approx(80.0)
    assert entry["family_metrics"]["terminations"]["user_stop"]["count"] == 20
    assert "pass^2" in (tmp_path / "metrics.csv").read_text() and "pass^1 80.00" in result.stdout
    run_json = json.loads((tmp_path / "run.json").read_text())
    assert run_json["endpoint"]["user"]["kind"] == "mock"
    profile = json.loads((tmp_path / "profile_summary.json").read_text())["benchmarks"]["tau2_mock"]
    assert profile["pass^k"]["2"] == entry["pass^k"]["2"] and "pass^2 80.00" in (tmp_path / "report.html").read_text()


@pytest.fixture
def tau2_retail(data_dir) -> Path:
    out = data_dir / "tau2_retail" / "tau2_retail.jsonl"
    ctx = PrepareContext(name="tau2_retail", output_path=out, mirror=str(UPSTREAM), offline=True, progress=False)
    return prepare_domain(ctx, DOMAINS["retail"], split="test")


def test_nl_assertions_judged_by_the_judge_endpoint(tau2_retail, tmp_path):
    judged = ["benchmark=tau2_retail", "judge=mock", "benchmark.verifier.options.nl_assertions=judge", "limit=12"]
    run_collect(tmp_path / "right", *judged, "num_repeats=1", "model.mock.accuracy=1.0")
    rows = rows_of(tmp_path / "right" / "rollouts.jsonl")
    checked = [r for r in rows if isinstance(r["verifier"].get("nl_assertions"), list)]
    assert checked and all(r["reward"] == 1.0 for r in rows)
    assert all(c["met"] for r in checked for c in r["verifier"]["nl_assertions"])
    assert all(r["verifier"]["breakdown"].keys() == {"DB", "NL_ASSERTION"} for r in checked)
    run_collect(tmp_path / "wrong", *judged, "num_repeats=1", "model.mock.accuracy=0.0")
    wrong = [r for r in rows_of(tmp_path / "wrong" / "rollouts.jsonl") if isinstance(r["verifier"].get("nl_assertions"), list)]
    assert wrong and all(r["verifier"]["breakdown"]["NL_ASSERTION"] == 0.0 and r["reward"] == 0.0 for r in wrong)
    with pytest.raises(GymError, match="judge"):
        run_collect(tmp_path / "none", "benchmark=tau2_retail", "benchmark.verifier.options.nl_assertions=judge")


def test_judge_reply_reading():
    from gym.episodes.base import JudgeFailed
    from gym.episodes.tau2.judge import read_verdicts

    reply = 'Here:\n```json\n{"results": [{"expectedOutcome": "a", "reasoning": "r", "metExpectation": true},' \
            ' {"expectedOutcome": "b", "reasoning": "r", "metExpectation": false}]}\n```'
    assert read_verdicts(reply) == [True, False]
    with pytest.raises(JudgeFailed) as failed:
        read_verdicts("I think the agent did fine.")
    assert failed.value.transport is False


def test_llm_user_endpoint_is_checked_fingerprinted_and_warned_when_it_is_the_policy(tau2_mock, tmp_path):
    from gym.mock.server import MockServer

    with MockServer(data_paths=[tau2_mock], accuracy=1.0) as server:
        summary = run_collect(tmp_path, "model=vllm", f"model.base_url={server.base_url}", "model.name=gym-mock",
                              "user=vllm", f"user.base_url={server.base_url}", "num_repeats=1")
        stats = server.stats
        with pytest.raises(GymError, match="user.name=nope is not served"):
            run_collect(tmp_path / "bad", "user=vllm", "user.base_url=" + server.base_url, "user.name=nope")
    rows = rows_of(tmp_path / "rollouts.jsonl")
    assert sum(r["reward"] for r in rows) == 8 and all(r["episode"]["user_model"] == "gym-mock" for r in rows)
    assert summary["episodes"]["user"]["same_as_policy"] is True
    run_json = json.loads((tmp_path / "run.json").read_text())
    assert run_json["endpoint"]["user"]["model"] == "gym-mock" and run_json["endpoint"]["user"]["same_as_policy"]
    assert stats["answers"]["episode_turn"] == sum(r["episode"]["agent_turns"] + r["episode"]["user_turns"]
                                                   for r in rows)


def test_kill_dash_nine_then_resume_redoes_only_unfinished_episodes(tau2_mock, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT

    common = ["task=collect", "benchmark=tau2_mock", "model=mock", "user=mock", "num_repeats=8", "progress=false",
              "concurrency=2", "model.mock.accuracy=1.0"]
    env = {**os.environ, "GYM_DATA_DIR": str(tau2_mock.parent.parent)}
    proc = subprocess.Popen([sys.executable, "-m", "gym", *common, "model.mock.latency=0.05",
                             f"hydra.run.dir={tmp_path}/run"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = tmp_path / "run" / "rollouts.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline and (not out.exists() or len(out.read_bytes().splitlines()) < 10):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = {r["key"] for r in rows_of(out)}
    assert 0 < len(partial) < 80
    result = run_gym(*common, "resume=true", f"output={out}", f"hydra.run.dir={tmp_path}/run2", env=env)
    assert result.returncode == 0, result.stderr
    rows = rows_of(out)
    assert len(rows) == 80 == len({r["key"] for r in rows})  # every episode once: none of the finished redone
    assert sum(r["reward"] for r in rows) == 64


def test_pass_hat_k_per_domain_and_macro_average(tau2_mock, tau2_retail, tmp_path):
    run_collect(tmp_path / "mock", "num_repeats=2", "model.mock.accuracy=0.6")
    run_collect(tmp_path / "retail", "benchmark=tau2_retail", "limit=10", "num_repeats=2", "model.mock.accuracy=0.6")
    cfg = compose(["task=aggregate", f"rollouts=[{tmp_path / 'mock'},{tmp_path / 'retail'}]", f"+run_dir={tmp_path / 'agg'}"])
    run_task("aggregate", cfg)
    metrics = json.loads((tmp_path / "agg" / "metrics.json").read_text())
    mock, retail = metrics["benchmarks"]["tau2_mock"], metrics["benchmarks"]["tau2_retail"]
    macro = metrics["pass^k_macro_average"]
    assert macro["domains"] == 2 and set(macro["pass^k"]) == {"1", "2"}
    for k in ("1", "2"):
        assert macro["pass^k"][k] == pytest.approx((mock["pass^k"][k]["value"] + retail["pass^k"][k]["value"]) / 2, abs=1e-3)
    assert mock["pass^k"]["1"]["value"] == pytest.approx(mock["pass@1"]["value"])  # pass^1 is pass@1
    assert mock["pass^k"]["2"]["value"] <= mock["pass^k"]["1"]["value"] <= mock["pass@k"]["2"]["value"]
    csv_text = (tmp_path / "agg" / "metrics.csv").read_text()
    assert "tau2_retail,gym-mock,pass^2," in csv_text


def test_a_redone_episode_replays_its_earlier_turns_from_the_cache(tau2_retail, tmp_path):
    cache = f"cache.dir={tmp_path / 'cache'}"
    faulty = ["benchmark=tau2_retail", "limit=10", "num_repeats=1", "model.mock.accuracy=1.0", cache]
    with pytest.raises(GymError, match="resume"):
        run_collect(tmp_path / "run", *faulty, "model.max_retries=0", "model.mock.faults.error_503=0.15")
    unfinished = {r["key"] for r in rows_of(tmp_path / "run" / "rollouts.jsonl") if r["status"] == "infra_error"}
    again = run_collect(tmp_path / "run", *faulty, "resume=true")
    redone = [r for r in rows_of(tmp_path / "run" / "rollouts.jsonl") if r["key"] in unfinished and r["status"] == "ok"]
    assert len(redone) == len(unfinished) and all(r["reward"] == 1.0 for r in redone)
    replayed = sum(r["episode"]["cached_turns"] for r in redone)
    assert replayed > 0 and all(r.get("cached") for r in redone if r["episode"]["cached_turns"])
    assert again["model_requests"] == sum(r["episode"]["agent_turns"] for r in redone) - replayed
