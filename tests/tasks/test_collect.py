"""task=collect against gym's reference server over real HTTP: statuses, faults, resume, secrets, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from gym.core.config import compose
from gym.core.errors import GymError
from gym.mock.server import MockServer
from gym.tasks import collect
from tests.conftest import REAL_DATA, ROOT, assert_clean_failure, run_gym


def gsm8k_rows(n: int) -> list[dict]:
    rows = []
    with open(REAL_DATA / "gsm8k" / "test.jsonl") as handle:
        for line in handle:
            item = json.loads(line)
            rows.append({"question": item["question"],
                         "expected_answer": item["answer"].split("####")[-1].strip().replace(",", "")})
            if len(rows) == n:
                break
    return rows


@pytest.fixture
def prepared(data_dir):
    path = data_dir / "gsm8k" / "gsm8k.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in gsm8k_rows(40)))
    return path


def read_rollouts(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def last_by_key(rows: list[dict]) -> dict[str, dict]:
    return {row["key"]: row for row in rows}


def run_collect(tmp_path: Path, *overrides: str) -> dict:
    cfg = compose(["task=collect", "benchmark=gsm8k", "model=mock", "progress=false", f"+run_dir={tmp_path}",
                   *overrides])
    return collect.run(cfg)


def test_collect_with_mock(prepared, tmp_path):
    summary = run_collect(tmp_path, "limit=25", "num_repeats=4", "model.mock.accuracy=0.7", "concurrency=16")
    rows = read_rollouts(tmp_path / "rollouts.jsonl")
    assert len(rows) == 100 == len({r["key"] for r in rows})
    assert {(r["task_index"], r["rollout_index"]) for r in rows} == {(t, k) for t in range(25) for k in range(4)}
    assert all(r["status"] == "ok" and r["reward"] in (0.0, 1.0) for r in rows)
    accuracy = sum(r["reward"] for r in rows) / len(rows)
    assert 0.5 < accuracy < 0.9  # the reference server answers right 70% of the time
    right = [r for r in rows if r["reward"] == 1.0]
    assert all(r["extracted_answer"] is not None and r["expected_answer"] for r in right)
    sample = rows[0]
    assert sample["prompt"][-1]["role"] == "user" and "\\boxed{}" in sample["prompt"][-1]["content"]
    assert sample["usage"]["completion_tokens"] > 0 and sample["finish_reason"] == "stop" and sample["attempts"] == 1
    run_json = json.loads((tmp_path / "run.json").read_text())
    assert run_json["counts"] == {"ok": 100} and run_json["endpoint"]["model"] == "gym-mock"
    assert summary["expected_rollouts"] == 100


def test_resume_skips_done_and_new_settings_make_new_keys(prepared, tmp_path):
    run_collect(tmp_path, "limit=5", "num_repeats=2")
    again = run_collect(tmp_path, "limit=5", "num_repeats=2", "resume=true")
    assert again["ran"] == 0 and again["skipped_done"] == 10
    changed = run_collect(tmp_path, "limit=5", "num_repeats=2", "model.sampling.temperature=0.1")
    assert changed["ran"] == 10  # a sampling change is a different experiment: new keys
    assert len(read_rollouts(tmp_path / "rollouts.jsonl")) == 20


def test_faults_of_every_kind_lose_nothing(prepared, tmp_path):
    faults = "{error_500: 0.05, error_503: 0.05, error_429: 0.05, hang: 0.05, reset: 0.05, malformed_json: 0.03, empty_choices: 0.02}"
    overrides = ["limit=30", "num_repeats=2", f"model.mock.faults={faults}", "model.timeout=0.5",
                 "model.mock.retry_after=0", "model.mock.hang_seconds=5", "concurrency=16", "model.max_retries=8"]
    try:
        run_collect(tmp_path, *overrides)
    except GymError as exc:  # a rollout may still exhaust its retries; resume finishes it
        assert "resume=true" in str(exc)
        run_collect(tmp_path, *overrides, "resume=true")
    rows = read_rollouts(tmp_path / "rollouts.jsonl")
    final = last_by_key(rows)
    assert len(final) == 60 and all(r["status"] == "ok" for r in final.values())
    assert max(r["attempts"] for r in rows) > 1  # faults really happened and were retried
    ok_keys = Counter(r["key"] for r in rows if r["status"] == "ok")
    assert max(ok_keys.values()) == 1  # never a second ok row for a key


def test_model_error_is_scored_zero_not_retried(prepared, tmp_path):
    run_collect(tmp_path, "limit=3", "num_repeats=1", "model.mock.max_context_tokens=5")
    rows = read_rollouts(tmp_path / "rollouts.jsonl")
    assert all(r["status"] == "model_error" and r["reward"] == 0.0 and r["attempts"] == 1 for r in rows)
    assert "context" in rows[0]["error"]


def test_reasoning_is_split_before_verification(prepared, tmp_path):
    run_collect(tmp_path, "limit=10", "num_repeats=1", "model.mock.reasoning=think_tags", "model.mock.accuracy=1.0")
    rows = read_rollouts(tmp_path / "rollouts.jsonl")
    assert all(r["reward"] == 1.0 and r["reasoning"] and "<think>" not in r["response"] for r in rows)


def test_endpoint_down_and_dies_mid_run(prepared, tmp_path):
    with pytest.raises(GymError, match="cannot reach"):
        run_collect(tmp_path / "down", "model=vllm", "model.base_url=http://127.0.0.1:9/v1")
    assert not (tmp_path / "down" / "rollouts.jsonl").exists()

    server = MockServer(data_paths=[prepared], latency=0.05)
    url = server.start()
    port = url.split(":")[-1].split("/")[0]
    overrides = ["model=vllm", f"model.base_url={url}", "model.name=gym-mock", "limit=40", "num_repeats=5",
                 "concurrency=4", "model.max_retries=1", "model.timeout=2"]
    import threading

    def stop_after_some_rows() -> None:  # the endpoint dies once some rollouts are on disk
        out, pause = tmp_path / "dies" / "rollouts.jsonl", threading.Event()
        while not (out.is_file() and len(out.read_bytes().splitlines()) >= 20):
            pause.wait(0.01)
        server.stop()

    threading.Thread(target=stop_after_some_rows, daemon=True).start()
    with pytest.raises(GymError, match="infrastructure errors"):
        run_collect(tmp_path / "dies", *overrides)
    rows = read_rollouts(tmp_path / "dies" / "rollouts.jsonl")
    statuses = Counter(r["status"] for r in rows)
    assert statuses["infra_error"] > 0 and statuses["ok"] > 0 and len(rows) == 200
    assert all(r["reward"] is None for r in rows if r["status"] == "infra_error")
    revived = MockServer(data_paths=[prepared], port=int(port))
    revived.start()
    try:
        summary = run_collect(tmp_path / "dies", *overrides, "resume=true")
    finally:
        revived.stop()
    assert summary["ran"] == statuses["infra_error"]
    final = last_by_key(read_rollouts(tmp_path / "dies" / "rollouts.jsonl"))
    assert len(final) == 200 and all(r["status"] == "ok" for r in final.values())


def test_kill_dash_nine_then_resume(prepared, tmp_path):
    args = [sys.executable, "-m", "gym", "task=collect", "benchmark=gsm8k", "model=mock", "limit=40", "num_repeats=5",
            "model.mock.latency=0.05", "concurrency=8", "progress=false", f"hydra.run.dir={tmp_path}/run"]
    proc = subprocess.Popen(args, cwd=ROOT, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = tmp_path / "run" / "rollouts.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline and (not out.exists() or len(out.read_bytes().splitlines()) < 30):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(out.read_text().splitlines())
    assert 0 < partial < 200
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "limit=40", "num_repeats=5", "resume=true",
                     f"output={out}", "progress=false", f"hydra.run.dir={tmp_path}/run2")
    assert result.returncode == 0, result.stderr
    rows = read_rollouts(out)
    assert len({r["key"] for r in rows}) == 200 == len(rows)


def test_api_key_never_written(prepared, tmp_path):
    secret = "sk-very-secret-value-123"
    with MockServer(data_paths=[prepared]) as server:
        missing = run_gym("task=collect", "benchmark=gsm8k", "model=vllm", f"model.base_url={server.base_url}",
                          "model.api_key_env=GYM_TEST_API_KEY", "limit=2", f"hydra.run.dir={tmp_path}/a",
                          env={"GYM_TEST_API_KEY": ""})
        assert_clean_failure(missing, "GYM_TEST_API_KEY", "not set")
        result = run_gym("task=collect", "benchmark=gsm8k", "model=vllm", f"model.base_url={server.base_url}",
                         "model.api_key_env=GYM_TEST_API_KEY", "limit=3", f"hydra.run.dir={tmp_path}/b",
                         env={"GYM_TEST_API_KEY": secret})
    assert result.returncode == 0, result.stderr
    assert secret not in result.stdout + result.stderr
    files = [p for p in (tmp_path / "b").rglob("*") if p.is_file()]
    assert any(p.name == "config.yaml" for p in files) and any(p.name == "rollouts.jsonl" for p in files)
    for path in files:
        assert secret not in path.read_text(errors="replace"), path


def test_bad_input(prepared, tmp_path, data_dir):
    with pytest.raises(GymError, match="task=prepare benchmark=aime24"):
        run_collect(tmp_path, "benchmark=aime24")
    lines = prepared.read_text().splitlines()
    lines[2] = '{"question": "broken'
    prepared.write_text("\n".join(lines) + "\n")
    with pytest.raises(GymError, match=r"gsm8k.jsonl:3"):
        run_collect(tmp_path, "limit=5")
    prepared.write_text(json.dumps({"question_text": "no question field", "expected_answer": "1"}) + "\n")
    with pytest.raises(GymError, match="needs field 'question'"):
        run_collect(tmp_path)
    with pytest.raises(GymError, match="limit=0"):
        run_collect(tmp_path, "limit=0")


def test_ctrl_c_exits_at_once_and_resume_finishes(prepared, tmp_path):
    out = tmp_path / "run" / "rollouts.jsonl"
    # some requests hang for an hour: a gym that waited for requests in flight would never return
    args = [sys.executable, "-m", "gym", "task=collect", "benchmark=gsm8k", "model=mock", "limit=10", "num_repeats=2",
            "model.mock.latency=0.05", "model.mock.faults={hang: 0.3}", "model.mock.hang_seconds=3600",
            "model.timeout=3600", "concurrency=4", "progress=false", f"hydra.run.dir={tmp_path}/run"]
    # SIGINT as a terminal delivers it: a suite started in the background of a script inherits SIGINT ignored
    proc = subprocess.Popen(args, cwd=ROOT, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    pause = threading.Event()
    for _ in range(6000):
        if proc.poll() is not None or (out.exists() and out.read_text().strip()):
            break
        pause.wait(0.02)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)  # far below the hour the hanging requests would take
    assert proc.returncode == 130 and "Traceback" not in stderr
    assert f"resume=true output={out}" in stderr  # the exact command, with the file
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "interrupted"
    done = len(read_rollouts(out))
    assert 0 < done < 20
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "limit=10", "num_repeats=2", "resume=true",
                     f"output={out}", "progress=false", f"hydra.run.dir={tmp_path}/run2")
    assert result.returncode == 0, result.stderr
    assert len({r["key"] for r in read_rollouts(out)}) == 20 == len(read_rollouts(out))
