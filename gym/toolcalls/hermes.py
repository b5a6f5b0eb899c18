"""Hermes-style calls in text: `<tool_call>{"name": "f", "arguments": {...}}</tool_call>`, one per block.

Used by Qwen, Hermes and many open chat templates; what a server without a tool parser leaves in
`content`. `arguments` may be an object or a JSON string; a block that is not JSON with a string `name`
is a decode failure for the whole reply (one broken call makes the reply undecodable, as in BFCL).
"""

from __future__ import annotations

import json
import re

from gym.toolcalls.calls import ToolCall, parse_arguments
from gym.toolcalls.python_calls import DecodeError

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


def parse_hermes_calls(text: str) -> list[ToolCall]:
    blocks = _BLOCK.findall(text or "")
    if not blocks:
        raise DecodeError("no <tool_call> block")
    calls = []
    for block in blocks:
        try:
            body = json.loads(block)
        except ValueError:
            raise DecodeError("a <tool_call> block is not JSON") from None
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            raise DecodeError("a <tool_call> block has no string 'name'")
        arguments = body.get("arguments", body.get("parameters", {}))
        if isinstance(arguments, str):
            parsed = parse_arguments(arguments)
            calls.append(ToolCall(body["name"], parsed, None if parsed is not None else arguments))
        elif isinstance(arguments, dict):
            calls.append(ToolCall(body["name"], arguments))
        else:
            calls.append(ToolCall(body["name"], None, json.dumps(arguments)))
    return calls


def render_hermes_calls(calls: list[ToolCall]) -> str:
    return "\n".join("<tool_call>\n" + json.dumps({"name": call.name, "arguments": call.arguments
                                                   if call.arguments is not None else call.raw_arguments},
                                                  ensure_ascii=False) + "\n</tool_call>" for call in calls)
