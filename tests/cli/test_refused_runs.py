"""Runs refused at the start leave nothing, as the README promises: credentials and endpoints are checked
before task=e2e prepares data, model=mock refuses a base_url it would ignore, and the SLURM dry run of
docs/slurm.md previews the jobs on a machine without SLURM and leaves no multirun.yaml behind."""

from __future__ import annotations

import os
import re
import shlex
import shutil

from tests.conftest import ROOT, assert_clean_failure, run_gym


def _no_key_env(tmp_path) -> dict:
    return {"OPENAI_API_KEY": "", "GYM_DATA_DIR": str(tmp_path / "data")}  # an empty variable is no key


def _run_in(tmp_path, *args: str, env: dict | None = None):
    return run_gym(*args, cwd=tmp_path, env=env)


def test_model_openai_without_a_key_is_refused_before_prepare(tmp_path):
    env = _no_key_env(tmp_path)
    result = _run_in(tmp_path, "task=e2e", "benchmark=gsm8k", "model=openai", "limit=3", env=env)
    assert_clean_failure(result, "OPENAI_API_KEY", "is not set")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [], list(tmp_path.rglob("*"))  # no run dir, no data


def test_an_endpoint_that_does_not_answer_is_refused_before_prepare(tmp_path):
    result = _run_in(tmp_path, "task=e2e", "benchmark=gsm8k", "model=vllm", "model.base_url=http://127.0.0.1:9/v1",
                     "limit=3", env={"GYM_DATA_DIR": str(tmp_path / "data")})
    assert_clean_failure(result, "cannot reach the model endpoint at http://127.0.0.1:9/v1/models")
    assert list(tmp_path.iterdir()) == []


def test_model_mock_refuses_a_base_url_it_would_ignore(tmp_path):
    for task in ("e2e", "collect"):
        result = _run_in(tmp_path, f"task={task}", "benchmark=gsm8k", "model=mock", "model.base_url=http://x",
                         env={"GYM_DATA_DIR": str(tmp_path / "data")})
        assert_clean_failure(result, "model=mock starts gym's own reference server and takes no model.base_url",
                             "model=vllm model.base_url=http://x")
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert list(tmp_path.iterdir()) == []


def _path_without_srun() -> str:
    return os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep)
                           if d and not os.path.exists(os.path.join(d, "srun")))


def test_the_slurm_dry_run_needs_no_slurm_and_leaves_nothing(tmp_path):
    text = (ROOT / "docs" / "slurm.md").read_text().replace("\\\n", " ")
    (line,) = [line for line in text.splitlines() if "hydra.launcher.dry_run=true" in line and "python -m gym" in line]
    argv = shlex.split(line)[3:]
    env = {**os.environ, "PATH": _path_without_srun()}
    assert shutil.which("srun", path=env["PATH"]) is None
    result = _run_in(tmp_path, *argv, env=env)
    assert result.returncode == 0, result.stderr
    assert "gym: dry run, nothing submitted: 2 job(s) as one SLURM array" in result.stdout
    assert "#SBATCH --partition=cpu" in result.stdout and "Traceback" not in result.stderr
    assert re.search(r"#1 task=collect benchmark=gsm8k", result.stdout)
    assert list(tmp_path.iterdir()) == []  # no multirun.yaml, no outputs/
    submit = _run_in(tmp_path, *[a for a in argv if a != "hydra.launcher.dry_run=true"], env=env)
    assert_clean_failure(submit, "needs SLURM's commands (sbatch, srun)", "hydra.launcher.dry_run=true shows the jobs")
    assert list(tmp_path.iterdir()) == []
