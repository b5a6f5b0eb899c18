"""Endpoint wiring: fingerprint in run.json, the judge at the policy's own endpoint, short display names."""

from __future__ import annotations

import json

from gym import __version__
from gym.mock.server import MockServer
from gym.metrics.table import display_name
from tests.tasks.test_collect import prepared, run_collect  # noqa: F401  (fixture)
from tests.verifiers.test_judge import QA_ROWS  # noqa: F401


def test_run_json_fingerprint(prepared, tmp_path):
    run_collect(tmp_path, "limit=2", "num_repeats=1", "model.sampling.seed=7")
    endpoint = json.loads((tmp_path / "run.json").read_text())["endpoint"]
    assert endpoint["model"] == "gym-mock" and "server" in endpoint and endpoint["api"] == "chat"
    assert endpoint["sampling_sent"] == {"temperature": 0.6, "top_p": 0.95, "max_tokens": 4096, "seed": 7}
    assert endpoint["gym_version"] == __version__ and endpoint["judge"] is None
    assert "system_fingerprint" in endpoint and "server_info" in endpoint


def test_judge_at_the_policy_endpoint_warns(tmp_path, data_dir, caplog):
    path = data_dir / "simpleqa" / "simpleqa.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({**row, "metadata": {}}) + "\n" for row in QA_ROWS))
    with MockServer(data_paths=[path], model_name="policy") as server:
        from gym.core.config import compose
        from gym.tasks import collect

        cfg = compose(["task=collect", "benchmark=simpleqa", "model=vllm", f"model.base_url={server.base_url}",
                       "judge=vllm", f"judge.base_url={server.base_url.replace('127.0.0.1', 'localhost')}/",
                       "progress=false", "limit=1", "num_repeats=1", f"+run_dir={tmp_path}"])
        collect.run(cfg)
    assert "is the policy's own endpoint" in caplog.text
    judge = json.loads((tmp_path / "run.json").read_text())["endpoint"]["judge"]
    assert judge["model"] == "policy" and judge["sampling_sent"]["temperature"] == 0.0


def test_display_name_of_long_model_ids():
    long_path = "/home/user/.cache/models/bartowski/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct-Q4_1.gguf"
    assert display_name(long_path) == "SmolLM2-135M-Instruct-Q4_1"
    assert display_name("meta-llama/Llama-3.1-8B-Instruct") == "meta-llama/Llama-3.1-8B-Instruct"
    assert len(display_name("x" * 100)) == 40
