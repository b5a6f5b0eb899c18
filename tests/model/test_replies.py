"""Real reply bodies (llama.cpp recordings, TGI test snapshots, OpenAI/vLLM/Mistral shapes) replayed over
HTTP through gym's client: every shape parses, an unknown one is an infra_error with its reason."""

from __future__ import annotations

import json
from contextlib import ExitStack

import pytest

from gym.model import endpoints
from gym.model.client import ModelClient
from gym.core.config import compose
from gym.core.typed import typed
from gym.core.errors import GymError
from tests.replay import REPLIES, ReplayServer, load

REPLY_FILES = sorted(p.stem for p in REPLIES.glob("*.json") if "expect" in json.loads(p.read_text()))


def test_the_fixture_set_covers_the_shapes():
    shapes = set()
    for name in REPLY_FILES:
        record = load(name)
        body, expect = record["response"]["body"], record["expect"]
        message = (body.get("choices") or [{}])[0].get("message") if isinstance(body, dict) and isinstance(
            (body.get("choices") or [None])[0], dict) else None
        if isinstance(message, dict):
            content = message.get("content")
            shapes.add("content_str" if isinstance(content, str) else "content_list" if isinstance(content, list)
                       else "content_null_tool_calls" if content is None and message.get("tool_calls") else "other")
            shapes.update(k for k in ("reasoning_content", "reasoning") if message.get(k))
        if isinstance(body, dict) and "output" in body:
            shapes.update(f"responses_{item.get('type')}" for item in body["output"] if isinstance(item, dict))
        if isinstance(body, dict) and "usage" not in body:
            shapes.add("no_usage")
        shapes.add(f"finish_{expect.get('finish_reason')}")
        shapes.add(f"status_{expect['status']}")
    assert {"content_str", "content_list", "content_null_tool_calls", "reasoning_content", "reasoning",
            "responses_message", "responses_reasoning", "no_usage", "finish_length", "finish_stop",
            "finish_content_filter", "status_infra_error", "responses_function_call", "finish_tool_calls"} <= shapes


@pytest.mark.parametrize("name", REPLY_FILES)
def test_recorded_reply_parses(name):
    record = load(name)
    expect = record["expect"]
    with ReplayServer(record) as server:
        sampling = {"max_tokens": expect["max_tokens"]} if expect.get("max_tokens") else {}
        client = ModelClient(server.root + "/v1", model="m", api=expect["api"], max_retries=0, sampling=sampling)
        completion = client.complete([{"role": "user", "content": "question"}], tools=_offered(record))
    assert completion.status == expect["status"], completion.error
    if expect["status"] != "ok":
        assert expect["error_contains"] in completion.error and completion.error.startswith("unexpected reply shape")
        return
    assert completion.finish_reason == expect["finish_reason"]
    if "text" in expect:
        assert completion.text == expect["text"]
    if "text_startswith" in expect:
        assert completion.text.startswith(expect["text_startswith"])
    if "reasoning_contains" in expect:
        assert expect["reasoning_contains"] in (completion.reasoning or "")
    if "usage" in expect:
        assert completion.usage == expect["usage"]
    if "system_fingerprint" in expect:
        assert client.system_fingerprint == expect["system_fingerprint"]
    if "server" in expect:
        assert client.server_header == expect["server"]
    if "tool_calls" in expect:  # tools were offered: the calls as gym reads them, and their trouble
        assert [call.to_row() for call in completion.tool_calls] == expect["tool_calls"]
        assert completion.tool_problems == expect["tool_problems"]


def _offered(record: dict) -> list[dict] | None:
    """The tools of a recorded request that offered them (those of the expected calls when not recorded)."""
    expect = record["expect"]
    if "tool_calls" not in expect:
        return None
    body = record["request"].get("body") or {}
    if body.get("tools"):
        return body["tools"]
    return [{"name": call["name"], "parameters": {"type": "object"}} for call in expect["tool_calls"]] or \
        [{"name": "get_weather", "parameters": {"type": "object"}}]


def connect(root: str, *overrides: str):
    model = typed(compose(["task=collect", "benchmark=gsm8k", "model=vllm", f"model.base_url={root}", *overrides])).model
    with ExitStack() as stack:
        base_url = endpoints.start_policy(model, stack, None, 1)
        return endpoints.connect_policy(model, stack, base_url, 1, {})


def test_llamacpp_fingerprint_and_model_check():
    with ReplayServer(load("llamacpp_models"), load("llamacpp_props"), load("llamacpp_version_missing")) as server:
        client, endpoint = connect(server.root + "/v1")
        assert client.model == "SmolLM2-135M-Instruct" and endpoint["server"] == "llama.cpp"
        assert endpoint["server_info"]["props"]["build_info"] == "b0-unknown"
        assert "version" not in endpoint["server_info"]  # llama.cpp has no /version: skipped, not an error
        with pytest.raises(GymError, match=r"model.name=SmolLM2-135M is not served .*did you mean "
                                           r"SmolLM2-135M-Instruct.*served models: SmolLM2-135M-Instruct"):
            connect(server.root + "/v1", "model.name=SmolLM2-135M")


def test_base_url_mistakes_get_one_line():
    with ReplayServer(load("llamacpp_models")) as server:
        with pytest.raises(GymError, match=f"HTTP 404; did you mean {server.root}/v1\\?"):
            connect(server.root)
    with pytest.raises(GymError, match=r"model.base_url='localhost:8000' is not a URL; a base_url looks like "
                                       r"http://host:8000/v1"):
        connect("localhost:8000")
