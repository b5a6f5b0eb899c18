"""SWE-bench end to end in podman, as a user types it: `python -m gym task=e2e benchmark=swebench_verified
agent=oracle|nop|terminal|mini_swe_agent|codex ...` on the real instance pallets__flask-5014 (its repository from
the git mirror in tests/fixtures/upstream), graded by swebench's parser: the gold patch resolves, no patch does
not, gym's terminal agent and two third-party CLI agents with the reference server playing the gold resolve,
and the verdict equals swebench's own on the row's test log. A second repository (sympy__sympy-20916: gold
resolves, empty does not), and task=serve's /run playing mini-swe-agent in a container per request.

The flask instance's image (Debian bookworm's Python 3.11, venv, flask's dev requirements) is built once by the
first run and reused by the others, as are the agents' layers; the images made here are removed at the end.
Without podman, mmdebstrap or the Debian archive the tests are skipped with the reason."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from tests.conftest import ROOT, run_gym
from tests.benchmarks.test_containers import _ca_bundle, _images, _why_not

MIRROR = ROOT / "tests" / "fixtures" / "upstream"
FLASK_ONLY = "benchmark.dataset.prepare_args.only=[pallets__flask-5014]"
AGENT_LAYERS = tuple(f"/gym-task/agent-{name}-" for name in ("mini-swe-agent", "codex", "claude-code"))
SWEBENCH_BASES = tuple(f"/gym-{kind}/debian{sep}{release}" for kind, sep in (("standin", "-"), ("base", ":"))
                       for release in ("bookworm", "bullseye"))  # flask's and (heavy) sympy's Debian releases
pytestmark = pytest.mark.timeout(900)  # the first run builds the instance's image, the CLI agent's its layer


@pytest.fixture(scope="module")
def swebench(tmp_path_factory):
    why = _why_not()
    if why:
        pytest.skip(why)
    home = tmp_path_factory.mktemp("swebench")
    before = set(_images())
    knobs = ["benchmark=swebench_verified", f"data.mirror={MIRROR}", "data.offline=true", FLASK_ONLY, "model=mock",
             f"runtime.cache_dir={home / 'runtime-cache'}", "progress=false"]
    bundle = _ca_bundle()
    if bundle:
        knobs.append(f"runtime.extra_ca_certs=[{bundle}]")
    yield {"knobs": knobs, "env": {"GYM_DATA_DIR": str(home / "data")}}
    # only what these tests made, each before the image it was built on: the agents' layers, the instances'
    # images, then their stand-ins and bases (plain rmi: left where another test's container still uses one)
    made = [image for image in _images() if image not in before]
    for kinds, force in ((AGENT_LAYERS, True), (("/gym-task/swebench",), True), (SWEBENCH_BASES, False)):
        for image in (image for image in made if any(kind in image for kind in kinds)):
            subprocess.run(["podman", "rmi", *(["-f"] if force else []), image], capture_output=True)


def _run(swebench: dict, run_dir: Path, agent: str) -> dict:
    run_dir.mkdir(parents=True, exist_ok=True)
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


@pytest.mark.heavy  # its own image or agent layer: minutes; `python -m pytest -m heavy`
def test_a_second_repository_sympy_gold_resolves_and_empty_does_not(swebench, tmp_path):
    """sympy__sympy-20916 (Verified; its repository from a two-commit mirror of sympy/sympy): Python 3.9 on
    Debian bullseye, SWE-bench's sympy test runner and log parser; gold resolves, no patch does not."""
    from swebench.harness.log_parsers import PARSER_REGISTRY

    sympy = {"knobs": [k.replace(FLASK_ONLY, "benchmark.dataset.prepare_args.only=[sympy__sympy-20916]")
                       for k in swebench["knobs"]], "env": {"GYM_DATA_DIR": str(tmp_path / "data")}}
    gold, empty = _run(sympy, tmp_path / "gold", "oracle"), _run(sympy, tmp_path / "empty", "nop")
    assert gold["reward"] == 1.0 and gold["verifier"]["resolved"] is True and gold["verifier"]["faithful"] is True
    assert gold["verifier"]["tests"] == {"FAIL_TO_PASS": {"success": 1, "failure": 0},
                                         "PASS_TO_PASS": {"success": 1, "failure": 0}}
    assert gold["verifier"]["substitutions"][0]["image"] == "debian:bullseye"
    assert empty["reward"] == 0.0 and empty["verifier"]["tests"]["FAIL_TO_PASS"] == {"success": 0, "failure": 1}
    for row, verdict in ((gold, "PASSED"), (empty, "FAILED")):
        marked = row["verifier"]["test_log"].split(">>>>> Start Test Output")[1].split(">>>>> End Test Output")[0]
        assert PARSER_REGISTRY["parse_log_sympy"](marked, None)["test_super_sub"] == verdict


