"""Real runs for the viewer's tests (made with `python -m gym task=e2e ...`, offline) and a viewer started
as users start it (`python -m gym task=view ...`), its URL read from what it prints."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conftest import run_gym


def make_runs(base: Path) -> dict[str, Path]:
    """Run dirs: gsm8k by e2e (metrics, profile, plots), gsm8k again by collect at another mock accuracy (for
    compare), tau2_mock by e2e (episodes); one data dir."""
    env = {"GYM_DATA_DIR": str(base / "data")}
    runs = {"gsm": base / "runs" / "gsm", "gsm_b": base / "runs" / "gsm_b", "tau": base / "runs" / "tau"}
    commands = {
        "gsm": ["task=e2e", "benchmark=gsm8k", "model=mock", "limit=12", "num_repeats=2", "data.offline=true"],
        "gsm_b": ["task=collect", "benchmark=gsm8k", "model=mock", "limit=12", "num_repeats=2", "data.offline=true",
                  "model.mock.accuracy=0.3"],
        "tau": ["task=e2e", "benchmark=tau2_mock", "model=mock", "user=mock", "data.offline=true"],
    }
    for name, args in commands.items():
        result = run_gym(*args, "progress=false", f"hydra.run.dir={runs[name]}", env=env)
        assert result.returncode == 0, result.stderr[-3000:]
    return runs


def data_env(runs: dict[str, Path]) -> dict[str, str]:
    """The environment that points gym at the runs' data dir (the episode pages read the prepared tasks)."""
    return {"GYM_DATA_DIR": str(next(iter(runs.values())).parents[1] / "data")}


class Viewer:
    """`python -m gym task=view <args>` in a subprocess; `url` is the one it printed."""

    def __init__(self, *args: str, env: dict | None = None):
        full_env = {**os.environ, **(env or {})}
        self.workdir = tempfile.mkdtemp(prefix="gym-viewer-")  # its run dir goes here, not into the checkout
        self.process = subprocess.Popen([sys.executable, "-m", "gym", "task=view", *args], cwd=self.workdir,
                                        env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()  # blocks until the viewer prints its URL (or exits)
        found = re.search(r"(http://\S+)/index\.html", line)
        if not found:
            self.process.kill()
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise AssertionError(f"no URL printed: {line!r} {self.process.stderr.read()[-2000:]}")
        self.url = found.group(1)
        self.printed = line

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)  # what Ctrl-C sends
        try:
            return self.process.wait(timeout=30)
        finally:
            self.process.stdout.close()
            self.process.stderr.close()
            shutil.rmtree(self.workdir, ignore_errors=True)
