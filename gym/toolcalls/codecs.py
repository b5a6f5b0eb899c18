"""Tool calls as text, for APIs without native tools (completions) and prompt mode on any API.

Two formats: `python_list` (BFCL's prompting format, gym.toolcalls.python_calls) and `hermes`
(`<tool_call>` JSON blocks, gym.toolcalls.hermes). Each has a system prompt that documents the functions,
a parser and a renderer (the reference server answers in the same format it is asked in).

The `python_list` system prompt is BFCL's default prompting-mode system prompt (ret_fmt=python,
func_doc_fmt=json, plaintext, classic style), word for word, so prompt-mode scores are comparable with
the leaderboard's: the function list is JSON with an indent of 4.
"""

from __future__ import annotations

import json
import re
from typing import Callable

from gym.toolcalls.calls import ToolCall
from gym.toolcalls.hermes import parse_hermes_calls, render_hermes_calls
from gym.toolcalls.python_calls import DecodeError, parse_python_calls, render_python_calls
from gym.toolcalls.specs import function_of

FORMATS = ("python_list", "hermes")

_BFCL_PROMPT = (
    "You are an expert in composing functions.You are given a question and a set of possible functions. Based on "
    "the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the "
    "functions can be used, point it out. If the given question lacks the parameters required by the function, "
    "also point it out.\n\nYou should only return the function calls in your response.\n\nIf you decide to invoke "
    "any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, "
    "params_name2=params_value2...), func_name2(params)].  You SHOULD NOT include any other text in the "
    "response.\n\nAt each turn, you should try your best to complete the tasks requested by the user within the "
    "current turn. Continue to output functions to call until you have fulfilled the user's request to the best "
    "of your ability. Once you have no more functions to call, the system will consider the current turn "
    "complete and proceed to the next turn or task.\n\nHere is a list of functions in json format that you can "
    "invoke.\n{functions}\n")

_HERMES_PROMPT = (
    "# Tools\n\nYou may call one or more functions to help with the user's request.\n\nThe functions are described "
    "as JSON schemas inside <tools></tools> tags:\n<tools>\n{functions}\n</tools>\n\nTo call a function, answer "
    "with one JSON object per call, naming the function and giving its arguments, inside <tool_call></tool_call> "
    "tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>")


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"tool-call format {fmt!r} is not one of {', '.join(FORMATS)}")
    return fmt


def tools_prompt(tools: list[dict], fmt: str) -> str:
    """The system-prompt text that documents `tools` (function schemas in any shape) and asks for `fmt`."""
    functions = [function_of(tool) for tool in tools]
    if check_format(fmt) == "python_list":
        return _BFCL_PROMPT.replace("{functions}", json.dumps(functions, indent=4))
    return _HERMES_PROMPT.format(functions="\n".join(json.dumps({"type": "function", "function": f})
                                                      for f in functions))


_PARSERS: dict[str, Callable[[str], list[ToolCall]]] = {"python_list": parse_python_calls,
                                                         "hermes": parse_hermes_calls}
_RENDERERS: dict[str, Callable[[list[ToolCall]], str]] = {"python_list": render_python_calls,
                                                           "hermes": render_hermes_calls}


def parse_calls(text: str, fmt: str) -> list[ToolCall]:
    """The calls in `text`; DecodeError when it is not in the format (a plain-text answer, a broken call)."""
    return _PARSERS[check_format(fmt)](text or "")


def try_parse_calls(text: str, fmt: str) -> list[ToolCall] | None:
    """The calls, or None when the text does not decode (a plain answer is not a call)."""
    try:
        return parse_calls(text, fmt)
    except DecodeError:
        return None


def render_calls(calls: list[ToolCall], fmt: str) -> str:
    """Calls written as text in a prompt-mode format (FORMATS: BFCL's Python list or Hermes JSON blocks)."""
    return _RENDERERS[check_format(fmt)](calls)


# Text a chat/Responses server leaves in `content` when it was started without a tool parser: the
# markers of the common chat templates, or a whole reply that is a JSON call object.
_CALL_MARKERS = re.compile(r"<tool_call>|<function=|\[TOOL_CALLS\]|<\|python_tag\|>|<\|tool_call|"
                           r"<tool▁call|<function_call>|\"arguments\"\s*:|\"parameters\"\s*:")


def looks_like_tool_call(text: str | None) -> bool:
    """True when reply text looks like a tool call that the server did not turn into `tool_calls`."""
    if not text:
        return False
    if _CALL_MARKERS.search(text):
        return True
    stripped = text.strip().strip("`").strip()
    return bool(stripped.startswith("[") and stripped.endswith(")]") and try_parse_calls(stripped, "python_list"))


def messages_to_prompt(messages: list[dict], tools: list[dict] | None, fmt: str) -> str:
    """A chat conversation (with assistant tool calls and tool results) as one completions prompt.

    The tools' documentation leads, then every message's text joined as gym joins a completions prompt;
    earlier calls are written in `fmt`, results as <tool_response> blocks, so a base model sees the
    conversation in the same format it is asked to answer in."""
    parts = [tools_prompt(tools, fmt)] if tools else []
    for message in messages:
        role, content = message.get("role"), message.get("content") or ""
        if role == "tool":
            parts.append(f"<tool_response>\n{content}\n</tool_response>")
            continue
        calls = [ToolCall.from_wire(c.get("function", {}).get("name"), c.get("function", {}).get("arguments"),
                                    c.get("id")) for c in message.get("tool_calls") or []]
        text = "\n".join(part for part in (content, render_calls(calls, fmt) if calls else "") if part)
        parts.append(text)
    return "\n\n".join(parts)
