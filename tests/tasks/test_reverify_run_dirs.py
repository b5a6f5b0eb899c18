"""task=reverify writes into its own run dir and leaves the run it reads as it was; reading a run dir takes one
rollouts file per run, so a run with an older gym's `rollouts.reverified.jsonl` beside its `rollouts.jsonl`
aggregates, compares and shows in the viewer as one run, without duplicate rows."""

from __future__ import annotations

import json
import shutil

import pytest
import requests

from tests.conftest import run_gym
from tests.view_helpers import Viewer


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    home = tmp_path_factory.mktemp("reverify")
    env = {"GYM_DATA_DIR": str(home / "data")}
    run = home / "runs" / "gsm"
    result = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=10", "num_repeats=2", "progress=false",
                     f"hydra.run.dir={run}", env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    return home, run, env


def test_reverify_writes_into_its_own_run_dir(collected):
    home, run, env = collected
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    out = home / "outputs" / "reverify" / "now"
    result = run_gym("task=reverify", f"rollouts={run}", f"hydra.run.dir={out}", env=env)
    assert result.returncode == 0, result.stderr
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before  # nothing added or changed
    assert (out / "rollouts.jsonl").is_file() and (out / "metrics.json").is_file()
    for spec in (run, out):
        again = run_gym("task=aggregate", f"rollouts={spec}", f"hydra.run.dir={home / 'agg' / spec.name}", env=env)
        assert again.returncode == 0 and "duplicate" not in again.stdout + again.stderr
        assert "read 20 row(s) from 1 file(s)" in again.stdout


@pytest.fixture
def old_layout(collected, tmp_path):
    """A run as an older gym left it after task=reverify: the re-verified file beside the original."""
    _, run, _ = collected
    old = tmp_path / "runs" / "old"
    shutil.copytree(run, old)
    shutil.copyfile(old / "rollouts.jsonl", old / "rollouts.reverified.jsonl")
    return old


def test_a_run_dir_with_a_reverified_file_reads_as_one_run(collected, old_layout, tmp_path):
    home, run, env = collected
    result = run_gym("task=aggregate", f"rollouts={old_layout}", f"hydra.run.dir={tmp_path / 'a'}", env=env)
    assert result.returncode == 0, result.stderr
    assert "duplicate" not in result.stdout + result.stderr and "read 20 row(s) from 1 file(s)" in result.stdout
    inputs = json.loads((tmp_path / "a" / "metrics.json").read_text())["inputs"]
    assert [p.rsplit("/", 1)[1] for p in inputs["files"]] == ["rollouts.reverified.jsonl"]
    pair = run_gym("task=aggregate", f"compare=[{run},{old_layout}]", f"hydra.run.dir={tmp_path / 'c'}", env=env)
    assert pair.returncode == 0, pair.stderr
    assert "duplicate" not in pair.stdout + pair.stderr


def test_the_viewer_lists_one_run_per_run_dir(collected, old_layout):
    _, _, env = collected
    viewer = Viewer(f"rollouts={old_layout.parent}", env=env)
    try:
        runs = requests.get(f"{viewer.url}/api/runs", timeout=60).json()
    finally:
        assert viewer.stop() == 0
    assert sorted(r["name"] for r in runs) == ["old"], runs
