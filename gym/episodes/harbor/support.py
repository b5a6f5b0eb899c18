"""What a task's tests download that gym supplies instead, before the tests run.

Terminal-Bench 2's tests install uv with `curl https://astral.sh/uv/<version>/install.sh | sh` and run
`uvx -p 3.13 ...`, which downloads a CPython when the image has none. Where astral.sh and uv's Python
downloads are unreachable, gym puts uv in first (the same version, from its PyPI wheel, fetched once
into the runtime cache) — the installer's failure is then harmless — and, when the image lacks the
Python the tests ask for, installs it from the image's own distribution archive when that carries it.
What was supplied is recorded in the trial's record (`test_support`).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path
from typing import Any

UV_VERSION = re.compile(r"astral\.sh/uv/(\d+\.\d+\.\d+)/install")
UV_PYTHON = re.compile(r"\buvx?\b[^\n]*?(?:-p|--python)\s+(\d+\.\d+)")
DEFAULT_UV = "0.9.5"
_FETCH = threading.Lock()


def uv_binaries(cache: Path, version: str) -> Path:
    """A folder holding uv and uvx of `version`, taken from uv's manylinux wheel on PyPI (once)."""
    folder = cache / "tools" / f"uv-{version}"
    if (folder / "uv").is_file() and (folder / "uvx").is_file():
        return folder
    with _FETCH, tempfile.TemporaryDirectory() as tmp:
        if (folder / "uv").is_file():
            return folder
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                               "--platform", "manylinux_2_17_x86_64", "--python-version", "3.12",
                               "-d", tmp, f"uv=={version}"], capture_output=True, text=True)
        wheels = list(Path(tmp).glob("uv-*.whl"))
        if done.returncode != 0 or not wheels:
            raise RuntimeError(f"uv {version} from PyPI: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
        folder.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheels[0]) as wheel:
            for name in wheel.namelist():
                if re.search(r"\.data/scripts/uvx?$", name):
                    target = folder / Path(name).name
                    target.write_bytes(wheel.read(name))
                    target.chmod(0o755)
    return folder


def provide_test_tools(trial: Any) -> list[str]:
    """Supply uv and the tests' Python where the tests would download them; what was supplied."""
    script = (trial.task.folder / "tests" / "test.sh").read_text(encoding="utf-8", errors="replace")
    supplied: list[str] = []
    if not re.search(r"\buvx?\b", script):
        return supplied
    has = trial.exec("command -v uv >/dev/null && command -v uvx >/dev/null", timeout=30)
    if has.exit_code != 0:
        found = UV_VERSION.search(script)
        version = found[1] if found else DEFAULT_UV
        folder = uv_binaries(trial.runtime.settings.cache(), version)
        for name in ("uv", "uvx"):
            trial.runtime.copy_in(trial.container, folder / name, f"/usr/local/bin/{name}")
        supplied.append(f"uv {version} (PyPI wheel) at /usr/local/bin")
    wanted = UV_PYTHON.search(script)
    if wanted:
        python = f"python{wanted[1]}"
        if trial.exec(f"command -v {python}", timeout=30).exit_code != 0:
            got = trial.exec(f"apt-get update -qq >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y "
                             f"-qq --no-install-recommends {python} >/dev/null 2>&1 && command -v {python}",
                             timeout=600)
            if got.exit_code == 0:
                supplied.append(f"{python} from the distribution archive")
            else:
                supplied.append(portable_python(trial, wanted[1]))
    return supplied


def portable_python(trial: Any, version: str) -> str:
    """CPython X.Y as built for the python:X.Y-slim-bookworm stand-in (once; minutes), copied into the container
    at /opt/gym-python<X.Y> with pythonX.Y on PATH: it runs on any newer glibc (Ubuntu noble's too)."""
    from gym.runtime import BuildFailed, ContainerError, ResourceLimits
    from gym.runtime.bases import ensure_stand_in, stand_in_for

    runtime, folder = trial.runtime, trial.runtime.settings.cache() / "tools" / f"cpython-{version}-bookworm"
    with _FETCH:
        if not (folder / "bin" / f"python{version}").is_file():
            try:
                image = ensure_stand_in(runtime, stand_in_for(f"python:{version}-slim-bookworm"))
                box = runtime.run(image, ResourceLimits())
                try:
                    if not runtime.copy_out(box, "/usr/local", folder):
                        return f"python{version}: could not be copied out of {image}"
                finally:
                    runtime.remove(box)
            except (BuildFailed, ContainerError) as exc:
                return f"python{version}: none here ({exc}); uv will try to download one"
    target = f"/opt/gym-python{version}"
    runtime.copy_in(trial.container, folder, target)
    linked = trial.exec(f"ln -sf {target}/bin/python{version} /usr/local/bin/python{version} && "
                        f"python{version} -c 'import ssl, sqlite3, ctypes'", timeout=60)
    if linked.exit_code != 0:
        return f"python{version}: bookworm's build does not run in this image ({linked.output.strip()[-200:]})"
    return f"python{version} (CPython built on Debian bookworm) at {target}"
