"""The three dialects CLI agents speak, read into one call and answered back in each one's own shape.

A request becomes a `Call`: chat messages (gym's common form, what gym's model client sends), function
schemas and a tool choice. The model's `Completion` goes back as the dialect's reply body:

  chat       OpenAI chat completions (`/v1/chat/completions`): messages pass as they are, content parts
             joined into text; `tools` / `tool_choice` as chat has them
  responses  OpenAI Responses (`/v1/responses`): `instructions` is the system message; `input` is a string or
             items (`message`, `function_call`, `function_call_output`; `reasoning` items are dropped, as
             the policy reads its own reasoning nowhere else); only `function` tools are offered
  messages   Anthropic Messages (`/v1/messages`): `system` (a string or text blocks), content blocks
             `text`, `tool_use` (the assistant's calls), `tool_result` (their results, which become `tool`
             messages in order); `tools[].input_schema` is the function's parameters; `tool_choice`
             auto / any / tool / none

What the agent asks that gym does not forward (its own sampling, non-function tools, images it sent)
is noted in `Call.dropped`, so a trial's record says it; the run's `model.sampling` is the policy's.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from gym.toolcalls import ToolCall

DIALECTS = ("chat", "responses", "messages")
FINISH_TO_ANTHROPIC = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}
SAMPLING_KEYS = ("temperature", "top_p", "max_tokens", "max_completion_tokens", "max_output_tokens", "top_k",
                 "stop", "stop_sequences", "seed", "reasoning", "thinking", "presence_penalty", "frequency_penalty")


class BadRequest(Exception):
    """The agent's request cannot be read: answered 400 in its dialect, recorded, never forwarded."""


@dataclass
class Call:
    dialect: str
    messages: list[dict]
    tools: list[dict] = field(default_factory=list)  # bare function schemas {name, description, parameters}
    tool_choice: Any = None
    stream: bool = False
    model: str | None = None  # the model name the agent asked for (answered back as such)
    dropped: dict = field(default_factory=dict)  # what was not forwarded, by kind
    include_usage: bool = False  # chat streaming's stream_options.include_usage


