"""uv from its PyPI wheel: the binaries gym supplies where astral.sh and ghcr.io are out of reach.

`uv_binaries(cache, version)` fetches uv's wheel once (PyPI is reachable where registries are not) and
keeps uv and uvx under the runtime cache. They serve two places: the tests' uv (gym puts it in
before Terminal-Bench 2's tests, whose installer downloads it from astral.sh) and the stand-in for
`ghcr.io/astral-sh/uv:<version>` (gym.runtime.bases), the image Dockerfiles `COPY --from` to get uv (its
static build, as that image holds).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

from gym.core.io import replace_dir

_FETCH = threading.Lock()


def uv_binaries(cache: Path, version: str, static: bool = False) -> Path:
    """A folder holding uv and uvx of `version`, taken from uv's wheel on PyPI (once): the manylinux one
    (linked to the image's glibc), or with `static` the musllinux one, a static binary as uv's image ships."""
    folder = cache / "tools" / (f"uv-{version}-static" if static else f"uv-{version}")
    platform = "musllinux_1_1_x86_64" if static else "manylinux_2_17_x86_64"
    if (folder / "uv").is_file() and (folder / "uvx").is_file():
        return folder
    with _FETCH, tempfile.TemporaryDirectory() as tmp:
        if (folder / "uv").is_file() and (folder / "uvx").is_file():
            return folder
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                               "--platform", platform, "--python-version", "3.12",
                               "-d", tmp, f"uv=={version}"], capture_output=True, text=True)
        wheels = list(Path(tmp).glob("uv-*.whl"))
        if done.returncode != 0 or not wheels:
            raise RuntimeError(f"uv {version} from PyPI: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
        partial = folder.with_name(folder.name + ".partial")  # a killed fetch leaves no half-written uv behind
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        with zipfile.ZipFile(wheels[0]) as wheel:
            for name in wheel.namelist():
                if re.search(r"\.data/scripts/uvx?$", name):
                    target = partial / Path(name).name
                    target.write_bytes(wheel.read(name))
                    target.chmod(0o755)
        replace_dir(partial, folder)
    return folder
