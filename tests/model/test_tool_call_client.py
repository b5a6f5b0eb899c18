"""The client with tools, over HTTP: what each API is sent (tools, tool_choice, earlier calls and results)
and what comes back (Completion.tool_calls), against recorded replies and the reference server."""

from __future__ import annotations

import json

from gym.mock.server import MockServer
from gym.model.client import ModelClient
from gym.toolcalls import ToolCall
from tests.replay import ReplayServer, load

WEATHER = {"name": "get_weather", "description": "Weather of a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
CONVERSATION = [
    {"role": "user", "content": "Weather in Rome?"},
    {"role": "assistant", "content": None, "tool_calls": [ToolCall("get_weather", {"city": "Rome"}, id="c1").to_chat()]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    {"role": "assistant", "content": "Sunny in Rome."},
    {"role": "user", "content": "And in Paris?"},
]


def _sent(record_name: str, api: str, **kwargs):
    with ReplayServer(load(record_name)) as server:
        client = ModelClient(server.root + "/v1", model="m", api=api, max_retries=0)
        completion = client.complete(CONVERSATION, **kwargs)
    return server.requests[-1][2], completion, client


def test_chat_sends_tools_and_choice_and_reads_calls_with_ids():
    body, completion, _ = _sent("tgi_chat_tool_calls_null_content", "chat", tools=[WEATHER],
                                tool_choice={"type": "function", "function": {"name": "get_weather"}})
    assert body["tools"] == [{"type": "function", "function": WEATHER}]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert body["messages"] == CONVERSATION  # earlier calls and results go as chat messages
    assert [(c.name, c.arguments, c.id) for c in completion.tool_calls] == \
        [("get_current_weather", {"location": "Brooklyn, NY", "format": "fahrenheit"}, "0")]
    assert completion.tool_problems == {"unknown_tools": 1}  # the recorded call names another function


def test_responses_sends_flat_tools_and_items():
    body, completion, _ = _sent("llamacpp_tools_responses", "responses", tools=[{"type": "function", "function": WEATHER}],
                                tool_choice={"type": "function", "function": {"name": "get_weather"}})
    assert body["tools"] == [{"type": "function", **WEATHER}]
    assert body["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert body["input"] == [
        {"role": "user", "content": "Weather in Rome?"},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city": "Rome"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"role": "assistant", "content": "Sunny in Rome."},
        {"role": "user", "content": "And in Paris?"}]
    assert completion.status == "ok" and completion.tool_calls == []


def test_completions_writes_tools_and_the_conversation_into_the_prompt():
    body, completion, client = _sent("llamacpp_tools_completions_prompt_mode", "completions", tools=[WEATHER])
    prompt = body["prompt"]
    assert "tools" not in body and prompt.index("<tools>") < prompt.index("Weather in Rome?")
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>' in prompt
    assert "<tool_response>\nsunny\n</tool_response>" in prompt and prompt.endswith("And in Paris?")
    assert completion.tool_calls == [] and client.tool_format == "hermes"


def test_without_tools_nothing_changes():
    body, completion, _ = _sent("tgi_chat_tool_calls_null_content", "chat")
    assert "tools" not in body and completion.tool_calls is None
    body, _, _ = _sent("llamacpp_tools_completions_prompt_mode", "completions")
    assert "<tools>" not in body["prompt"]  # a conversation with calls is still written out in the format


def test_the_reference_server_answers_each_api_with_calls():
    row = {"question": "What is the weather like in Paris today?", "expected_answer": "x",
           "functions": [{"name": "weather.get", "parameters": {"type": "dict", "properties": {"city": {"type": "string"}},
                                                                "required": ["city"]}}],
           "ground_truth": [{"weather.get": {"city": ["Paris"]}}], "metadata": {"category": "simple_python"}}
    tool = {"type": "function", "function": {"name": "weather_get", "parameters": {"type": "object"}}}
    with MockServer(rows=[row], accuracy=1.0) as server:
        for api in ("chat", "responses", "completions"):
            client = ModelClient(server.base_url, model="gym-mock", api=api, max_retries=0)
            completion = client.complete([{"role": "user", "content": row["question"]}], tools=[tool])
            assert [(c.name, c.arguments) for c in completion.tool_calls] == [("weather_get", {"city": "Paris"})], api
            assert completion.tool_problems is None and (completion.finish_reason == "tool_calls"), api
            assert api == "completions" or (completion.tool_calls[0].id or "").startswith("call_")
    json.dumps([c.to_row() for c in completion.tool_calls])


def test_a_call_in_completions_text_that_does_not_decode_is_counted_unparsed():
    """On completions the calls are text in the prompt's format: a malformed one yields no call, and the
    run's counters say so (the real reply of the recording, with a call missing its closing brace)."""
    record = load("llamacpp_tools_completions_prompt_mode")
    choice = record["response"]["body"]["choices"][0]
    choice["text"] = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n</tool_call>'
    with ReplayServer(record) as server:
        client = ModelClient(server.root + "/v1", model="m", api="completions", max_retries=0)
        completion = client.complete(CONVERSATION, tools=[WEATHER])
        assert completion.tool_calls == [] and completion.tool_problems == {"unparsed_tool_calls": 1}
        choice["text"] = "It is sunny in Paris."  # a plain answer is no trouble
        assert client.complete(CONVERSATION, tools=[WEATHER]).tool_problems is None
    assert client.tool_counters.summary()["unparsed_tool_calls"] == 1
