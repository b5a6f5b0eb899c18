"""`python -m gym task=clean`: gym's leftover containers (a run killed outright) go, a live run's stay; with
images=true gym's task images are listed too. Real podman containers of a tiny image made from the host's own
`sleep` (no archive, no registry); skipped with the reason where podman is absent."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT, assert_clean_failure, run_gym

HOLDER = """
import sys, time
from gym.runtime import LABEL_RUN, LABEL_TRIAL, ResourceLimits, make_runtime, settings_from_config
runtime = make_runtime(settings_from_config({"provider": "podman", "oci_runtime": "auto",
                                             "ulimits": ["nofile=20000:20000", "nproc=32768:32768"]}))
box = runtime.run(sys.argv[1], ResourceLimits(), labels={LABEL_RUN: sys.argv[2], LABEL_TRIAL: sys.argv[3]})
print(box.id, flush=True)
time.sleep(3600)
"""


def _podman(*args: str) -> str:
    return subprocess.run(["podman", *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def sleep_image(tmp_path_factory):
    """An image holding the host's `sleep` and the libraries it links, labelled as a gym task image."""
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed (.ci/run installs it with apt-get)")
    binary = os.path.realpath(shutil.which("sleep"))
    libraries = re.findall(r"(/\S+) \(0x", subprocess.run(["ldd", binary], capture_output=True, text=True).stdout)
    tarball = tmp_path_factory.mktemp("rootfs") / "sleep.tar"
    with tarfile.open(tarball, "w") as tar:
        for path in [binary, *libraries]:
            tar.add(os.path.realpath(path), arcname=path.lstrip("/"))
    tag = f"localhost/gym-test/sleep:{uuid.uuid4().hex[:8]}"
    _podman("import", "--change", "LABEL gym.managed=1", "--change", f"LABEL gym.task=clean-test-{tag[-8:]}",
            str(tarball), tag)
    yield tag
    subprocess.run(["podman", "rmi", "-f", tag], capture_output=True)


def _hold(image: str, run_dir: Path, trial: str) -> subprocess.Popen:
    """A process that starts a labelled container (as a gym run does) and stays until killed."""
    process = subprocess.Popen([sys.executable, "-c", HOLDER, image, str(run_dir.resolve()), trial], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    process.container = process.stdout.readline().strip()
    assert process.container, "the container did not start"
    return process


def _exists(container: str) -> bool:
    return subprocess.run(["podman", "container", "exists", container]).returncode == 0


def test_clean_removes_a_killed_runs_container_and_leaves_a_live_one(sleep_image, tmp_path):
    killed, live = _hold(sleep_image, tmp_path / "killed", "t-killed"), _hold(sleep_image, tmp_path / "live", "t-live")
    try:
        listed = run_gym("task=clean", f"run={tmp_path / 'killed'}", "dry_run=true")  # a named run: alive or not
        assert listed.returncode == 0, listed.stderr
        assert killed.container[:12] in listed.stdout and "t-killed" in listed.stdout
        assert live.container[:12] not in listed.stdout
        assert "dry run, nothing removed (1 found)" in listed.stdout
        assert _exists(killed.container)

        killed.send_signal(signal.SIGKILL)
        killed.wait()
        # a run killed outright leaves its container behind (any gym run on the host may sweep it first)
        left = _exists(killed.container)
        cleaned = run_gym("task=clean")  # every run's leftovers: those whose gym process is gone
        assert cleaned.returncode == 0, cleaned.stderr
        assert not left or ("removed" in cleaned.stdout and killed.container[:12] in cleaned.stdout), cleaned.stdout
        assert not _exists(killed.container)
        assert _exists(live.container)  # its gym process still runs

        again = run_gym("task=clean", f"run={tmp_path / 'killed'}")
        assert f"no containers of run {tmp_path / 'killed'}" in again.stdout

        stopped = run_gym("task=clean", f"run={tmp_path / 'live'}")  # a named run goes whole, alive or not
        assert stopped.returncode == 0 and "removed 1 of 1" in stopped.stdout, stopped.stdout + stopped.stderr
        assert not _exists(live.container)
    finally:
        for process in (killed, live):
            process.kill()
            subprocess.run(["podman", "rm", "-f", "-t", "0", process.container], capture_output=True)


def test_clean_lists_gym_task_images(sleep_image):
    listed = run_gym("task=clean", "images=true", "dry_run=true")
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"task image .*" + re.escape(sleep_image), listed.stdout), listed.stdout
    assert subprocess.run(["podman", "image", "exists", sleep_image]).returncode == 0


def test_clean_says_what_images_may_be():
    assert_clean_failure(run_gym("task=clean", "images=some"), "images=some is not one of: false, true")
