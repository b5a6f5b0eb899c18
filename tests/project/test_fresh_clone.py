"""A fresh clone with nothing beside it, on a machine without internet: set up, run its tests, "Try it".

The clone is what a commit of this checkout would hold (tracked and new unignored files), copied into an
empty temp dir. Set-up is the README's, without the network: a new venv and `pip install -e` of the clone
(its dependencies are taken from the running environment instead of the package index). Downloads are
blocked by pointing the proxy at a closed port, so any attempt to reach the internet fails at once.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

BLOCKED = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
           "https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9",
           "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def _copy_checkout(target: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a file deleted but not yet committed is listed too
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    home = tmp_path_factory.mktemp("fresh")
    checkout = home / "gym"
    _copy_checkout(checkout)
    venv = checkout / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    target_site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                      capture_output=True, text=True, check=True).stdout.strip())
    (target_site / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--no-build-isolation", "--no-index", "-e", f"{checkout}[dev]"], check=True,
                   capture_output=True, env={**os.environ, **BLOCKED})
    return checkout, python


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("GYM_DATA_DIR", "PYTHONPATH", "HYDRA_FULL_ERROR")}
    return {**env, **BLOCKED}


def test_try_it_offline_in_a_fresh_clone(clone):
    checkout, python = clone
    readme = (checkout / "README.md").read_text()
    command = next(line.split("#")[0].split() for line in readme.splitlines()
                   if line.startswith(".venv/bin/python -m gym task=e2e"))
    result = subprocess.run([str(python), *command[1:]], cwd=checkout, env=_env(), capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "pass@1" in result.stdout and "majority@4" in result.stdout  # the metrics table, 4 repeats
    assert "copy bundled with gym" in result.stderr
    data = checkout / "data" / "gsm8k" / "gsm8k.jsonl"
    assert len(data.read_text().splitlines()) == 1319
    runs = list((checkout / "outputs" / "e2e").iterdir())
    assert len(runs) == 1 and (runs[0] / "report.html").is_file() and (runs[0] / "metrics.json").is_file()


def test_fresh_clone_tests_read_only_their_own_files(clone):
    checkout, python = clone
    result = subprocess.run([str(python), "-m", "pytest", "-o", "addopts=-p no:cacheprovider", "-q", "-rs",
                             "tests/benchmarks/test_prepare_math_mcq_ifeval.py", "tests/tasks/test_collect.py",
                             "-k", "gsm8k or collect_with_mock"], cwd=checkout, env=_env(),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:]
    assert " passed" in result.stdout and "skipped" not in result.stdout, result.stdout[-3000:]
