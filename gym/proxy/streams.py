"""A finished reply told as the dialect's server-sent event stream, for agents that only stream.

The policy is asked without streaming (the record then holds one whole reply and its token ids); an
agent that asked `stream: true` gets the reply as its dialect streams one, in the order real servers send
the events: chat `chat.completion.chunk`s then `[DONE]`; Responses' `response.created` …
`response.completed` with output items opened, filled and closed; Anthropic's `message_start`,
content blocks (`text_delta`, `input_json_delta`), `message_delta`, `message_stop`.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from gym.proxy.dialects import Call, chat_body, messages_body, responses_body, responses_output


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n".encode("utf-8")


def chat_events(call: Call, completion: Any) -> Iterator[bytes]:
    body = chat_body(call, completion)
    choice, head = body["choices"][0], {k: body[k] for k in ("id", "created", "model")}

    def chunk(delta: dict, finish: str | None = None) -> bytes:
        return _sse({**head, "object": "chat.completion.chunk",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]})

    message = choice["message"]
    yield chunk({"role": "assistant", "content": ""})
    if message.get("reasoning_content"):
        yield chunk({"reasoning_content": message["reasoning_content"]})
    if message.get("content"):
        yield chunk({"content": message["content"]})
    for index, tool_call in enumerate(message.get("tool_calls") or []):
        yield chunk({"tool_calls": [{"index": index, **tool_call}]})
    yield chunk({}, choice["finish_reason"])
    if call.include_usage:
        yield _sse({**head, "object": "chat.completion.chunk", "choices": [], "usage": body["usage"]})
    yield b"data: [DONE]\n\n"


def responses_events(call: Call, completion: Any) -> Iterator[bytes]:
    output = responses_output(completion)
    final = responses_body(call, completion, output)
    number = iter(range(1_000_000))

    def event(kind: str, **fields: Any) -> bytes:
        return _sse({"type": kind, "sequence_number": next(number), **fields}, kind)

    opening = {**final, "status": "in_progress", "output": [], "usage": None}
    yield event("response.created", response=opening)
    yield event("response.in_progress", response=opening)
    for index, item in enumerate(output):
        ids = {"output_index": index, "item_id": item["id"]}
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield event("response.output_item.added", output_index=index, item={**item, "status": "in_progress",
                                                                                  "content": []})
            part = {"type": "output_text", "text": "", "annotations": []}
            yield event("response.content_part.added", **ids, content_index=0, part=part)
            yield event("response.output_text.delta", **ids, content_index=0, delta=text)
            yield event("response.output_text.done", **ids, content_index=0, text=text)
            yield event("response.content_part.done", **ids, content_index=0, part={**part, "text": text})
        elif item["type"] == "function_call":
            yield event("response.output_item.added", output_index=index, item={**item, "arguments": "",
                                                                                  "status": "in_progress"})
            yield event("response.function_call_arguments.delta", **ids, delta=item["arguments"])
            yield event("response.function_call_arguments.done", **ids, arguments=item["arguments"])
        else:
            yield event("response.output_item.added", output_index=index, item=item)
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.completed", response=final)


def messages_events(call: Call, completion: Any) -> Iterator[bytes]:
    body = messages_body(call, completion)
    start = {**body, "content": [], "stop_reason": None,
             "usage": {"input_tokens": body["usage"]["input_tokens"], "output_tokens": 0}}
    yield _sse({"type": "message_start", "message": start}, "message_start")
    for index, block in enumerate(body["content"]):
        if block["type"] == "text":
            opened, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        elif block["type"] == "thinking":
            opened, delta = {"type": "thinking", "thinking": ""}, {"type": "thinking_delta",
                                                                   "thinking": block["thinking"]}
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"], ensure_ascii=False)}
        yield _sse({"type": "content_block_start", "index": index, "content_block": opened}, "content_block_start")
        yield _sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
        yield _sse({"type": "content_block_stop", "index": index}, "content_block_stop")
    yield _sse({"type": "message_delta", "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": body["usage"]["output_tokens"]}}, "message_delta")
    yield _sse({"type": "message_stop"}, "message_stop")


EVENTS = {"chat": chat_events, "responses": responses_events, "messages": messages_events}
