"""runtime=docker for real: a Terminal-Bench 2 task (tests/fixtures/harbor, Apache-2.0) through
`python -m gym task=e2e ... runtime=docker agent=oracle`, where a docker daemon answers (`docker info`);
skipped with the reason elsewhere (gym's CI installs podman, not docker: docs/containers.md)."""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_gym

TASKS = ROOT / "tests" / "fixtures" / "harbor" / "terminal-bench-2"
STAND_IN = "python:3.13-slim-bookworm=python:3.13-slim-trixie"  # trixie's own Python 3.13: no compile


def _why_not() -> str | None:
    if shutil.which("docker") is None:
        return "no docker CLI on PATH"
    info = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True)
    if info.returncode != 0 or not info.stdout.strip():
        return f"no docker daemon answers (`docker info`: {(info.stderr.strip().splitlines() or ['?'])[-1]})"
    if shutil.which("mmdebstrap") is None:
        return "mmdebstrap is not installed (the stand-in base is built from the Debian archive)"
    try:
        urllib.request.urlopen("http://deb.debian.org/debian/dists/trixie/Release", timeout=15).close()
    except OSError as exc:
        return f"the Debian archive is unreachable ({exc})"
    return None


def _images() -> list[str]:
    """Image ids, newest first (children before the images they build on)."""
    out = subprocess.run(["docker", "images", "-q", "--no-trunc"], capture_output=True, text=True).stdout
    return list(dict.fromkeys(out.split()))


def test_the_oracle_scores_one_through_docker_and_leaves_nothing_behind(tmp_path):
    why = _why_not()
    if why:
        pytest.skip(why)
    before = _images()
    bundle = os.environ.get("SSL_CERT_FILE") or ssl.get_default_verify_paths().cafile
    knobs = ["benchmark=harbor", f"benchmark.dataset.tasks={TASKS}", "prepare_args.only=[sqlite-db-truncate]",
             "runtime=docker", f"runtime.images=['{STAND_IN}']", f"runtime.cache_dir={tmp_path / 'cache'}",
             "progress=false"] + ([f"runtime.extra_ca_certs=[{bundle}]"] if bundle and Path(bundle).is_file() else [])
    run_dir = tmp_path / "run"
    try:
        result = run_gym("task=e2e", *knobs, "agent=oracle", "model=mock", f"hydra.run.dir={run_dir}",
                         env={"GYM_DATA_DIR": str(tmp_path / "data")}, timeout=1500)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        (row,) = [json.loads(line) for line in (run_dir / "rollouts.jsonl").read_text().splitlines()]
        assert row["status"] == "ok" and row["reward"] == 1.0, (row.get("error"), row["verifier"].get("test_output"))
        record = row["verifier"]
        assert "stand-in: debian trixie" in record["substitutions"][0]["how"]
        assert record["cpu_seconds"] > 0 and record["peak_memory_mb"] > 0  # read from the container's cgroup
        left = subprocess.run(["docker", "ps", "-aq", "--filter", f"label=gym.run={run_dir.resolve()}"],
                              capture_output=True, text=True).stdout
        assert not left.split(), "the run's container outlived it"
        listed = run_gym("task=clean", "runtime=docker", "images=true", "dry_run=true")
        assert listed.returncode == 0 and "gym-task/sqlite-db-truncate" in listed.stdout, listed.stdout + listed.stderr
    finally:
        for image in [image for image in _images() if image not in before]:  # only what this test made
            subprocess.run(["docker", "rmi", "-f", image], capture_output=True)
