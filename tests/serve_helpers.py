"""task=serve as the tests run it: the real CLI in a subprocess, its URL read from the file it writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import requests

from tests.conftest import ROOT, UPSTREAM, run_gym, wait_until


def prepare(data_dir: Path, *names: str) -> None:
    result = run_gym("task=prepare", f"benchmarks=[{','.join(names)}]", f"data.mirror={UPSTREAM}", "data.offline=true",
                     f"hydra.run.dir={data_dir.with_name(data_dir.name + '-prepare')}", env={"GYM_DATA_DIR": str(data_dir)})
    assert result.returncode == 0, result.stderr


@contextmanager
def served(run_dir: Path, data_dir: Path, *overrides: str, env: dict | None = None, cwd: Path = ROOT) -> Iterator[str]:
    """`python -m gym task=serve <overrides>` until the block ends; yields its URL (from serve.json)."""
    full_env = {**os.environ, "GYM_DATA_DIR": str(data_dir), **(env or {})}
    full_env.pop("HYDRA_FULL_ERROR", None)
    log = open(run_dir.parent / f"{run_dir.name}.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "gym", "task=serve", *overrides, f"hydra.run.dir={run_dir}"],
                            cwd=cwd, env=full_env, stdout=log, stderr=subprocess.STDOUT, text=True)
    info = run_dir / "serve.json"
    try:
        wait_until(lambda: info.is_file() or proc.poll() is not None, "serve.json", 120)
        assert proc.poll() is None, (run_dir.parent / f"{run_dir.name}.log").read_text()
        yield json.loads(info.read_text())["url"]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def post(url: str, path: str, body=None, **kwargs) -> requests.Response:
    return requests.post(url + path, json=body if body is not None else {}, timeout=60, **kwargs)


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