@pytest.mark.heavy  # its own image or agent layer: minutes; `python -m pytest -m heavy`
def test_codex_resolves_through_the_model_proxy(swebench, tmp_path):
    """Codex CLI from npm (its native binary), installed into the instance's container, driven over the
    Responses API by the reference server playing its exec_command tool; every call in the proxy's record."""
    row = _run(swebench, tmp_path, "codex")
    record = row["verifier"]["cli_agent"]
    assert row["reward"] == 1.0 and row["verifier"]["resolved"] is True
    assert (record["agent"], record["version"], record["exit_code"]) == ("codex", "0.171.0", 0)
    assert record["proxy"]["calls"] == len(record["model_calls"]) == 2  # the gold command, then the reply
    assert all(call["dialect"] == "responses" and call["stream"] and call["status"] == "ok"
               for call in record["model_calls"])
    first = record["model_calls"][0]
    assert "exec_command" in [tool["name"] for tool in first["responses_create_params"]["tools"]]
    assert first["response"]["output"][-1]["name"] == "exec_command"
    assert "Applied patch src/flask/blueprints.py cleanly" in json.dumps(record["model_calls"][1])
    assert "Authorization" not in json.dumps(row) and not re.search(r"gym-[\w-]{32}", json.dumps(row))  # no token


@pytest.mark.heavy  # its own image or agent layer: minutes; `python -m pytest -m heavy`
def test_claude_code_resolves_through_the_model_proxy(swebench, tmp_path):
    """Claude Code from npm (its native binary; the container's Node is bookworm's 18), driven over Anthropic
    Messages by the reference server playing its Bash tool; every call in the proxy's record."""
    row = _run(swebench, tmp_path, "claude_code")
    record = row["verifier"]["cli_agent"]
    assert row["reward"] == 1.0 and row["verifier"]["resolved"] is True
    assert (record["agent"], record["version"], record["exit_code"]) == ("claude-code", "2.1.332", 0)
    assert record["proxy"]["calls"] == len(record["model_calls"]) >= 2
    assert all(call["dialect"] == "messages" and call["status"] == "ok" for call in record["model_calls"])
    calls = [call["response"]["output"][-1] for call in record["model_calls"]]
    assert any(item.get("name") == "Bash" and "GYM_GOLD_PATCH" in item["arguments"] for item in calls)
    assert json.loads(record["output"].strip().splitlines()[-1])["result"].startswith("Done")
    assert "Authorization" not in json.dumps(row) and not re.search(r"gym-[\w-]{32}", json.dumps(row))


