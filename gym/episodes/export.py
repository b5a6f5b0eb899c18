"""An episode's trajectory as Responses API items, the layout NeMo Gym's agent rollouts use.

The system prompt (and any other leading system message) is the request's input; everything after is
output, in order: `message` items for user and assistant text, `function_call` for each call (the user's
own calls too, marked by the preceding user role in gym's trajectory), `function_call_output` for each
result. `items_to_trajectory` reads such items back into chat messages.
"""

from __future__ import annotations

from typing import Any

from gym.core.prompts import TOKEN_KEYS


def _text_item(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def trajectory_items(trajectory: list[dict]) -> tuple[list[dict], list[dict]]:
    """(input items, output items) of a chat trajectory."""
    leading = 0
    while leading < len(trajectory) and trajectory[leading].get("role") == "system":
        leading += 1
    inputs = [{"role": "system", "content": m.get("content") or ""} for m in trajectory[:leading]]
    output: list[dict] = []
    for m in trajectory[leading:]:
        role, first = m.get("role"), len(output)
        if role == "tool":
            output.append({"type": "function_call_output", "call_id": m.get("tool_call_id"),
                           "output": m.get("content") or ""})
            continue
        if m.get("reasoning_content"):
            output.append({"type": "reasoning", "summary": [{"type": "summary_text", "text": m["reasoning_content"]}]})
        if isinstance(m.get("content"), str) and m["content"]:
            output.append(_text_item(role, m["content"]))
        for call in m.get("tool_calls") or []:
            function = call.get("function") or {}
            item = {"type": "function_call", "call_id": call.get("id"), "name": function.get("name"),
                    "arguments": function.get("arguments") or ""}
            if role == "user":
                item["gym_requestor"] = "user"  # τ² telecom: the user's own phone tools
            output.append(item)
        if len(output) > first and any(key in m for key in TOKEN_KEYS):  # NeMo Gym's training items carry them
            output[-1].update({key: m[key] for key in TOKEN_KEYS if key in m})
    return inputs, output


def items_to_trajectory(inputs: list[dict], output: list[dict]) -> list[dict]:
    """Chat messages from Responses items (the inverse of trajectory_items): a message's calls follow it."""
    out = [{"role": i.get("role", "system"), "content": i.get("content")} for i in inputs]
    reasoning = None
    for item in output:
        kind = item.get("type")
        if kind == "reasoning":
            reasoning = "\n".join(part.get("text") or "" for part in item.get("summary") or [])
        elif kind == "message":
            text = "".join(part.get("text") or "" for part in item.get("content") or [])
            out.append({"role": item.get("role"), "content": text})
        elif kind == "function_call":
            role = "user" if item.get("gym_requestor") == "user" else "assistant"
            call = {"id": item.get("call_id"), "type": "function",
                    "function": {"name": item.get("name"), "arguments": item.get("arguments")}}
            if out and out[-1].get("role") == role and out[-1].get("role") != "system":
                out[-1].setdefault("tool_calls", []).append(call)
            else:
                out.append({"role": role, "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            out.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": item.get("output")})
        if reasoning is not None and kind in ("message", "function_call") and out[-1].get("role") == "assistant":
            out[-1]["reasoning_content"], reasoning = reasoning, None
        if out[-1].get("role") == "assistant" and any(key in item for key in TOKEN_KEYS):
            out[-1].update({key: item[key] for key in TOKEN_KEYS if key in item})
    return out
