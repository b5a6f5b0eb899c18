"""Shared test fixtures: a real loopback HTTP server for upstream fixture files, and a CLI runner."""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
UPSTREAM = FIXTURES / "upstream"  # laid out as a download mirror: <host>/<path>
REAL_DATA = FIXTURES / "real"  # exact copies of public upstream files, each with its licence


def wait_until(condition: Callable[[], object], what: str, seconds: float = 60.0) -> None:
    """Poll `condition` until it holds: tests wait for a state, never for a fixed time; the bound only
    turns a hang into a failure that says what never happened."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:.0f} s for {what}")
        time.sleep(0.01)


def children_of_this_process() -> set[int]:
    """PIDs of this process's children, over all its threads."""
    pids = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as handle:
                pids.update(int(pid) for pid in handle.read().split())
        except FileNotFoundError:  # a thread (e.g. another test's server) ended since the listing
            continue
    return pids


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


def serve_directory(directory: Path):
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="session")
def mirror_url():
    """URL of a loopback server that serves tests/fixtures/upstream like a `wget -x` mirror."""
    server, url = serve_directory(UPSTREAM)
    yield url
    server.shutdown()


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    path = tmp_path / "data"
    monkeypatch.setenv("GYM_DATA_DIR", str(path))
    return path


def run_gym(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run the real CLI (`python -m gym ...`) in a subprocess."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("HYDRA_FULL_ERROR", None)
    return subprocess.run([sys.executable, "-m", "gym", *args], cwd=cwd or ROOT, env=full_env, text=True,
                          capture_output=True, timeout=timeout)


def assert_clean_failure(result: subprocess.CompletedProcess, *needles: str) -> None:
    """Non-zero exit, no traceback, and the message names what went wrong."""
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr
