"""Common command-line mistakes end in one line on stderr, exit 2, and leave nothing behind.

Each case runs the real CLI (`python -m gym ...`) from an empty working directory, so "nothing behind"
means: no outputs/ run dir, no data dir, and (for secrets) the value in no file and no message.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import hydra
from gym.cli import main as entry
from gym.cli.overrides import known_keys
from tests.conftest import assert_clean_failure, ROOT, run_gym

pytestmark = pytest.mark.slow


def one_line_failure(result, *needles, code=2):
    assert result.returncode == code, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gym: error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("GYM_DATA_DIR", str(tmp_path / "data"))
    return work


def files_under(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize("args, needles", [
    (["task=collect", "benchmark=gsm8k", "num_repeat=4"], ["unknown key 'num_repeat'", "did you mean num_repeats"]),
    (["task=collect", "benchmark=gsm8k", "+num_repeat=4"], ["'+num_repeat'", "did you mean num_repeats"]),
    (["task=collect", "model.temprature=0.2"], ["'model.temprature'", "did you mean model.sampling.temperature"]),
    (["task=e2e", "+judge.colour=red"], ["'+judge.colour'"]),
    (["task=search", "+benchmark.bogus=1"], ["'+benchmark.bogus'"]),
    (["task=search", "output=json"], ["task=search has no 'output' key", "format=table|json"]),
    (["task=aggregate", "rollouts=x", "output=json"], ["task=aggregate has no 'output' key", "format="]),
    (["task=search", "limit=3"], ["task=search has no 'limit' key", "max_rows="]),
    (["task=prepare", "use_cached=true"], ["prepare.force=true"]),
    (["task", "collect"], ["'task' is not an override", "did you mean task=collect?"]),
    (["benchmark=gsm8k", "model=mock"], ["no task chosen", "task=<search|prepare|collect"]),
    (["task=prepare", "benchmarks=al"], ["unknown benchmark 'al'", "did you mean all"]),
    (["task=colect"], ["unknown task 'colect'", "did you mean collect"]),
    (["task=collect", "model=vlm"], ["unknown model 'vlm'", "did you mean vllm"]),
])
def test_mistake_is_one_line_before_anything_is_written(cwd, args, needles):
    one_line_failure(run_gym(*args, cwd=cwd), *needles)
    assert files_under(cwd) == [] and not (cwd.parent / "data").exists()


@pytest.mark.parametrize("args, needles", [
    (["task=prepare", "benchmarks=[]"], ["benchmarks=[] selects nothing"]),
    (["task=collect", "benchmark=gsm8k", "model=mock", "num_repeats=0"], ["num_repeats=0 must be at least 1"]),
    (["task=collect", "benchmark=gsm8k", "model=mock", "concurrency=0"], ["concurrency=0 must be at least 1"]),
    (["task=e2e", "benchmark=gsm8k", "model=mock", "limit=0"], ["limit=0 must be at least 1"]),
])
def test_silent_no_ops_are_refused_without_a_run_dir(cwd, args, needles):
    one_line_failure(run_gym(*args, cwd=cwd), *needles)
    assert files_under(cwd) == []


@pytest.mark.parametrize("override", [
    "+model.api_key=sk-proj-abcdefgh12345678",
    "model.api_key_env=sk-abc123",
    "judge.api_key_env=nvapi-AbCdEf0123456789",
    "+hydra.job.env_set.HF_TOKEN=hf_AbCdEfGh12345678",
    "model.sampling.extra_body={authorization: 'Bearer abcdefghijklmnop'}",
    "+model.sampling.extra_body.note=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx",
    "+model.sampling.extra_body.note=nvapi-AbCdEfGhIjKlMnOpQrStUvWx0123",
])
def test_secrets_are_refused_unseen_and_unsaved(cwd, override):
    secret = override.split("=", 1)[1]
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", override, cwd=cwd)
    line = one_line_failure(result, "environment variable")
    for part in ("abcdefgh", "abc123", "AbCdEf", "abcdefghijklmnop", "IjKlMnOp"):
        if part in secret:
            assert part not in result.stdout + result.stderr
    assert files_under(cwd) == []
    assert "api_key_env" in line


def test_paths_that_merely_look_alike_are_not_secrets(cwd):
    result = run_gym("task=search", "query=x", f"data.root={cwd.parent}/hf_cache_data/sk-build", cwd=cwd)
    assert result.returncode == 0, result.stderr


def test_multirun_flag_anywhere(cwd):
    sweep = cwd / "sweep"
    result = run_gym("task=search", "query=aime,gsm8k", "-m", "format=json", f"hydra.sweep.dir={sweep}", cwd=cwd)
    assert result.returncode == 0, result.stderr
    assert [j["status"] for j in json.loads((sweep / "summary.json").read_text())["jobs"]] == ["ok", "ok"]


def test_search_and_help_leave_no_run_dir(cwd):
    assert run_gym("task=search", "query=math", cwd=cwd).returncode == 0
    assert run_gym("--help", cwd=cwd).returncode == 0
    assert run_gym("task=search", "benchmark=gsm8k", cwd=cwd).returncode == 0
    assert files_under(cwd) == []


def test_failed_run_leaves_no_empty_run_dir_but_a_run_with_results_keeps_its_log(cwd):
    failed = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "data.offline=true", cwd=cwd)
    one_line_failure(failed, "task=prepare benchmark=gsm8k")
    assert files_under(cwd) == []
    assert run_gym("task=prepare", "benchmark=gsm8k", "data.offline=true", cwd=cwd).returncode == 0
    run = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "limit=2", "progress=false", cwd=cwd)
    assert run.returncode == 0, run.stderr
    runs = list((cwd / "outputs" / "collect").iterdir())
    assert len(runs) == 1 and (runs[0] / "rollouts.jsonl").is_file() and (runs[0] / "gym.log").is_file()


def test_errors_of_a_run_with_results_go_to_its_log(cwd, tmp_path):
    """e2e collects, then profile fails on a bucket these rollouts do not have: the run dir stays and
    gym.log has the error."""
    run = cwd / "run"
    result = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=2", "num_repeats=2", "progress=false",
                     "data.offline=true", "profile.select.buckets=[hard_or_unsolved]", f"hydra.run.dir={run}", cwd=cwd)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("gym: error: ") and "select.buckets" in error
    assert (run / "rollouts.jsonl").is_file() and error[len("gym: error: "):] in (run / "gym.log").read_text()


@pytest.mark.parametrize("knob,words", [("aggregate.k=[0]", "k must be"),
                                        ("profile.samples_per_bucket=-1", "samples_per_bucket"),
                                        ("profile.expected_repeats=0", "expected_repeats")])
def test_e2e_checks_the_later_steps_knobs_before_any_model_call(cwd, knob, words):
    run = cwd / "run"
    result = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=2", "progress=false", "data.offline=true",
                     knob, f"hydra.run.dir={run}", cwd=cwd)
    assert_clean_failure(result, words)
    assert not (run / "rollouts.jsonl").exists()  # nothing was asked of the model


def test_output_that_cannot_be_written(cwd):
    (cwd / "adir").mkdir()
    (cwd / "afile").write_text("x")
    run_gym("task=prepare", "benchmark=gsm8k", "data.offline=true", f"hydra.run.dir={cwd.parent / 'prep'}", cwd=cwd)
    directory = run_gym("task=collect", "benchmark=gsm8k", "model=mock", f"output={cwd / 'adir'}", cwd=cwd)
    one_line_failure(directory, "is a directory", "rollouts.jsonl")
    below_file = run_gym("task=collect", "benchmark=gsm8k", "model=mock", f"output={cwd / 'afile' / 'r.jsonl'}", cwd=cwd)
    one_line_failure(below_file, "cannot be written")
    assert sorted(p.name for p in cwd.iterdir()) == ["adir", "afile"] and (cwd / "afile").read_text() == "x"
    assert list((cwd / "adir").iterdir()) == []


def test_closed_pipe_is_a_quiet_exit(cwd):
    for args in (["task=search"], ["--help"]):
        proc = subprocess.run(f"{sys.executable} -m gym {' '.join(args)} | head -c 10 > /dev/null; "
                              f"echo ${{PIPESTATUS[0]}}", shell=True, executable="/bin/bash", cwd=cwd,
                              capture_output=True, text=True, timeout=120)
        assert proc.stderr == "", proc.stderr
        assert proc.stdout.strip() in ("0", "141")


def test_config_errors_hydra_finds_are_one_line(cwd):
    wrong_type = run_gym("task=collect", "benchmark=gsm8k", "model.timeout=soon", cwd=cwd)
    one_line_failure(wrong_type, "model.timeout")
    assert files_under(cwd) == []


def test_hydra_report_patch_matches_this_hydra():
    """gym wraps Hydra's internal error reporting on the versions it knows; a Hydra upgrade that moves it
    must fail here, not silently bring back multi-line errors."""
    assert hydra.__version__.startswith(entry.HYDRA_REPORT_VERSIONS), (
        f"Hydra {hydra.__version__} is not a version gym's one-line error patch was checked with: review "
        "gym.cli.main.compact_hydra_errors and HYDRA_REPORT_VERSIONS")
    from hydra._internal import utils as hydra_utils

    original = hydra_utils.run_and_report
    try:
        assert entry.compact_hydra_errors() is True
        assert getattr(hydra_utils.run_and_report, "_gym", False)
        assert hydra_utils._run_hydra.__globals__["run_and_report"] is hydra_utils.run_and_report
    finally:
        hydra_utils.run_and_report = original


def test_known_keys_cover_every_task_file_key():
    """Every key of every task's option file is known to the command-line check (else it would refuse it)."""
    import yaml

    for path in sorted((ROOT / "conf" / "task").glob("*.yaml")):
        leaves, _ = known_keys(path.stem)
        data = yaml.safe_load(path.read_text())
        for key in data:
            if key not in ("defaults", "task"):
                assert key in leaves or any(leaf.startswith(key + ".") for leaf in leaves), (path.name, key)
