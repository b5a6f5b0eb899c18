"""One tool call as gym keeps it, whatever wire shape it arrived in.

`arguments` is the parsed JSON object; `raw_arguments` keeps the string the model sent when it did not
parse as a JSON object (bad JSON, a list, a number), so nothing the model said is lost and a grader can
decide what a broken call is worth (BFCL: a failed decode is wrong, never a crash).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass
class ToolCall:
    name: str
    arguments: dict | None = None  # the parsed JSON object; None when the arguments did not parse to one
    raw_arguments: str | None = None  # the string as sent, kept when it did not parse to a JSON object
    id: str | None = None  # the call id (chat tool_calls[].id, Responses call_id) when the server gave one

    @property
    def parsed(self) -> bool:
        return self.arguments is not None

    def to_row(self) -> dict[str, Any]:
        """The rollout row's form: {name, arguments[, raw_arguments][, id]}."""
        row: dict[str, Any] = {"name": self.name, "arguments": self.arguments}
        if self.raw_arguments is not None:
            row["raw_arguments"] = self.raw_arguments
        if self.id is not None:
            row["id"] = self.id
        return row

    @classmethod
    def from_row(cls, row: dict) -> "ToolCall":
        arguments = row.get("arguments")
        return cls(str(row.get("name") or ""), arguments if isinstance(arguments, dict) else None,
                   row.get("raw_arguments"), row.get("id"))

    @classmethod
    def from_wire(cls, name: Any, arguments: Any, call_id: Any = None) -> "ToolCall":
        """A call from a server: `arguments` a JSON string (OpenAI's shape) or an object (some servers)."""
        call_id = str(call_id) if call_id not in (None, "") else None
        if isinstance(arguments, dict):
            return cls(str(name or ""), arguments, None, call_id)
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        parsed = parse_arguments(raw)
        return cls(str(name or ""), parsed, None if parsed is not None else raw, call_id)

    def arguments_json(self) -> str:
        """The arguments as the wire sends them (the raw string when they never parsed)."""
        if self.arguments is None:
            return self.raw_arguments or ""
        return json.dumps(self.arguments, ensure_ascii=False)

    def to_chat(self, index: int = 0) -> dict[str, Any]:
        """An entry of an assistant message's `tool_calls` (chat completions)."""
        return {"id": self.id or f"call_{index}", "type": "function",
                "function": {"name": self.name, "arguments": self.arguments_json()}}

    def to_responses(self, index: int = 0) -> dict[str, Any]:
        """A `function_call` item (Responses API)."""
        return {"type": "function_call", "call_id": self.id or f"call_{index}", "name": self.name,
                "arguments": self.arguments_json()}


def parse_arguments(raw: str | None) -> dict | None:
    """A JSON object from an arguments string, or None (not JSON, or JSON that is not an object)."""
    if not isinstance(raw, str):
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def calls_from_chat_message(message: dict) -> list[ToolCall]:
    """The calls of a chat `message` (`tool_calls[].function`, or the legacy single `function_call`)."""
    entries = message.get("tool_calls") or []
    if not entries and isinstance(message.get("function_call"), dict):
        entries = [{"function": message["function_call"]}]
    calls = []
    for entry in entries if isinstance(entries, list) else []:
        function = entry.get("function") if isinstance(entry, dict) else None
        if isinstance(function, dict):
            calls.append(ToolCall.from_wire(function.get("name"), function.get("arguments"), entry.get("id")))
    return calls


def calls_from_responses_output(output: list) -> list[ToolCall]:
    """The `function_call` items of a Responses reply's `output`."""
    return [ToolCall.from_wire(item.get("name"), item.get("arguments"), item.get("call_id") or item.get("id"))
            for item in output if isinstance(item, dict) and item.get("type") == "function_call"]
