"""SWE-bench end to end in podman, as a user types it: `python -m gym task=e2e benchmark=swebench_verified
agent=oracle|nop|terminal ...` on the real instance pallets__flask-5014 (its repository from the git mirror
in tests/fixtures/upstream), graded by swebench's parser: the gold patch resolves, no patch does not, gym's
terminal agent with the reference server playing the gold resolves, and the verdict equals swebench's own
on the row's test log.

The instance's image (Debian bookworm's Python 3.11, venv, flask's dev requirements) is built once by the
first run and reused by the others; the images made here are removed at the end. Without podman,
mmdebstrap or the Debian archive the tests are skipped with the reason.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_gym
from tests.benchmarks.test_containers import _ca_bundle, _images, _why_not

MIRROR = ROOT / "tests" / "fixtures" / "upstream"
pytestmark = pytest.mark.timeout(900)  # the first run builds the instance's image, the CLI agent's its layer


@pytest.fixture(scope="module")
def swebench(tmp_path_factory):
    why = _why_not()
    if why:
        pytest.skip(why)
    home = tmp_path_factory.mktemp("swebench")
    before = set(_images())
    knobs = ["benchmark=swebench_verified", f"data.mirror={MIRROR}", "data.offline=true", "model=mock",
             f"runtime.cache_dir={home / 'runtime-cache'}", "progress=false"]
    bundle = _ca_bundle()
    if bundle:
        knobs.append(f"runtime.extra_ca_certs=[{bundle}]")
    yield {"knobs": knobs, "env": {"GYM_DATA_DIR": str(home / "data")}}
    made = [image for image in _images() if image not in before and "/gym-task/swebench" in image]
    if made:
        subprocess.run(["podman", "rmi", "-f", *made], capture_output=True)


def _run(swebench: dict, run_dir: Path, agent: str) -> dict:
    result = run_gym("task=e2e", *swebench["knobs"], f"agent={agent}", f"hydra.run.dir={run_dir}",
                     env=swebench["env"], timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    (row,) = [json.loads(line) for line in (run_dir / "rollouts.jsonl").open()]
    assert row["status"] == "ok", row.get("error")
    return row


def test_gold_resolves_and_the_verdict_is_swebench_own(swebench, tmp_path):
    from swebench.harness.log_parsers import PARSER_REGISTRY

    row = _run(swebench, tmp_path, "oracle")
    verifier = row["verifier"]
    assert row["reward"] == 1.0 and verifier["resolved"] is True and verifier["faithful"] is True
    assert verifier["tests"] == {"FAIL_TO_PASS": {"success": 1, "failure": 0},
                                 "PASS_TO_PASS": {"success": 59, "failure": 0}}
    assert verifier["patch"].startswith("diff --git a/src/flask/blueprints.py")
    marked = verifier["test_log"].split(">>>>> Start Test Output")[1].split(">>>>> End Test Output")[0]
    parsed = PARSER_REGISTRY["parse_log_flask"](marked, None)
    assert all(parsed[test] == "PASSED" for test in verifier["tests_status"]["PASS_TO_PASS"]["success"])
    assert parsed["tests/test_blueprints.py::test_empty_name_not_allowed"] == "PASSED"
    assert verifier["substitutions"][0]["image"] == "debian:bookworm"


def test_no_patch_does_not_resolve(swebench, tmp_path):
    row = _run(swebench, tmp_path, "nop")
    assert row["reward"] == 0.0 and row["verifier"]["resolved"] is False and row["verifier"]["patch"] == ""
    assert row["verifier"]["tests"]["FAIL_TO_PASS"] == {"success": 0, "failure": 1}
    assert row["verifier"]["build_cached"] is True  # the image the first run built


def test_terminal_agent_with_the_reference_server_resolves(swebench, tmp_path):
    row = _run(swebench, tmp_path, "terminal")
    assert row["reward"] == 1.0 and row["verifier"]["resolved"] is True
    calls = [m for m in row["trajectory"] if m["role"] == "assistant" and m.get("tool_calls")]
    assert calls[0]["tool_calls"][0]["function"]["name"] == "shell"


def test_mini_swe_agent_resolves_through_the_model_proxy(swebench, tmp_path):
    """mini-swe-agent from PyPI, installed into the instance's container, driven by the reference server in
    its own text protocol; every one of its model calls is in the proxy's record, no key in the row."""
    row = _run(swebench, tmp_path, "mini_swe_agent")
    record = row["verifier"]["cli_agent"]
    assert row["reward"] == 1.0 and row["verifier"]["resolved"] is True
    assert (record["agent"], record["version"], record["exit_code"]) == ("mini-swe-agent", "2.4.6", 0)
    assert record["proxy"]["calls"] == len(record["model_calls"]) == 2  # the gold command, then the submit
    assert all(call["dialect"] == "chat" and call["status"] == "ok" for call in record["model_calls"])
    assert "mswea_bash_command" in record["model_calls"][0]["response"]["output"][-1]["content"][0]["text"]
    steps = row["trajectory"]  # the agent's own conversation, as the proxy saw it
    assert [m["role"] for m in steps][-1] == "assistant" and "COMPLETE_TASK_AND_SUBMIT" in steps[-1]["content"]
    assert "Authorization" not in json.dumps(row) and "gym-" + "agents" not in record["output"]
    exported = run_gym("task=export", f"rollouts={tmp_path / 'rollouts.jsonl'}", f"output_dir={tmp_path / 'nemo'}",
                       f"hydra.run.dir={tmp_path / 'export'}")
    assert exported.returncode == 0, exported.stderr
    (rollouts,) = [p for p in (tmp_path / "nemo").glob("*.jsonl") if not p.stem.endswith(("_inputs", "_failures"))]
    (nemo,) = [json.loads(line) for line in rollouts.open()]
    texts = [part["text"] for item in nemo["response"]["output"] if item.get("type") == "message"
             for part in item["content"]]
    assert nemo["reward"] == 1.0 and any("mswea_bash_command" in text for text in texts)
