"""Function schemas in the shapes the APIs take.

A function schema is `{name, description, parameters}` (JSON Schema for the parameters). chat wants
`{"type": "function", "function": {...}}`, the Responses API the flat `{"type": "function", "name", ...}`.
`openai_name` is the name normalisation OpenAI-style endpoints force (`^[a-zA-Z0-9_-]{1,64}$`: BFCL
replaces every "." with "_" before sending and grades against the replaced name).
"""

from __future__ import annotations

import copy
from typing import Any


def openai_name(name: str) -> str:
    """A function name as OpenAI's APIs accept it (dots replaced by underscores, as BFCL sends them)."""
    return name.replace(".", "_")


def function_of(tool: dict) -> dict:
    """The bare function schema of a tool given in any of the three shapes."""
    if isinstance(tool.get("function"), dict):
        return tool["function"]
    return {key: value for key, value in tool.items() if key != "type"}


def chat_tool(tool: dict) -> dict[str, Any]:
    """A tool (either API's shape, or a bare function) in the Chat Completions shape."""
    return {"type": "function", "function": copy.deepcopy(function_of(tool))}


def responses_tool(tool: dict) -> dict[str, Any]:
    """A tool (either API's shape, or a bare function) in the Responses API's shape."""
    return {"type": "function", **copy.deepcopy(function_of(tool))}


def chat_tools(tools: list[dict]) -> list[dict]:
    """Every tool in the Chat Completions shape."""
    return [chat_tool(tool) for tool in tools]


def responses_tools(tools: list[dict]) -> list[dict]:
    """Every tool in the Responses API's shape."""
    return [responses_tool(tool) for tool in tools]


def tool_names(tools: list[dict] | None) -> set[str]:
    """The function names of `tools`."""
    return {str(function_of(tool).get("name")) for tool in tools or []}


def responses_tool_choice(choice: Any) -> Any:
    """chat's {"type": "function", "function": {"name": n}} is {"type": "function", "name": n} in Responses."""
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        return {"type": "function", "name": choice["function"].get("name")}
    return choice
