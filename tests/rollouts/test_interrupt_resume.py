"""Long runs: output caps and the rollout time budget counted in the summary, SIGTERM/SIGHUP handled like
Ctrl-C with the exact resume command, resume=true finding the run to continue, and gym.log contents."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gym.core.errors import GymError
from tests.conftest import ROOT, assert_clean_failure, run_gym
from tests.tasks.test_collect import prepared, read_rollouts, run_collect  # noqa: F401  (fixture)


def test_default_cap_is_sent_and_cut_replies_are_counted(prepared, tmp_path):
    run_collect(tmp_path / "a", "limit=3", "num_repeats=1")
    sent = json.loads((tmp_path / "a" / "run.json").read_text())["endpoint"]["sampling_sent"]
    assert sent["max_tokens"] == 4096  # gsm8k's default cap (benchmark.max_tokens)
    summary = run_collect(tmp_path / "b", "limit=4", "num_repeats=1", "model.sampling.max_tokens=3")
    assert summary["limits"]["cut_at_max_tokens"] == 4
    rows = read_rollouts(tmp_path / "b" / "rollouts.jsonl")
    assert all(r["finish_reason"] == "length" for r in rows)


def test_responses_api_cut_is_length(prepared, tmp_path):
    summary = run_collect(tmp_path, "limit=3", "num_repeats=1", "model.api=responses", "model.sampling.max_tokens=3")
    assert summary["limits"]["cut_at_max_tokens"] == 3


def test_rollout_timeout_bounds_retries_of_a_runaway_generation(prepared, tmp_path):
    # every request hangs: without a budget each rollout would wait timeout x (1 + max_retries)
    overrides = ["limit=2", "num_repeats=1", "model.mock.faults={hang: 1.0}", "model.mock.hang_seconds=30",
                 "model.timeout=1", "model.rollout_timeout=1.5", "model.max_retries=5", "concurrency=2"]
    with pytest.raises(GymError, match="infrastructure errors"):
        run_collect(tmp_path, *overrides)
    rows = read_rollouts(tmp_path / "rollouts.jsonl")
    assert all(r["status"] == "infra_error" and r["error"].startswith("rollout_timeout") for r in rows)
    assert all(r["attempts"] <= 2 for r in rows)  # the budget, not max_retries, ended them
    run_json = json.loads((tmp_path / "run.json").read_text())
    assert run_json["limits"]["out_of_time"] == 2 and run_json["status"] == "incomplete"


def test_empty_replies_and_completions_with_a_chat_model(prepared, tmp_path, caplog):
    summary = run_collect(tmp_path, "limit=3", "num_repeats=1", "model.api=completions", "model.name=my-instruct",
                          "model.sampling.max_tokens=3")
    assert "looks like a chat model" in caplog.text
    assert summary["counts"]["ok"] == 3


def _start(args: list[str], out: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "gym", *args], cwd=ROOT, env=os.environ.copy(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait = threading.Event()
    for _ in range(6000):  # until some rollouts are on disk (or the process ended)
        if proc.poll() is not None or (out.is_file() and out.read_text().count("\n") >= 2):
            break
        wait.wait(0.01)
    return proc


@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_stop_like_ctrl_c(prepared, tmp_path, signum, code):
    run = tmp_path / "run"
    args = ["task=collect", "benchmark=gsm8k", "model=mock", "limit=10", "num_repeats=2", "concurrency=2",
            "model.mock.latency={dist: uniform, low: 0.01, high: 4}", "progress=false", f"hydra.run.dir={run}"]
    proc = _start(args, run / "rollouts.jsonl")
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr
    run_json = json.loads((run / "run.json").read_text())
    assert run_json["status"] == "interrupted"
    hint = stderr.strip().splitlines()[-1]
    command = hint.split("continue with: ", 1)[1]
    assert command.startswith("python -m gym ") and f"output={run / 'rollouts.jsonl'}" in command
    assert "gym.log" and "interrupted" in (run / "gym.log").read_text()
    # the printed command, run as printed (with the latency made short), finishes the run in the same file
    argv = [a if not a.startswith("model.mock.latency") else "model.mock.latency=0" for a in shlex.split(command)[3:]]
    result = run_gym(*argv, f"hydra.run.dir={tmp_path / 'run2'}")
    assert result.returncode == 0, result.stderr
    rows = read_rollouts(run / "rollouts.jsonl")
    assert len({r["key"] for r in rows}) == 20 == len(rows)
    assert json.loads((run / "run.json").read_text())["status"] == "done"


@pytest.mark.slow
def test_resume_without_output_continues_the_newest_unfinished_run(prepared, tmp_path):
    outputs = tmp_path / "outputs" / "collect"
    base = ["task=collect", "benchmark=gsm8k", "model=mock", "limit=6", "num_repeats=2", "progress=false"]
    # an older finished run and an unfinished one (a hard kill leaves run.json at "running")
    assert run_gym(*base, f"hydra.run.dir={outputs / '2026-01-01_00-00-00'}").returncode == 0
    first = outputs / "2026-01-02_00-00-00"
    proc = _start([*base, "model.mock.latency=0.2", "concurrency=1", f"hydra.run.dir={first}"],
                  first / "rollouts.jsonl")
    proc.kill()
    proc.communicate()
    done_before = len(read_rollouts(first / "rollouts.jsonl"))
    assert 0 < done_before < 12
    result = run_gym(*base, "resume=true", f"hydra.run.dir={outputs / '2026-01-03_00-00-00'}")
    assert result.returncode == 0, result.stderr
    assert f"resuming {first}" in result.stdout
    rows = read_rollouts(first / "rollouts.jsonl")
    assert len({r["key"] for r in rows}) == 12 == len(rows)
    assert json.loads((first / "run.json").read_text())["status"] == "done"
    # nothing left to resume: one line, not a fresh start
    again = run_gym(*base, "resume=true", f"hydra.run.dir={outputs / '2026-01-04_00-00-00'}")
    assert_clean_failure(again, "no unfinished collect run of gsm8k")


def test_resume_with_a_missing_output_is_an_error(prepared, tmp_path):
    with pytest.raises(GymError, match="resume=true but output=.*does not exist"):
        run_collect(tmp_path, "resume=true", f"output={tmp_path / 'nope.jsonl'}")
    assert not (tmp_path / "nope.jsonl").exists()


@pytest.mark.slow
def test_e2e_resume_keeps_everything_in_the_first_run_dir(data_dir, tmp_path):
    from tests.conftest import UPSTREAM

    outputs = tmp_path / "outputs" / "e2e"
    first = outputs / "2026-01-01_00-00-00"
    base = ["task=e2e", "benchmark=gsm8k", "model=mock", "limit=4", "num_repeats=2", "progress=false",
            f"data.mirror={UPSTREAM}"]
    proc = _start([*base, "model.mock.latency=0.3", "concurrency=1", f"hydra.run.dir={first}"],
                  first / "rollouts.jsonl")
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143 and f"output={first / 'rollouts.jsonl'}" in stderr
    second = outputs / "2026-01-02_00-00-00"
    result = run_gym(*base, "resume=true", f"hydra.run.dir={second}")
    assert result.returncode == 0, result.stderr
    for name in ("rollouts.jsonl", "run.json", "metrics.json", "reward_profile.jsonl", "report.html"):
        assert (first / name).is_file(), name
        assert not (second / name).exists(), name
    assert len(read_rollouts(first / "rollouts.jsonl")) == 8


def test_gym_log_gets_warnings_summary_and_errors(prepared, tmp_path):
    run = tmp_path / "run"
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "limit=2", "num_repeats=1", "progress=false",
                     "model.api=completions", "model.name=gym-mock-instruct", "model.mock.faults={error_503: 0.5}",
                     "model.mock.retry_after=0", f"hydra.run.dir={run}")
    assert result.returncode == 0, result.stderr
    log = (run / "gym.log").read_text()
    assert "looks like a chat model" in log  # a warning
    assert "request(s) retried" in log  # retries (at most one line per 30 s)
    assert "gsm8k × gym-mock-instruct: 2 rollouts" in log and "model gym-mock-instruct at" in log  # the summary
    failed = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "limit=2", "num_repeats=1",
                     "model.mock.faults={error_500: 1.0}", "model.max_retries=0", f"hydra.run.dir={tmp_path / 'failed'}")
    assert_clean_failure(failed, "infrastructure errors")
    assert "error: 2 of 2 rollouts hit infrastructure errors" in (tmp_path / "failed" / "gym.log").read_text()


def _task_pids(marker: str) -> list[int]:
    """Pids of submitit task processes (`python -m submitit.core._submit <folder>`) under `marker`."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
        if "submitit.core._submit" in cmdline and marker in cmdline:
            pids.append(int(proc.name))
    return pids


