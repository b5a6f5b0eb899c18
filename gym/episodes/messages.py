"""The episode trajectory as OpenAI chat messages, and the views the agent and the user get of it.

The trajectory keeps every message: system, user, assistant (with `tool_calls`), tool (with
`tool_call_id`). Tool calls made by the user (τ² telecom's phone) are `user` messages with `tool_calls`,
answered by `tool` messages like the agent's. The agent sees neither the user's calls nor their results;
the user sees the conversation with roles flipped (the agent's text as `user`, its own turns as
`assistant`) and only its own tool calls, as upstream's user simulator does. Reasoning never leaves the
message it came with.
"""

from __future__ import annotations

from typing import Any

from gym.core.prompts import TOKEN_KEYS
from gym.toolcalls import ToolCall

STOP_TOKENS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")
TRANSFER_TOKEN = "###TRANSFER###"
# what a message sends on the wire; token ids only where the policy server returned them (it reads them back)
WIRE_KEYS = ("role", "content", "tool_calls", "tool_call_id", *TOKEN_KEYS)


def message(role: str, text: str | None, calls: list[ToolCall] | None = None, reasoning: str | None = None,
            tokens: dict | None = None) -> dict:
    out: dict[str, Any] = {"role": role, "content": text}
    if calls:
        out["tool_calls"] = [call.to_chat(number) for number, call in enumerate(calls)]
    if reasoning:
        out["reasoning_content"] = reasoning
    if tokens:
        out.update({key: tokens[key] for key in TOKEN_KEYS if key in tokens})
    return out


def tool_message(call_id: str, content: str) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def is_stop(text: str | None) -> bool:
    return bool(text) and any(token in text for token in STOP_TOKENS)


def _user_call_ids(trajectory: list[dict]) -> set:
    return {call.get("id") for m in trajectory if m.get("role") == "user" for call in m.get("tool_calls") or []}


def _wire(message: dict) -> dict:
    return {key: message[key] for key in WIRE_KEYS if key in message}


def agent_view(trajectory: list[dict]) -> list[dict]:
    """What the agent is sent: everything but the user's own tool calls and their results."""
    hidden = _user_call_ids(trajectory)
    out = []
    for m in trajectory:
        if m.get("role") == "user" and m.get("tool_calls"):
            continue
        if m.get("role") == "tool" and m.get("tool_call_id") in hidden:
            continue
        out.append(_wire(m))
    return out


def user_view(trajectory: list[dict], system_prompt: str) -> list[dict]:
    """What the user simulator is sent: its instructions, then the dialogue with roles flipped."""
    mine = _user_call_ids(trajectory)
    out = [{"role": "system", "content": system_prompt}]
    for m in trajectory:
        role = m.get("role")
        if role == "assistant" and not m.get("tool_calls") and m.get("content"):
            out.append({"role": "user", "content": m["content"]})
        elif role == "user":
            flipped = {"role": "assistant", "content": m.get("content")}
            if m.get("tool_calls"):
                flipped["tool_calls"] = m["tool_calls"]
            out.append(flipped)
        elif role == "tool" and m.get("tool_call_id") in mine:
            out.append(_wire(m))
    return out


def last_agent_text(trajectory: list[dict]) -> str:
    for m in reversed(trajectory):
        if m.get("role") == "assistant" and not m.get("tool_calls"):
            return m.get("content") or ""
    return ""
