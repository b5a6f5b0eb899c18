"""Trainable rollouts: a policy server that returns token ids and logprobs (vLLM's `return_token_ids` and
`logprobs` reply shape, served from a local HTTP server) gets them back unchanged on the next turn's
request, and /run and collect keep them per assistant turn (NeMo Gym's `prompt_token_ids`,
`generation_token_ids`, `generation_log_probs` on the output items)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.conftest import run_gym
from tests.serve_helpers import post, prepare, rows_of, served

FIRST = {"prompt_token_ids": [101, 102, 103], "token_ids": [7, 8], "logprobs": [-0.25, -0.5]}
LATER = {"prompt_token_ids": [101, 102, 103, 7, 8, 200], "token_ids": [9], "logprobs": [-0.125]}


class VllmLike(BaseHTTPRequestHandler):
    """/v1/models and /v1/chat/completions in vLLM's shape with token ids; each request body is kept."""

    seen: list = []

    def log_message(self, *args):
        pass

    def reply(self, body: dict) -> None:
        raw = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self):
        if self.path.endswith("/models"):
            return self.reply({"object": "list", "data": [{"id": "token-model", "object": "model"}]})
        self.send_error(404)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append(body)
        first = not any(m.get("role") == "assistant" and m.get("tool_calls") for m in body["messages"])
        tokens = FIRST if first else LATER
        if first and body.get("tools"):
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "get_users", "arguments": "{}"}}]}
        else:
            message = {"role": "assistant", "content": "All done. \\boxed{18}"}
        self.reply({"id": "chatcmpl-1", "object": "chat.completion", "model": "token-model",
                    "prompt_token_ids": tokens["prompt_token_ids"],
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop",
                                 "token_ids": tokens["token_ids"],
                                 "logprobs": {"content": [{"token": f"t{i}", "logprob": p, "bytes": [], "top_logprobs": []}
                                                          for i, p in enumerate(tokens["logprobs"])]}}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}})


@pytest.fixture
def policy():
    VllmLike.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), VllmLike)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def as_training(tokens: dict) -> dict:
    return {"prompt_token_ids": tokens["prompt_token_ids"], "generation_token_ids": tokens["token_ids"],
            "generation_log_probs": tokens["logprobs"]}


def test_run_keeps_token_ids_per_turn_and_sends_them_back(policy, tmp_path):
    data = tmp_path / "data"
    prepare(data, "tau2_mock", "gsm8k")
    with served(tmp_path / "run", data, "benchmarks=[tau2_mock,gsm8k]", "user=mock", "episode.max_agent_steps=4") as url:
        episode = post(url, "/tau2_mock/run", {"task_index": 0, "policy": {"base_url": policy}}).json()
        answer = post(url, "/gsm8k/run", {"task_index": 0, "policy": {"base_url": policy}}).json()
    # the second request of the episode carried the first turn's ids, unchanged, on its assistant message
    second = VllmLike.seen[1]["messages"]
    called = next(m for m in second if m.get("role") == "assistant" and m.get("tool_calls"))
    assert {k: called[k] for k in as_training(FIRST)} == as_training(FIRST)
    turns = [m for m in episode["rollout"]["trajectory"] if m["role"] == "assistant" and "prompt_token_ids" in m]
    assert [m["generation_token_ids"] for m in turns] == [FIRST["token_ids"], LATER["token_ids"]]
    items = [item for item in episode["response"]["output"] if "generation_token_ids" in item]
    assert [(i["type"], i["generation_log_probs"]) for i in items] == [("function_call", FIRST["logprobs"]),
                                                                       ("message", LATER["logprobs"])]
    assert answer["rollout"]["tokens"] == as_training(FIRST) and answer["reward"] == 1.0
    assert answer["response"]["output"][-1]["generation_token_ids"] == FIRST["token_ids"]


def test_collect_keeps_token_ids_in_its_rows(policy, tmp_path):
    data = tmp_path / "data"
    prepare(data, "gsm8k")
    result = run_gym("task=collect", "benchmark=gsm8k", "model=vllm", f"model.base_url={policy}", "limit=2",
                     "progress=false", f"hydra.run.dir={tmp_path / 'run'}", env={"GYM_DATA_DIR": str(data)})
    assert result.returncode == 0, result.stderr
    rows = rows_of(tmp_path / "run" / "rollouts.jsonl")
    assert [row["tokens"] for row in rows] == [as_training(FIRST)] * 2
