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
import threading
from typing import Any

from gym.runtime.uv import uv_binaries

UV_VERSION = re.compile(r"astral\.sh/uv/(\d+\.\d+\.\d+)/install")
UV_PYTHON = re.compile(r"\buvx?\b[^\n]*?(?:-p|--python)\s+(\d+\.\d+)")
DEFAULT_UV = "0.9.5"
_FETCH = threading.Lock()


def provide_test_tools(trial: Any) -> list[str]:
    """Supply uv and the tests' Python where the tests would download them; what was supplied."""
    script = (trial.task.folder / "tests" / "test.sh").read_text(encoding="utf-8", errors="replace")
    script = script.replace("\\\n", " ")  # continuation lines joined: `uvx \\n  -p 3.13 ...` is one command
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
                        f"python{version} -c 'import ssl'", timeout=60)  # (modules whose libraries the image lacks stay unusable)
    if linked.exit_code != 0:
        return f"python{version}: bookworm's build does not run in this image ({linked.output.strip()[-200:]})"
    return f"python{version} (CPython built on Debian bookworm) at {target}"
