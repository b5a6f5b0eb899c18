"""gym installed from a wheel (configs and prepare scripts inside the package) works from any directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import pytest

from tests.conftest import ROOT, UPSTREAM


@pytest.fixture(scope="module")
def wheel_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    wheel = next(out.glob("gym_eval_harness-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "gym/conf/config.yaml" in names and "gym/benchmarks/gsm8k/prepare.py" in names
    assert "gym/verifiers/antlr413/antlr4_python3_runtime-4.13.2-py3-none-any.whl" in names  # the math workers' parser runtime
    assert any(n.startswith("gym/data/bundled/") and n.endswith("test.jsonl.gz") for n in names)  # offline demo data
    site = out / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    return site


def run_installed(site, cwd, *args):
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-m", "gym", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_wheel_runs_from_elsewhere(wheel_site, tmp_path):
    where = run_installed(wheel_site, tmp_path, "task=search", "query=gsm8k", "format=json",
                          f"hydra.run.dir={tmp_path}/s")
    assert where.returncode == 0, where.stderr
    assert json.loads(where.stdout)[0]["name"] == "gsm8k"
    data = tmp_path / "data"
    prepared = run_installed(wheel_site, tmp_path, "task=prepare", "benchmark=gsm8k", f"data.mirror={UPSTREAM}",
                             f"data.root={data}", f"hydra.run.dir={tmp_path}/p")
    assert prepared.returncode == 0, prepared.stderr
    assert (data / "gsm8k" / "gsm8k.jsonl").is_file()
    info = run_installed(wheel_site, tmp_path, "task=search", "--info", "searchpath")
    assert str(wheel_site / "gym" / "conf") in info.stdout