class TokenIds(BaseHTTPRequestHandler):
    """A vLLM-shaped policy in front of the reference server: its replies, with token ids and logprobs added
    (vLLM's `return_token_ids` and `logprobs` shape), as a trainer's policy server returns them."""

    upstream = ""

    def log_message(self, *args):
        pass

    def do_GET(self):
        with urllib.request.urlopen(self.upstream + self.path) as answer:
            self._reply(answer.read())

    def do_POST(self):
        request = urllib.request.Request(self.upstream + self.path, method="POST",
                                         data=self.rfile.read(int(self.headers["Content-Length"])),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            body = json.loads(answer.read())
        turn = len(TOKEN_TURNS)
        TOKEN_TURNS.append(turn)
        body["prompt_token_ids"] = [100 + turn, 101, 102]
        for choice in body["choices"]:
            choice["token_ids"] = [10 * turn + 1, 10 * turn + 2]
            choice["logprobs"] = {"content": [{"token": "t", "logprob": -0.5 - turn, "bytes": [], "top_logprobs": []},
                                              {"token": "u", "logprob": -0.25, "bytes": [], "top_logprobs": []}]}
        self._reply(json.dumps(body).encode())

    def _reply(self, raw: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


TOKEN_TURNS: list[int] = []


@pytest.fixture
def token_policy():
    from gym.mock.server import MockServer
    from gym.swebench.instances import instance_row

    row = instance_row(json.loads((ROOT / "tests/fixtures/real/swebench/pallets__flask-5014.json").read_text()))
    with MockServer(rows=[row]) as mock:
        TokenIds.upstream = mock.base_url.removesuffix("/v1")
        TOKEN_TURNS.clear()
        server = ThreadingHTTPServer(("127.0.0.1", 0), TokenIds)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        server.shutdown()


def test_serve_run_plays_mini_swe_agent_in_a_container_per_request(swebench, tmp_path, token_policy):
    """A trainer's /run on SWE-bench with a CLI agent: one container per request, removed after; the agent's
    every model call through the proxy in front of the request's policy; token ids where it returns them."""
    from tests.serve_helpers import served

    data = Path(swebench["env"]["GYM_DATA_DIR"])
    prepared = run_gym("task=prepare", "benchmark=swebench_verified", *swebench["knobs"][1:4],
                       f"hydra.run.dir={tmp_path / 'prepare'}", env=swebench["env"])
    assert prepared.returncode == 0, prepared.stderr
    knobs = [k for k in swebench["knobs"] if not k.startswith(("benchmark", "progress="))]  # it reads the prepared file
    run_dir = tmp_path / "serve"
    with served(run_dir, data, "benchmarks=[swebench_verified]", "agent=mini_swe_agent", *knobs) as url:
        owner = f"gym.owner={os.uname().nodename}:{json.loads((run_dir / 'serve.json').read_text())['pid']}"
        listed = requests.get(url + "/benchmarks", timeout=60).json()
        assert listed[0]["tools"] == ["shell", "done"] and not _owned(owner)  # a listing starts no container
        plain = requests.post(url + "/swebench_verified/run", json={"task_index": 0}, timeout=900).json()
        tokens = requests.post(url + "/swebench_verified/run", timeout=900,
                               json={"task_index": 0, "policy": {"base_url": token_policy}}).json()
        assert not _owned(owner), "a /run's container outlived its request"
    for answer in (plain, tokens):
        assert "rollout" in answer, answer
        record = answer["rollout"]["verifier"]["cli_agent"]
        assert answer["reward"] == 1.0 and answer["status"] == "ok" and answer["mask_sample"] is False
        assert (record["agent"], record["version"], record["exit_code"]) == ("mini-swe-agent", "2.4.6", 0)
        assert len(record["model_calls"]) == record["proxy"]["calls"] == 2
        assert all(set(call) >= {"responses_create_params", "response"} for call in record["model_calls"])
        texts = [part["text"] for item in answer["response"]["output"] if item.get("type") == "message"
                 for part in item["content"]]
        assert any("COMPLETE_TASK_AND_SUBMIT" in text for text in texts)
    assert TOKEN_TURNS == [0, 1]  # both of the agent's calls reached the request's own policy
    calls = tokens["rollout"]["verifier"]["cli_agent"]["model_calls"]
    assert [call["response"]["output"][-1]["generation_token_ids"] for call in calls] == [[1, 2], [11, 12]]
    assert calls[1]["response"]["output"][-1]["generation_log_probs"] == [-1.5, -0.25]
    turns = [item for item in tokens["response"]["output"] if "generation_token_ids" in item]
    assert [item["generation_token_ids"] for item in turns] == [[1, 2], [11, 12]]
    assert turns[0]["prompt_token_ids"] == [100, 101, 102]
    assert not any("generation_token_ids" in item for item in plain["response"]["output"])


def _owned(owner: str) -> list[str]:
    out = subprocess.run(["podman", "ps", "-aq", "--filter", f"label={owner}"], capture_output=True, text=True)
    return out.stdout.split()
