"""`COPY --from=ghcr.io/astral-sh/uv:<version>` where no registry is reachable: gym makes uv's image from uv's
wheel of that version (a static build, on an empty image, as uv ships it) and copies from that instead, recording
the substitution; prepare's scan counts such a task as runnable.

The wheel comes from a package index on 127.0.0.1 (PIP_INDEX_URL), a real-format wheel holding small uv and uvx
scripts, so the real uv (20 MB from PyPI) is not needed. The image build is real (podman; skipped without it)
and takes seconds: nothing but two files on an empty image.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_gym, serve_directory

VERSION = "0.8.14"
WHEEL = f"uv-{VERSION}-py3-none-musllinux_1_1_x86_64.whl"
TASK = ROOT / "tests" / "fixtures" / "harbor" / "terminal-bench-2" / "sqlite-db-truncate"


def _wheel(folder: Path) -> dict[str, bytes]:
    """A wheel laid out as uv's (scripts under uv-X.Y.Z.data/scripts/) in a PEP 503 index; the scripts."""
    scripts = {name: f"#!/bin/sh\necho {name} {VERSION}\n".encode() for name in ("uv", "uvx")}
    (folder / "simple" / "uv").mkdir(parents=True)
    info = f"uv-{VERSION}.dist-info"
    with zipfile.ZipFile(folder / "simple" / "uv" / WHEEL, "w") as wheel:
        for name, body in scripts.items():
            wheel.writestr(f"uv-{VERSION}.data/scripts/{name}", body)
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: uv\nVersion: {VERSION}\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
                                        "Tag: py3-none-musllinux_1_1_x86_64\n")
        wheel.writestr(f"{info}/RECORD", "")
    (folder / "simple" / "uv" / "index.html").write_text(f'<a href="{WHEEL}">{WHEEL}</a>\n')
    return scripts


@pytest.fixture
def podman_runtime(tmp_path, monkeypatch):
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed (.ci/run installs it with apt-get)")
    from gym.runtime import make_runtime, settings_from_config

    server, url = serve_directory(tmp_path / "index")
    scripts = _wheel(tmp_path / "index")
    monkeypatch.setenv("PIP_INDEX_URL", f"{url}/simple")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # no extra index from the machine's pip.conf
    runtime = make_runtime(settings_from_config({
        "provider": "podman", "oci_runtime": "auto", "ulimits": ["nofile=20000:20000", "nproc=32768:32768"],
        "cache_dir": str(tmp_path / "cache")}))
    made: list[str] = []
    yield runtime, scripts, made
    server.shutdown()
    for tag in made:
        subprocess.run(["podman", "rmi", "-f", tag], capture_output=True)


def _file_in_image(tag: str, path: str) -> bytes:
    box = subprocess.run(["podman", "create", tag, path], capture_output=True, text=True, check=True).stdout.strip()
    try:
        return subprocess.run(["podman", "cp", f"{box}:{path}", "-"], capture_output=True, check=True).stdout
    finally:
        subprocess.run(["podman", "rm", "-f", box], capture_output=True)


def test_copy_from_uvs_image_uses_a_stand_in_made_from_its_wheel(podman_runtime, tmp_path):
    import tarfile
    from io import BytesIO

    from gym.runtime import build_task_image

    runtime, scripts, made = podman_runtime
    environment = tmp_path / "environment"
    environment.mkdir()
    (environment / "Dockerfile").write_text(
        f"FROM scratch AS empty\nFROM empty\nCOPY --from=ghcr.io/astral-sh/uv:{VERSION} /uv /uvx /bin/\n"
        "COPY --from=empty / /\n")  # a stage named in COPY --from stays a stage
    built = build_task_image(runtime, environment, "uv-copy", timeout=300)
    stand_in = built.substitutions[0]["used"]
    made += [built.tag, stand_in]
    assert built.substitutions == [{"image": f"ghcr.io/astral-sh/uv:{VERSION}", "used": stand_in,
                                    "how": f"stand-in: uv {VERSION} from its PyPI wheel (static /uv, /uvx on an empty image)"}]
    assert stand_in.startswith(f"localhost/gym-standin/ghcr.io-astral-sh-uv-{VERSION}:")
    for name, body in scripts.items():  # the wheel's own files, where the task's Dockerfile put them
        with tarfile.open(fileobj=BytesIO(_file_in_image(built.tag, f"/bin/{name}"))) as tar:
            assert tar.extractfile(name).read() == body
    config = json.loads(subprocess.run(["podman", "image", "inspect", stand_in], capture_output=True, text=True,
                                       check=True).stdout)[0]["Config"]
    assert (config["WorkingDir"], config["Entrypoint"]) == ("/io", ["/uv"])  # as uv's image has them
    assert build_task_image(runtime, environment, "uv-copy").cached  # the stand-in found again, the image reused


def test_prepare_counts_a_task_copying_uv_as_runnable_and_says_why_not_where_uv_needs_a_python(tmp_path):
    tasks = tmp_path / "tasks"
    for name, lines in {"copies-uv": f"COPY --from=ghcr.io/astral-sh/uv:{VERSION} /uv /uvx /bin/\n",
                        "uv-without-python": f"FROM ubuntu:24.04\nCOPY --from=ghcr.io/astral-sh/uv:{VERSION} /uv /bin/\n"
                                             "RUN uv run /app/x.py\n"}.items():
        shutil.copytree(TASK, tasks / name)
        dockerfile = tasks / name / "environment" / "Dockerfile"
        dockerfile.write_text(dockerfile.read_text().rstrip("\n") + "\n" + lines)
    result = run_gym("task=prepare", "benchmark=harbor", f"benchmark.dataset.tasks={tasks}",
                     f"hydra.run.dir={tmp_path / 'run'}", env={"GYM_DATA_DIR": str(tmp_path / "data")})
    assert result.returncode == 0, result.stderr
    (manifest,) = (tmp_path / "data" / "harbor").glob("*/runnable.json")  # one folder of tasks
    listing = {item["task"]: item for item in json.loads(manifest.read_text())}
    assert listing["copies-uv"]["runs_here"] is True
    assert listing["uv-without-python"]["why_not"] == (
        "build runs uv in an image without Python: uv downloads one from github.com (unreachable here)")
