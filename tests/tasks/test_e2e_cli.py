"""The real CLI end to end: task=e2e, sweeps (basic, joblib and submitit-local launchers), failures."""

from __future__ import annotations

import json

import pytest

from gym.cli.overrides import LAUNCHER_EXTRAS, check_argv
from gym.core.errors import GymError
from tests.conftest import UPSTREAM, assert_clean_failure, run_gym

MIRROR = f"data.mirror={UPSTREAM}"  # a local-directory mirror of the upstream fixtures


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_e2e_try_it_command(tmp_path, data_dir):
    run = tmp_path / "run"
    result = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=5", "num_repeats=2", MIRROR,
                     f"hydra.run.dir={run}")
    assert result.returncode == 0, result.stderr
    for name in ("rollouts.jsonl", "run.json", "metrics.json", "metrics.csv", "reward_profile.jsonl",
                 "profile_summary.json", "pass_rate_hist.png", "pass_at_k.png", "report.html", ".hydra/config.yaml"):
        assert (run / name).is_file(), name
    assert len(read_jsonl(run / "rollouts.jsonl")) == 10
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["benchmarks"]["gsm8k"]["tasks"] == 5
    assert "gsm8k: pass@1" in result.stdout
    # second run: data is cached, not prepared again
    again = run_gym("task=e2e", "benchmark=gsm8k", "model=mock", "limit=2", "num_repeats=1", "data.offline=true",
                    f"hydra.run.dir={tmp_path / 'run2'}")
    assert again.returncode == 0, again.stderr
    assert "gsm8k: already prepared" in again.stderr


def test_sweep_two_benchmarks_with_parallel_launcher(tmp_path, data_dir):
    sweep = tmp_path / "sweep"
    result = run_gym("-m", "task=e2e", "benchmark=aime24,gsm8k", "model=mock", "limit=3", "num_repeats=2",
                     "progress=false", "hydra/launcher=local", MIRROR, f"hydra.sweep.dir={sweep}")
    assert result.returncode == 0, result.stderr
    summary = json.loads((sweep / "summary.json").read_text())
    assert [(j["job"], j["status"]) for j in summary["jobs"]] == [("0_aime24_mock", "ok"), ("1_gsm8k_mock", "ok")]
    assert all(j["pass@1"] is not None for j in summary["jobs"])
    assert "Sweep summary" in result.stdout and (sweep / "summary.txt").is_file()


def test_sweep_with_a_failing_job(tmp_path, data_dir):
    sweep = tmp_path / "sweep"
    # gsm8k is prepared from the mirror; math-500 cannot be (offline, nothing local)
    run_gym("task=prepare", "benchmark=gsm8k", MIRROR, f"hydra.run.dir={tmp_path / 'prep'}")
    result = run_gym("-m", "task=e2e", "benchmark=gsm8k,math-500", "model=mock", "limit=2", "num_repeats=1",
                     "data.offline=true", "progress=false", f"hydra.sweep.dir={sweep}")
    assert_clean_failure(result, "1 of 2 sweep jobs failed")
    jobs = {j["job"]: j for j in json.loads((sweep / "summary.json").read_text())["jobs"]}
    assert jobs["0_gsm8k_mock"]["status"] == "ok" and (sweep / "0_gsm8k_mock" / "metrics.json").is_file()
    assert jobs["1_math-500_mock"]["status"] == "failed" and "offline" in jobs["1_math-500_mock"]["error"]


def test_sweep_over_models_shares_nothing(tmp_path, data_dir):
    sweep = tmp_path / "sweep"
    run_gym("task=prepare", "benchmark=gsm8k", MIRROR, f"hydra.run.dir={tmp_path / 'prep'}")
    result = run_gym("-m", "task=collect", "benchmark=gsm8k", "model=mock", "model.name=mock-a,mock-b", "limit=3",
                     "num_repeats=2", "progress=false", f"hydra.sweep.dir={sweep}")
    assert result.returncode == 0, result.stderr
    runs = sorted(p for p in sweep.iterdir() if p.is_dir())
    assert len(runs) == 2
    rows = [read_jsonl(run / "rollouts.jsonl") for run in runs]
    assert {r["model"] for r in rows[0]} == {"mock-a"} and {r["model"] for r in rows[1]} == {"mock-b"}
    assert not {r["key"] for r in rows[0]} & {r["key"] for r in rows[1]}


def test_submitit_local_launcher(tmp_path):
    sweep = tmp_path / "sweep"
    result = run_gym("-m", "task=search", "query=aime,gsm8k", "format=json", "hydra/launcher=submitit_local",
                     "hydra.launcher.timeout_min=2", f"hydra.sweep.dir={sweep}")
    assert result.returncode == 0, result.stderr
    assert [j["status"] for j in json.loads((sweep / "summary.json").read_text())["jobs"]] == ["ok", "ok"]


def test_launcher_without_its_plugin_names_the_extra(monkeypatch):
    monkeypatch.setitem(LAUNCHER_EXTRAS, "slurm", ("hydra_plugins.not_installed_launcher", "slurm"))
    with pytest.raises(GymError, match=r"pip install 'gym-eval-harness\[slurm\]'"):
        check_argv(["task=collect", "hydra/launcher=slurm"])


def test_e2e_bad_input(tmp_path, data_dir):
    assert_clean_failure(run_gym("task=e2e", "model=mock", f"hydra.run.dir={tmp_path}"), "choose a benchmark")
    assert_clean_failure(run_gym("task=e2e", "benchmark=math-500", "model=mock", "data.offline=true",
                                 f"hydra.run.dir={tmp_path}/b"), "offline=true")


@pytest.mark.parametrize("step", ["prepare", "collect", "aggregate", "profile"])
def test_each_e2e_step_gets_what_its_own_task_would_compose_without_composing_again(step):
    from omegaconf import OmegaConf

    from gym.core.config import compose, compose_step, to_plain

    shared = ["benchmark=gsm8k", "model=mock", "judge=mock", "data.offline=true"]
    e2e = compose(["task=e2e", *shared, "limit=7", "num_repeats=3", "concurrency=5"])
    derived = to_plain(compose_step(e2e, step))
    own = compose([f"task={step}", *shared])
    expected = to_plain(OmegaConf.merge(own, {k: e2e[k] for k in own if k in e2e and k != "task"}))
    assert derived.pop("run_dir")
    assert derived == expected  # the step's own knobs at their defaults, e2e's where e2e has them too
    assert derived["task"]["name"] == step
