"""gym's model proxy, driven by the real OpenAI and Anthropic SDKs (PyPI's openai and anthropic).

Behind it: the reference server through gym's model client (every dialect, streamed and not), or a
scripted policy in process where a test needs tool calls and token ids the reference server does not
give; the HTTP between the SDKs and the proxy is real in every test.
"""

from __future__ import annotations

import json

import anthropic
import openai
import pytest

from gym.core.errors import GymError
from gym.model.client import Completion, ModelClient
from gym.mock.server import MockServer
from gym.proxy import Budget, ModelProxy, trajectory
from gym.toolcalls import ToolCall

BASH = {"name": "bash", "description": "Run a shell command.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}
TOKENS = {"prompt_token_ids": [1, 2, 3], "generation_token_ids": [7, 8], "generation_log_probs": [-0.1, -0.2]}


class ScriptedPolicy:
    """A policy that first calls `bash` (with token ids, as vLLM returns them), then answers in text."""

    def __init__(self):
        self.seen: list[list[dict]] = []

    def complete(self, messages, tools=None, tool_choice=None, **_):
        self.seen.append(messages)
        usage = {"prompt_tokens": 10, "completion_tokens": 5}
        if not any(m.get("role") == "tool" for m in messages):
            return Completion("ok", text="", finish_reason="tool_calls", usage=usage, tokens=TOKENS,
                              tool_calls=[ToolCall("bash", {"command": "ls"}, None, "call_1")])
        return Completion("ok", text="Listed.", finish_reason="stop", usage=usage,
                          tokens={"prompt_token_ids": [1], "generation_token_ids": [9], "generation_log_probs": [-0.3]})


@pytest.fixture(scope="module")
def mock_client():
    with MockServer() as mock:
        yield ModelClient(mock.base_url, model="gym-mock", max_retries=0)


def test_every_dialect_streamed_or_not_answers_as_the_model_does(mock_client):
    expected = mock_client.complete([{"role": "user", "content": "What is 2+2?"}]).text
    with ModelProxy.for_trial(mock_client, Budget(max_calls=20)) as proxy:
        oa = openai.OpenAI(base_url=proxy.base_url + "/v1", api_key=proxy.token, max_retries=0)
        ask = [{"role": "user", "content": "What is 2+2?"}]
        assert oa.chat.completions.create(model="m", messages=ask).choices[0].message.content == expected
        chunks = oa.chat.completions.create(model="m", messages=ask, stream=True,
                                            stream_options={"include_usage": True})
        pieces = list(chunks)
        assert "".join(c.choices[0].delta.content or "" for c in pieces if c.choices) == expected
        assert pieces[-1].usage.completion_tokens > 0
        assert oa.responses.create(model="m", input="What is 2+2?").output_text == expected
        with oa.responses.stream(model="m", input=ask) as stream:
            assert stream.get_final_response().output_text == expected
        an = anthropic.Anthropic(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
        reply = an.messages.create(model="claude", max_tokens=64, system="Be brief.", messages=ask)
        assert reply.content[0].text == expected and reply.stop_reason == "end_turn"
        with an.messages.stream(model="claude", max_tokens=64, messages=ask) as stream:
            assert stream.get_final_message().content[0].text == expected
        records = proxy.log.snapshot()
    assert [(r["dialect"], r["stream"], r["status"]) for r in records] == [
        ("chat", False, "ok"), ("chat", True, "ok"), ("responses", False, "ok"), ("responses", True, "ok"),
        ("messages", False, "ok"), ("messages", True, "ok")]
    assert records[4]["responses_create_params"]["input"][0] == {"role": "system", "content": "Be brief."}
    assert records[4]["dropped"] == {"sampling": {"max_tokens": 64}}
    assert all(r["response"]["usage"]["output_tokens"] > 0 for r in records)


@pytest.mark.parametrize("dialect", ["chat", "responses", "messages"])
def test_tool_calls_round_trip_with_token_ids_in_the_record(dialect):
    policy = ScriptedPolicy()
    with ModelProxy.for_trial(policy, Budget()) as proxy:
        if dialect == "messages":
            an = anthropic.Anthropic(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
            tools = [{"name": BASH["name"], "description": BASH["description"], "input_schema": BASH["parameters"]}]
            ask = [{"role": "user", "content": "List files."}]
            first = an.messages.create(model="c", max_tokens=99, messages=ask, tools=tools)
            use = first.content[-1]
            assert (first.stop_reason, use.type, use.name, use.input) == ("tool_use", "tool_use", "bash", {"command": "ls"})
            ask += [{"role": "assistant", "content": [b.model_dump() for b in first.content]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "a.txt"}]}]
            with an.messages.stream(model="c", max_tokens=99, messages=ask, tools=tools) as stream:
                assert stream.get_final_message().content[0].text == "Listed."
        elif dialect == "chat":
            oa = openai.OpenAI(base_url=proxy.base_url + "/v1", api_key=proxy.token, max_retries=0)
            ask = [{"role": "user", "content": "List files."}]
            first = oa.chat.completions.create(model="m", messages=ask, tools=[{"type": "function", "function": BASH}])
            call = first.choices[0].message.tool_calls[0]
            assert (call.function.name, json.loads(call.function.arguments)) == ("bash", {"command": "ls"})
            ask += [first.choices[0].message.model_dump(exclude_none=True),
                    {"role": "tool", "tool_call_id": call.id, "content": "a.txt"}]
            streamed = list(oa.chat.completions.create(model="m", messages=ask, stream=True,
                                                       tools=[{"type": "function", "function": BASH}]))
            assert "".join(c.choices[0].delta.content or "" for c in streamed) == "Listed."
        else:
            oa = openai.OpenAI(base_url=proxy.base_url + "/v1", api_key=proxy.token, max_retries=0)
            tools = [{"type": "function", **BASH}]
            first = oa.responses.create(model="m", input="List files.", tools=tools)
            call = [item for item in first.output if item.type == "function_call"][0]
            following = [{"role": "user", "content": "List files."}, call.model_dump(exclude_none=True),
                         {"type": "function_call_output", "call_id": call.call_id, "output": "a.txt"}]
            with oa.responses.stream(model="m", input=following, tools=tools) as stream:
                assert stream.get_final_response().output_text == "Listed."
        records = proxy.log.snapshot()
    assert policy.seen[1][-1] == {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"}
    assert records[0]["response"]["output"][-1]["generation_token_ids"] == [7, 8]
    steps = trajectory(records)
    assert [m["role"] for m in steps] == ["user", "assistant", "tool", "assistant"]
    assert steps[1]["generation_log_probs"] == [-0.1, -0.2] and steps[3]["generation_token_ids"] == [9]


def test_budget_bad_requests_and_keys(mock_client):
    with ModelProxy.for_trial(mock_client, Budget(max_calls=1)) as proxy:
        oa = openai.OpenAI(base_url=proxy.base_url + "/v1", api_key=proxy.token, max_retries=0)
        ask = [{"role": "user", "content": "hello"}]
        oa.chat.completions.create(model="m", messages=ask)
        with pytest.raises(openai.BadRequestError, match="call budget \\(1 model calls\\) is spent"):
            oa.chat.completions.create(model="m", messages=ask)
        with pytest.raises(anthropic.BadRequestError, match="call budget"):
            anthropic.Anthropic(base_url=proxy.base_url, api_key=proxy.token, max_retries=0).messages.create(
                model="c", max_tokens=5, messages=ask)
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=proxy.base_url + "/v1", api_key="sk-not-the-token", max_retries=0
                          ).chat.completions.create(model="m", messages=ask)
        with pytest.raises(openai.BadRequestError, match="'messages' must be a non-empty list"):
            oa.chat.completions.create(model="m", messages=[])
        assert [m.id for m in oa.models.list()] == ["gym-policy"]
        summary, records = proxy.log.summary(), proxy.log.snapshot()
        token = proxy.token
    assert summary["forwarded"] == 1 and summary["refused_over_budget"] == 2
    assert [r["status"] for r in records] == ["ok", "budget_exhausted", "budget_exhausted"]
    assert token not in json.dumps(records)
    with pytest.raises(GymError, match="needs a token"):
        ModelProxy(mock_client, host="0.0.0.0")


def test_token_budget_stops_after_the_tokens_are_spent():
    with ModelProxy.for_trial(ScriptedPolicy(), Budget(max_tokens=15)) as proxy:
        oa = openai.OpenAI(base_url=proxy.base_url + "/v1", api_key=proxy.token, max_retries=0)
        oa.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}])
        with pytest.raises(openai.BadRequestError, match="token budget \\(15 tokens\\) is spent"):
            oa.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}])
