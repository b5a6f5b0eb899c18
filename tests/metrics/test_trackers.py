"""tracker=wandb|mlflow through the CLI, offline only: W&B in offline mode (its run file read back record by
record), MLflow in a file store under the run (or sweep) dir. What is logged: the config without secrets,
headline metrics with CIs, the per-subset table and the result files."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from tests.conftest import assert_clean_failure, run_gym

SECRET = "sk-never-logged-42"


def rollouts(path: Path, benchmark: str = "gsm8k", shift: int = 0) -> Path:
    rows = []
    for task in range(6):
        for rollout in range(4):
            reward = float((task + rollout + shift) % 3 == 0)
            rows.append({"schema_version": 2, "benchmark": benchmark, "model": "m", "task_index": task,
                         "rollout_index": rollout, "key": f"{benchmark}-{task}-{rollout}", "status": "ok",
                         "reward": reward, "extracted_answer": str(reward), "latency_s": 0.1,
                         "usage": {"prompt_tokens": 10, "completion_tokens": 5}, "cost_usd": 0.0001,
                         "subsets": {"level": "easy" if task < 3 else "hard"}})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def wandb_records(run_file: Path):
    """Records of a W&B run file: its leveldb-style log (7-byte chunk headers in 32 KiB blocks) of protobufs."""
    from wandb.proto import wandb_internal_pb2 as pb

    data, pos, pending, block = run_file.read_bytes(), 7, b"", 32768
    while pos + 7 <= len(data):
        left = block - pos % block
        if left < 7:
            pos += left
            continue
        _, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        if length == 0 and kind == 0:  # block padding
            pos += left
            continue
        chunk, pos = data[pos + 7:pos + 7 + length], pos + 7 + length
        if kind in (1, 2):
            pending = chunk
        else:
            pending += chunk
        if kind in (1, 4):
            record = pb.Record()
            record.ParseFromString(pending)
            yield record


def test_logged_config_has_no_secrets():
    from omegaconf import OmegaConf

    from gym.metrics.trackers import public_config

    cfg = OmegaConf.create({"task": {"name": "collect"}, "hydra": {"run": {"dir": "${oops}"}},
                            "model": {"api_key_env": "MY_KEY", "api_key": SECRET, "name": "m"},
                            "data": {"hf_token": SECRET, "mirror": None}, "tracker": {"kind": "wandb"},
                            "extra": [{"password": SECRET, "keep": 1}]})
    public = public_config(cfg)
    assert SECRET not in json.dumps(public) and "hydra" not in public
    assert public["model"] == {"api_key_env": "MY_KEY", "name": "m"} and public["extra"] == [{"keep": 1}]


def test_wandb_offline(tmp_path):
    pytest.importorskip("wandb")  # the dev extra installs it
    source = rollouts(tmp_path / "run" / "rollouts.jsonl")
    out = tmp_path / "agg"
    result = run_gym("task=aggregate", f"rollouts={source}", "tracker=wandb", "tracker.mode=offline",
                     "model.api_key_env=MY_KEY", f"hydra.run.dir={out}", env={"WANDB_SILENT": "true", "MY_KEY": SECRET})
    assert result.returncode == 0, result.stderr
    assert "logged to W&B run" in result.stderr
    (run_file,) = out.glob("wandb/offline-run-*/run-*.wandb")
    assert SECRET.encode() not in run_file.read_bytes()
    records = list(wandb_records(run_file))
    run = next(r.run for r in records if r.WhichOneof("record_type") == "run")
    config = {item.key: json.loads(item.value_json) for item in run.config.update}
    assert config["task"] == {"name": "aggregate"} and config["model"]["api_key_env"] == "MY_KEY"
    assert "hydra" not in config
    assert run.project == "gym" and run.display_name.startswith("aggregate/")
    summary = {item.key: json.loads(item.value_json) for r in records if r.WhichOneof("record_type") == "summary"
               for item in r.summary.update if item.key}
    metrics = json.loads((out / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    assert summary["gsm8k/pass@1"] == metrics["pass@1"]["value"]
    assert summary["gsm8k/pass@1_ci_low"] == metrics["pass@1"]["ci_low"]
    assert summary["gsm8k/pass@4_ci_high"] == metrics["pass@k"]["4"]["ci_high"]
    artifacts = {r.artifact.name: sorted(m.path for m in r.artifact.manifest.contents)
                 for r in records if r.WhichOneof("record_type") == "artifact"}
    assert artifacts[f"gym-aggregate-{out.name}"] == ["metrics.csv", "metrics.json"]
    assert any(name.endswith("per_subset") for name in artifacts)  # the per-subset table


def test_mlflow_sweep_in_a_file_store(tmp_path, monkeypatch):
    pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # for this test's own reads
    a = rollouts(tmp_path / "a" / "rollouts.jsonl", "gsm8k")
    b = rollouts(tmp_path / "b" / "rollouts.jsonl", "aime24", shift=1)
    sweep = tmp_path / "sweep"
    result = run_gym("-m", "task=profile", f"rollouts={a},{b}", "tracker=mlflow", "report=false",
                     "model.api_key_env=MY_KEY", f"hydra.sweep.dir={sweep}",
                     env={"MLFLOW_TRACKING_URI": "", "MLFLOW_ALLOW_FILE_STORE": "", "MY_KEY": SECRET})
    assert result.returncode == 0, result.stderr
    from mlflow.tracking import MlflowClient

    client = MlflowClient((sweep / "mlruns").as_uri())
    runs = client.search_runs([client.get_experiment_by_name("gym").experiment_id])
    assert len(runs) == 2
    assert {r.data.tags["gym.sweep"] for r in runs} == {str(sweep.resolve())}
    assert {r.data.tags["gym.task"] for r in runs} == {"profile"}
    for run in runs:
        names = {Path(a.path).name for a in client.list_artifacts(run.info.run_id)}
        assert {"config.json", "profile_summary.json", "pass_rate_hist.png", "pass_at_k.png"} <= names
        assert run.data.metrics["profile/completion_pct"] == 100.0
        config_file = client.download_artifacts(run.info.run_id, "config.json", str(tmp_path / run.info.run_id))
        assert SECRET not in Path(config_file).read_text()
    assert not any(SECRET in p.read_text(errors="ignore") for p in (sweep / "mlruns").rglob("*") if p.is_file())


def test_mlflow_headline_metrics_and_bad_tracker(tmp_path, monkeypatch):
    pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    source = rollouts(tmp_path / "run" / "rollouts.jsonl")
    out = tmp_path / "agg"
    result = run_gym("task=aggregate", f"rollouts={source}", "tracker=mlflow", f"hydra.run.dir={out}",
                     env={"MLFLOW_TRACKING_URI": "", "MLFLOW_ALLOW_FILE_STORE": ""})
    assert result.returncode == 0, result.stderr
    from mlflow.tracking import MlflowClient

    client = MlflowClient((out / "mlruns").as_uri())
    (run,) = client.search_runs([client.get_experiment_by_name("gym").experiment_id])
    metrics = json.loads((out / "metrics.json").read_text())["benchmarks"]["gsm8k"]
    assert run.data.metrics["gsm8k/pass_at_1"] == metrics["pass@1"]["value"]
    assert run.data.metrics["gsm8k/pass_at_1_ci_high"] == metrics["pass@1"]["ci_high"]
    assert run.data.metrics["gsm8k/cost/usd"] == pytest.approx(24 * 0.0001)  # what the priced rows cost
    assert run.data.metrics["gsm8k/tokens/policy"] == 24 * 15
    assert {a.path for a in client.list_artifacts(run.info.run_id)} >= {"metrics.json", "metrics.csv",
                                                                        "per_subset.json"}
    bad = run_gym("task=aggregate", f"rollouts={source}", "tracker=mlflow", "tracker.kind=neptune",
                  f"hydra.run.dir={tmp_path / 'bad'}")
    assert_clean_failure(bad, "tracker.kind=neptune is not one of none, wandb, mlflow")