@pytest.mark.slow
def test_submitit_sweep_job_resumes_after_preemption(prepared, tmp_path):
    """submitit's pre-emption signal (USR2) checkpoints and requeues the job; the requeued job runs again in
    its own job dir and continues the rollouts already there instead of starting over."""
    sweep = tmp_path / "sweep"
    proc = subprocess.Popen([sys.executable, "-m", "gym", "-m", "task=collect", "benchmark=gsm8k", "model=mock",
                             "limit=10", "num_repeats=2", "concurrency=1", "model.mock.latency=0.1", "progress=false",
                             "hydra/launcher=submitit_local", f"hydra.sweep.dir={sweep}"],
                            cwd=ROOT, env=os.environ.copy(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = sweep / "0_gsm8k_mock" / "rollouts.jsonl"
    wait = threading.Event()
    for _ in range(12000):
        if proc.poll() is not None or (out.is_file() and out.read_text().count("\n") >= 3):
            break
        wait.wait(0.01)
    pids = _task_pids(str(sweep))
    assert len(pids) == 1, pids
    os.kill(pids[0], signal.SIGUSR2)
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    rows = read_rollouts(out)
    assert len({r["key"] for r in rows}) == 20 == len(rows)  # finished, nothing done twice
    assert "resuming" in (out.parent / "gym.log").read_text()  # the requeued job continued the file
