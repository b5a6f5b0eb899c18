"""gym.toolcalls: the ToolCall record, the wire shapes, the two text formats and the trouble counters."""

from __future__ import annotations

import json
import logging

import pytest

from gym.toolcalls import (DecodeError, ToolCall, ToolCallCounters, calls_from_chat_message,
                           calls_from_responses_output, chat_tool, decode_python_calls, looks_like_tool_call,
                           messages_to_prompt, parse_calls, problems, render_calls, responses_tool,
                           responses_tool_choice, tools_prompt, try_parse_calls)

FUNCTION = {"name": "get_weather", "description": "Weather of a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


def test_row_form_keeps_the_raw_string_only_when_it_did_not_parse():
    good = ToolCall.from_wire("f", '{"a": 1}', "call_1")
    assert good.to_row() == {"name": "f", "arguments": {"a": 1}, "id": "call_1"}
    bad = ToolCall.from_wire("f", '{"a": 1', None)
    assert bad.to_row() == {"name": "f", "arguments": None, "raw_arguments": '{"a": 1'}
    not_object = ToolCall.from_wire("f", "[1, 2]")
    assert not_object.arguments is None and not_object.raw_arguments == "[1, 2]"
    assert ToolCall.from_wire("f", {"a": 1}).arguments == {"a": 1}  # servers that send an object
    assert ToolCall.from_row(bad.to_row()) == bad


def test_chat_and_responses_shapes_round_trip():
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": "not json"}}]}
    calls = calls_from_chat_message(message)
    assert [c.id for c in calls] == ["c1", "c2"] and calls[0].arguments == {"city": "Paris"}
    assert calls[1].raw_arguments == "not json"
    assert [c.to_chat(i) for i, c in enumerate(calls)] == message["tool_calls"]
    output = [{"type": "reasoning", "summary": []}, calls[0].to_responses(), {"type": "message", "content": []}]
    assert calls_from_responses_output(output) == [calls[0]]
    assert calls_from_chat_message({"function_call": {"name": "g", "arguments": "{}"}})[0].name == "g"


def test_tool_shapes():
    assert chat_tool(FUNCTION) == {"type": "function", "function": FUNCTION}
    assert responses_tool(FUNCTION) == {"type": "function", **FUNCTION}
    assert responses_tool(chat_tool(FUNCTION)) == responses_tool(FUNCTION)
    assert responses_tool_choice({"type": "function", "function": {"name": "f"}}) == {"type": "function", "name": "f"}
    assert responses_tool_choice("auto") == "auto"


# BFCL's prompting-format decoder, case by case (its documented handling of each Python construct)
@pytest.mark.parametrize("text, expected", [
    ('[f(a=1, b="x")]', [{"f": {"a": 1, "b": "x"}}]),
    ('f(a=1)', [{"f": {"a": 1}}]),  # a bare call is wrapped in a list
    ("```\n[f(a=1)]\n```", [{"f": {"a": 1}}]),  # backticks and newlines trimmed
    ("[f(a=1)", [{"f": {"a": 1}}]),  # a missing closing bracket is added
    ("", []),
    ("[math.sqrt.exact(x=4.0)]", [{"math.sqrt.exact": {"x": 4.0}}]),  # dotted names
    ("[f(1, a=2)]", [{"f": {"a": 2}}]),  # positional arguments are dropped
    ("[f(t=(1, 2), l=[1, [2]], d={'k': None})]", [{"f": {"t": (1, 2), "l": [1, [2]], "d": {"k": None}}}]),
    ("[f(a=-5, b=+5)]", [{"f": {"a": -5, "b": -5}}]),  # any unary operator negates (upstream's reading)
    ("[f(a=2**10, b=1/4, c='a'+'b')]", [{"f": {"a": 1024, "b": 0.25, "c": "ab"}}]),  # arithmetic is computed
    ("[f(a=x)]", [{"f": {"a": "x"}}]),  # a bare name is its text
    ("[f(a=g())]", [{"f": {"a": "g()"}}]),  # a call without keywords is its source text
    ("[f(a=g(b=1))]", [{"f": {"a": {"g": {"b": 1}}}}]),  # a call with keywords nests
    ("[f(a=x[0])]", [{"f": {"a": "x[0]"}}]),  # a subscript is its source text
    ("[f(a=...)]", [{"f": {"a": "..."}}]),
    ("[]", []),
    ("[f(), g(b=True)]", [{"f": {}}, {"g": {"b": True}}]),
])
def test_python_list_decoder(text, expected):
    assert decode_python_calls(text) == expected


@pytest.mark.parametrize("text", [
    "I cannot answer that: no function fits.", "[f(a=1), 2]", "[f(a=lambda: 1)]", "[f(a=math.pi)]",
    "[f(a=[x for x in y])]", "[f(a=-x)]", "[f(a=2**10**9)]", "[f(a=1/0)]", "{'a': 1}", "'[f(a=1)]'",
    "None", "[f(a={1, 2})]", "[f(a='x' * 10**9)]",
])
def test_python_list_decoder_failures(text):
    with pytest.raises(DecodeError):
        decode_python_calls(text)


def test_hermes_blocks():
    text = ('I will call it.\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\n'
            '<tool_call>{"name": "g", "arguments": "{\\"b\\": 2}"}</tool_call>')
    assert [(c.name, c.arguments) for c in parse_calls(text, "hermes")] == [("f", {"a": 1}), ("g", {"b": 2})]
    assert parse_calls('<tool_call>{"name": "f", "arguments": "{oops"}</tool_call>', "hermes")[0].raw_arguments == "{oops"
    for broken in ("no calls here", "<tool_call>{not json}</tool_call>", '<tool_call>{"arguments": {}}</tool_call>'):
        assert try_parse_calls(broken, "hermes") is None


@pytest.mark.parametrize("fmt", ["python_list", "hermes"])
def test_render_then_parse_is_identity(fmt):
    calls = [ToolCall("a.b", {"x": 1.0, "y": [1, {"k": "v"}], "z": None, "w": True, "s": "it's \"q\""}),
             ToolCall("c", {})]
    assert [(c.name, c.arguments) for c in parse_calls(render_calls(calls, fmt), fmt)] == \
        [(c.name, c.arguments) for c in calls]


def test_tools_prompt_python_list_is_bfcls_default_system_prompt():
    text = tools_prompt([FUNCTION], "python_list")
    assert text.startswith("You are an expert in composing functions.You are given a question")
    assert "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]" in text
    assert text.endswith("Here is a list of functions in json format that you can invoke.\n"
                         + json.dumps([FUNCTION], indent=4) + "\n")
    assert '"name": "get_weather"' in tools_prompt([chat_tool(FUNCTION)], "hermes")
    with pytest.raises(ValueError):
        tools_prompt([FUNCTION], "xml")


def test_messages_to_prompt_writes_calls_and_results_in_the_format():
    messages = [{"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": None, "tool_calls": [ToolCall("get_weather", {"city": "Paris"}, id="c1").to_chat()]},
                {"role": "tool", "tool_call_id": "c1", "content": "sunny"}]
    text = messages_to_prompt(messages, [FUNCTION], "hermes")
    assert text.index("<tools>") < text.index("Weather in Paris?") < text.index('"name": "get_weather", "arguments"') \
        < text.index("<tool_response>\nsunny\n</tool_response>")


def test_looks_like_tool_call():
    assert looks_like_tool_call('<tool_call>{"name": "f"}</tool_call>')
    assert looks_like_tool_call('{"name": "f", "arguments": {"a": 1}}')
    assert looks_like_tool_call("[get_weather(city='Paris')]")
    assert looks_like_tool_call("<function=get_weather>{}</function>")
    assert not looks_like_tool_call("The weather in Paris is sunny [source].")
    assert not looks_like_tool_call(None)


def test_problems_and_counters_hint_once(caplog):
    offered = {"get_weather"}
    assert problems([ToolCall("get_weather", {"city": "x"})], None, offered) == {}
    assert problems([ToolCall("nope", None, "{")], None, offered) == {"invalid_tool_arguments": 1, "unknown_tools": 1}
    assert problems([], "<tool_call>{}</tool_call>", offered) == {"unparsed_tool_calls": 1}
    assert problems([], "<tool_call>{}</tool_call>", offered, native=False) == {}
    counters = ToolCallCounters()
    with caplog.at_level(logging.WARNING, logger="gym.toolcalls"):
        counters.add({"unparsed_tool_calls": 1})
        counters.add({"unparsed_tool_calls": 2})
    assert counters.summary() == {"unparsed_tool_calls": 3, "invalid_tool_arguments": 0, "unknown_tools": 0}
    hints = [r.message for r in caplog.records if "unparsed_tool_calls" in r.message]
    assert len(hints) == 1 and "--tool-call-parser" in hints[0]


def test_the_package_stays_at_the_bottom():
    """gym.toolcalls is pure: it imports no other gym package (the client, verifiers and episodes build on it)."""
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "gym" / "toolcalls"
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            assert all(not n.startswith("gym") or n.startswith("gym.toolcalls") for n in names), (path.name, names)


# Java/JavaScript rows in prompt mode: one call, values as source text (BFCL's tree-sitter reading)
@pytest.mark.parametrize("text, expected", [
    ('[Geo.create(controller=mapController, parent="mapArea")]', [{"Geo.create": {"controller": "mapController",
                                                                                  "parent": "mapArea"}}]),
    ('f(a=5, b=new int[]{1, 2}, c="x,y", d=true, e=3.0f)',
     [{"f": {"a": "5", "b": "new int[]{1, 2}", "c": "x,y", "d": "true", "e": "3.0f"}}]),
    ('f(m=new HashMap<String, Object>() {{ put("k", 1); }})',
     [{"f": {"m": 'new HashMap<String, Object>() {{ put("k", 1); }}'}}]),
    ("f(a=[1, 2], b={k: 'v'}, c='q')", [{"f": {"a": "[1, 2]", "b": "{k: 'v'}", "c": "q"}}]),
    ("f(a=1) g(b=2)", [{"f": {"a": "1"}}]),  # the first call only
    ("f(mapController)", [{"f": {None: "mapController"}}]),  # an unnamed argument (the checker rejects it)
    ('f(a="1" + "2")', [{"f": {"a": '"1" + "2"'}}]),
    ("No function fits this request.", []),
])
def test_source_call_decoder(text, expected):
    from gym.toolcalls.source_calls import decode_source_call

    assert decode_source_call(text, "java") == expected


@pytest.mark.parametrize("text", ['f(a="x)', "f(a=[1, 2)", "f(a=1, a=2)"])
def test_source_call_decoder_failures(text):
    from gym.toolcalls.source_calls import decode_source_call

    with pytest.raises(DecodeError):
        decode_source_call(text, "javascript")
