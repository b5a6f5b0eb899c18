"""SWE-bench's oldest Pythons (3.5, 3.6, 3.7) on their Ubuntu stand-ins, built the way an instance is built.

    .venv/bin/python tools/swebench_old_python.py [--python 3.5 3.6 3.7] [--extra-ca PEM ...] [--keep-images]

For each Python: an environment plan of that Python with pytest as its one pip package (its base image,
ubuntu:16.04 or ubuntu:18.04 as for SWE-bench's specs, is a stand-in gym builds with mmdebstrap from the Ubuntu
archive), the instance Dockerfile that gym.swebench writes for it (the distribution's pythonX.Y, a venv at
/opt/testbed, pip replaced from PyPI by the last pip for that Python, then pytest), over a repository with one
test file; then, in a
container of the image: the venv's Python, pip and pytest versions and a pytest run. Prints build times
(the stand-in base once, then the instance image) and image sizes.
"""

from __future__ import annotations

import argparse
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gym.runtime import BuildFailed, ResourceLimits, build_task_image, make_runtime, settings_from_config  # noqa: E402
from gym.swebench.scripts import dockerfile, setup_env_script, setup_repo_script  # noqa: E402
from gym.swebench.specs import EnvironmentPlan, PYTHON_BASES  # noqa: E402

TEST = "def test_old_python():\n    assert sum(range(4)) == 6\n"
CHECK = ("python --version 2>&1 && python -m pip --version && python -m pytest --version 2>&1 | head -n 1 "
         "&& python -m pytest -q test_old.py 2>&1 | tail -n 1")


def context(python: str, dest: Path) -> Path:
    """A build context as gym.swebench.scripts.build_context writes one, for a one-test repository."""
    plan = EnvironmentPlan(python, PYTHON_BASES[python], None, pip_packages=["pytest"], test_cmd="pytest -rA",
                           log_parser="parse_log_pytest")
    repo = dest / "repo"
    repo.mkdir(parents=True)
    (repo / "test_old.py").write_text(TEST)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=gym", "-c", "user.email=gym@localhost", "commit", "-qm", "one test"],
                   cwd=repo, check=True)
    (repo / ".git" / "index").unlink()
    (dest / "requirements.txt").write_text("")
    (dest / "setup_env.sh").write_text(setup_env_script(plan, None))
    (dest / "setup_repo.sh").write_text(setup_repo_script(plan))
    (dest / "Dockerfile").write_text(dockerfile(plan))
    return dest


def one(runtime, python: str, keep: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="gym-old-python-") as folder:
        started = time.monotonic()
        try:
            built = build_task_image(runtime, context(python, Path(folder) / "environment"), f"old-python-{python}",
                                     timeout=3600)
        except BuildFailed as exc:
            return {"python": python, "outcome": "build_error", "seconds": round(time.monotonic() - started),
                    "why": (exc.output or str(exc)).strip().splitlines()[-5:]}
    try:
        size = runtime.call("image", "inspect", "--format", "{{.Size}}", built.tag, timeout=300).strip()
        container = runtime.run(built.tag, ResourceLimits(network=False))
        try:
            checked = runtime.exec(container, CHECK, timeout=300)
        finally:
            runtime.remove(container)
    finally:
        if not keep:
            runtime.remove_image(built.tag)
    return {"python": python, "base": PYTHON_BASES[python], "outcome": "ok" if checked.exit_code == 0 else "failed",
            "base_seconds": round(built.base_seconds), "image_seconds": round(built.seconds),
            "image_mb": round(int(size) / 1e6), "output": checked.output.strip().splitlines()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", nargs="*", default=["3.5", "3.6", "3.7"])
    parser.add_argument("--extra-ca", nargs="*", default=None, help="PEM files to trust (default: the host's store)")
    parser.add_argument("--keep-images", action="store_true")
    args = parser.parse_args()
    extra = args.extra_ca if args.extra_ca is not None else [ssl.get_default_verify_paths().cafile]
    runtime = make_runtime(settings_from_config({"provider": "podman", "oci_runtime": "auto",
                                                 "ulimits": ["nofile=20000:20000", "nproc=32768:32768"],
                                                 "extra_ca_certs": [path for path in extra if path]}))
    runtime.check()
    for python in args.python:
        result = one(runtime, python, args.keep_images)
        print(f"Python {python} on {PYTHON_BASES[python]}: {result['outcome']} "
              f"(stand-in base {result.get('base_seconds', '-')} s, image {result.get('image_seconds', '-')} s, "
              f"{result.get('image_mb', '-')} MB)", flush=True)
        for line in result.get("output") or result.get("why") or []:
            print(f"    {line}", flush=True)


if __name__ == "__main__":
    main()