def _text(content: Any) -> str:
    """Text of a content given as a string or as parts ({"type": "text"|"input_text"|"output_text", "text"})."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part if isinstance(part, str) else str(part.get("text") or "")
                       for part in content if isinstance(part, (str, dict)))
    raise BadRequest(f"content must be a string or a list of parts, not {type(content).__name__}")


def _images(content: Any) -> int:
    return sum(1 for part in content if isinstance(part, dict) and "image" in str(part.get("type"))) \
        if isinstance(content, list) else 0


def _common(dialect: str, body: dict, messages: list[dict], tools: list[dict], tool_choice: Any,
            dropped: dict) -> Call:
    sampling = {key: body[key] for key in SAMPLING_KEYS if key in body}
    if sampling:
        dropped["sampling"] = sampling
    stream_options = body.get("stream_options") if isinstance(body.get("stream_options"), dict) else {}
    return Call(dialect, messages, tools, tool_choice, bool(body.get("stream")), body.get("model"),
                {k: v for k, v in dropped.items() if v}, bool(stream_options.get("include_usage")))


def _list(body: dict, key: str) -> list:
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadRequest(f"'{key}' must be a list")
    return value


# -- reading requests -------------------------------------------------------------------------------
def read_chat(body: dict) -> Call:
    messages, images = [], 0
    for message in _list(body, "messages"):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise BadRequest("each message needs a 'role'")
        images += _images(message.get("content"))
        out = {"role": "system" if message["role"] == "developer" else message["role"],
               "content": _text(message.get("content"))}
        if message.get("tool_calls"):
            out["tool_calls"] = message["tool_calls"]
            out["content"] = out["content"] or None
        if message.get("tool_call_id") is not None:
            out["tool_call_id"] = message["tool_call_id"]
        messages.append(out)
    if not messages:
        raise BadRequest("'messages' must be a non-empty list")
    tools, other = [], []
    for tool in _list(body, "tools"):
        (tools if isinstance(tool, dict) and isinstance(tool.get("function"), dict) else other).append(tool)
    return _common("chat", body, messages, [t["function"] for t in tools], body.get("tool_choice"),
                   {"tools": [t.get("type") for t in other if isinstance(t, dict)], "images": images})


def read_responses(body: dict) -> Call:
    messages: list[dict] = []
    if body.get("instructions"):
        messages.append({"role": "system", "content": _text(body["instructions"])})
    given = body.get("input")
    items = [{"role": "user", "content": given}] if isinstance(given, str) else _list(body, "input")
    images = 0
    for item in items:
        if not isinstance(item, dict):
            raise BadRequest("each input item must be an object")
        kind = item.get("type") or "message"
        if kind == "message":
            images += _images(item.get("content"))
            role = "system" if item.get("role") == "developer" else item.get("role") or "user"
            messages.append({"role": role, "content": _text(item.get("content"))})
        elif kind == "function_call":
            call = ToolCall.from_wire(item.get("name"), item.get("arguments"), item.get("call_id")).to_chat()
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant" and last.get("tool_calls") is not None:
                last["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": _text(item.get("output"))})
        # reasoning and other item types carry nothing the policy is sent again
    if not messages:
        raise BadRequest("'input' must be a non-empty string or list of items")
    functions = [t for t in _list(body, "tools") if isinstance(t, dict) and t.get("type") == "function"]
    other = [t.get("type") for t in _list(body, "tools") if isinstance(t, dict) and t.get("type") != "function"]
    tools = [{k: v for k, v in t.items() if k in ("name", "description", "parameters")} for t in functions]
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        choice = {"type": "function", "function": {"name": choice.get("name")}}
    return _common("responses", body, messages, tools, choice, {"tools": other, "images": images})


def _anthropic_blocks(role: str, content: Any, messages: list[dict]) -> int:
    """Append one Anthropic message as chat messages; returns the number of images it held."""
    if isinstance(content, str):
        messages.append({"role": role, "content": content})
        return 0
    if not isinstance(content, list):
        raise BadRequest("message content must be a string or a list of blocks")
    texts, calls, images = [], [], 0
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "tool_use":
            calls.append(ToolCall.from_wire(block.get("name"), block.get("input") or {}, block.get("id")).to_chat())
        elif kind == "tool_result":
            result = block.get("content")
            messages.append({"role": "tool", "tool_call_id": block.get("tool_use_id"),
                             "content": _text(result) if not isinstance(result, str) else result})
        elif kind == "image":
            images += 1
    if texts or calls:
        message: dict[str, Any] = {"role": role, "content": "".join(texts) or (None if calls else "")}
        if calls:
            message["tool_calls"] = calls
        messages.append(message)
    return images


def read_messages(body: dict) -> Call:
    messages: list[dict] = []
    system = [_text(body["system"])] if body.get("system") else []
    images = 0
    for message in _list(body, "messages"):
        if isinstance(message, dict) and message.get("role") == "system":
            # a system message inside the conversation (Claude Code 2.1 sends its environment so): joined to
            # the system prompt, since chat templates take a system message only at the start
            system.append(_text(message.get("content")))
            continue
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise BadRequest("each message needs a role of 'user', 'assistant' or 'system'")
        images += _anthropic_blocks(message["role"], message.get("content"), messages)
    if not messages:
        raise BadRequest("'messages' must be a non-empty list")
    if system:
        messages.insert(0, {"role": "system", "content": "\n\n".join(system)})
    tools, other = [], []
    for tool in _list(body, "tools"):
        if isinstance(tool, dict) and "input_schema" in tool:
            tools.append({"name": tool.get("name"), "description": tool.get("description") or "",
                          "parameters": tool["input_schema"]})
        elif isinstance(tool, dict):
            other.append(tool.get("type") or tool.get("name"))
    choice = body.get("tool_choice") if isinstance(body.get("tool_choice"), dict) else {}
    chat_choice = {"auto": "auto", "any": "required", "none": "none"}.get(choice.get("type"))
    if choice.get("type") == "tool":
        chat_choice = {"type": "function", "function": {"name": choice.get("name")}}
    return _common("messages", body, messages, tools, chat_choice, {"tools": other, "images": images})


READERS = {"chat": read_chat, "responses": read_responses, "messages": read_messages}


def read_call(dialect: str, raw: bytes) -> Call:
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        raise BadRequest("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return READERS[dialect](body)


# -- writing replies --------------------------------------------------------------------------------
def new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def _usage(completion: Any) -> tuple[int, int]:
    usage = completion.usage or {}
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)


def chat_body(call: Call, completion: Any) -> dict:
    prompt, generated = _usage(completion)
    message: dict[str, Any] = {"role": "assistant", "content": completion.text or None}
    if completion.reasoning:
        message["reasoning_content"] = completion.reasoning
    if completion.tool_calls:
        message["tool_calls"] = [c.to_chat(i) for i, c in enumerate(completion.tool_calls)]
    finish = "tool_calls" if completion.tool_calls else (completion.finish_reason or "stop")
    return {"id": new_id("chatcmpl-"), "object": "chat.completion", "created": int(time.time()),
            "model": call.model or "gym-proxy",
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": generated, "total_tokens": prompt + generated}}


def responses_output(completion: Any) -> list[dict]:
    output: list[dict] = []
    if completion.reasoning:
        output.append({"type": "reasoning", "id": new_id("rs_"),
                       "summary": [{"type": "summary_text", "text": completion.reasoning}]})
    if completion.text or not completion.tool_calls:
        output.append({"type": "message", "id": new_id("msg_"), "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": completion.text or "", "annotations": []}]})
    for index, tool_call in enumerate(completion.tool_calls or []):
        output.append({**tool_call.to_responses(index), "id": new_id("fc_"), "status": "completed"})
    return output


def responses_body(call: Call, completion: Any, output: list[dict] | None = None) -> dict:
    prompt, generated = _usage(completion)
    cut = completion.finish_reason == "length"
    return {"id": new_id("resp_"), "object": "response", "created_at": int(time.time()),
            "model": call.model or "gym-proxy", "status": "incomplete" if cut else "completed",
            "incomplete_details": {"reason": "max_output_tokens"} if cut else None, "error": None,
            "output": output if output is not None else responses_output(completion),
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": prompt, "output_tokens": generated, "total_tokens": prompt + generated,
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}}}


def messages_content(completion: Any) -> list[dict]:
    content: list[dict] = []
    if completion.reasoning:
        content.append({"type": "thinking", "thinking": completion.reasoning, "signature": ""})
    if completion.text:
        content.append({"type": "text", "text": completion.text})
    for tool_call in completion.tool_calls or []:
        content.append({"type": "tool_use", "id": tool_call.id or new_id("toolu_"), "name": tool_call.name,
                        "input": tool_call.arguments if tool_call.arguments is not None else {}})
    if not content:
        content.append({"type": "text", "text": ""})
    return content


def messages_body(call: Call, completion: Any) -> dict:
    prompt, generated = _usage(completion)
    finish = "tool_calls" if completion.tool_calls else (completion.finish_reason or "stop")
    return {"id": new_id("msg_"), "type": "message", "role": "assistant", "model": call.model or "gym-proxy",
            "content": messages_content(completion), "stop_reason": FINISH_TO_ANTHROPIC.get(finish, "end_turn"),
            "stop_sequence": None, "usage": {"input_tokens": prompt, "output_tokens": generated}}


BODIES = {"chat": chat_body, "responses": responses_body, "messages": messages_body}


def error_body(dialect: str, status: int, message: str, code: str) -> dict:
    """An error in the dialect's shape (OpenAI's `error` object, Anthropic's typed error)."""
    if dialect == "messages":
        kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
                429: "rate_limit_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "code": code, "param": None}}
