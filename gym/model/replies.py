"""Reading reply bodies of OpenAI-compatible servers, in every shape they really send.

Chat: `content` as a string, as a list of parts (`{"type": "text", "text": ...}`), or null next to
`tool_calls`; the reasoning in `reasoning_content` (vLLM < 0.10, SGLang, llama.cpp, DeepSeek) or
`reasoning` (vLLM >= 0.10, OpenRouter). Responses: `output` items of type `reasoning` (summary or
content parts) and `message` (`output_text` parts), a cut-off said by `status: incomplete` and
`incomplete_details`. Tool calls: chat `message.tool_calls` (or the legacy `function_call`), Responses
`function_call` items; their arguments are kept as sent when they are not a JSON object (gym.toolcalls).
`usage` may be missing anywhere. finish_reason values are kept as the server
says them, except TGI's `eos_token` which means `stop`.

A body that is not one of these shapes raises ReplyShapeError with the reason; the client records it
as an infra_error, never lets it escape as an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gym.core.prompts import TOKEN_KEYS
from gym.toolcalls import ToolCall, calls_from_chat_message, calls_from_responses_output

_THINK = re.compile(r"<think>(.*?)</think>", re.S)
_FINISH_ALIASES = {"eos_token": "stop", "eos": "stop", "stop_sequence": "stop", "max_tokens": "length",
                   "max_output_tokens": "length"}


class ReplyShapeError(Exception):
    """The body is JSON but not a completion this client can read."""


class EmptyReply(Exception):
    """No choices / no output at all: servers do this transiently under load, so it is retried."""


@dataclass
class Parsed:
    text: str
    reasoning: str | None
    finish_reason: str | None
    usage: dict[str, int] | None
    system_fingerprint: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)  # chat tool_calls / Responses function_call items
    tokens: dict | None = None  # TOKEN_KEYS the server returned (vLLM return_token_ids / logprobs), else None


def chat_tokens(body: dict, choice: dict) -> dict | None:
    """vLLM's `return_token_ids` (top-level prompt_token_ids, the choice's token_ids) and `logprobs`."""
    found = {"prompt_token_ids": body.get("prompt_token_ids"), "generation_token_ids": choice.get("token_ids"),
             "routed_experts": choice.get("routed_experts", body.get("routed_experts"))}
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if isinstance(content, list):
        found["generation_log_probs"] = [entry.get("logprob") for entry in content if isinstance(entry, dict)]
    kept = {key: value for key, value in found.items() if isinstance(value, list)}
    return kept or None


def item_tokens(output: list) -> dict | None:
    """Responses output items that carry TOKEN_KEYS (NeMo Gym's vLLM model server puts them there)."""
    for item in reversed(output):
        if isinstance(item, dict) and any(key in item for key in TOKEN_KEYS):
            return {key: item[key] for key in TOKEN_KEYS if isinstance(item.get(key), list)} or None
    return None


def split_reasoning(content: str | None, reasoning: str | None = None) -> tuple[str, str | None]:
    """Answer text without <think> blocks, and the reasoning (server-split or from the tags).

    An opened but never closed <think> (a reply cut mid-thought) leaves no answer at all.
    """
    content = content or ""
    parts = [reasoning] if reasoning else []
    parts += [m.strip() for m in _THINK.findall(content)]
    answer = _THINK.sub("", content)
    if "<think>" in answer:
        head, _, tail = answer.partition("<think>")
        parts.append(tail.strip())
        answer = head
    if "</think>" in answer:  # some servers drop the opening tag: everything before the close is reasoning
        head, _, answer = answer.rpartition("</think>")
        parts.append(head.strip())
    return answer.strip(), ("\n\n".join(p for p in parts if p) or None)


def _text_of(value: Any, where: str) -> str:
    """A string, or the text parts of a list of content parts (other part types carry no text)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for part in value:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict):
                text = part.get("text")
                if isinstance(text, dict):  # some servers nest {"text": {"value": ...}}
                    text = text.get("value")
                if isinstance(text, str) and part.get("type", "text") in ("text", "output_text", "summary_text",
                                                                             "reasoning_text"):
                    texts.append(text)
            else:
                raise ReplyShapeError(f"{where} has a part of type {type(part).__name__}")
        return "".join(texts)
    raise ReplyShapeError(f"{where} is a {type(value).__name__}, not text")


def _thinking_parts(content: Any) -> str:
    """Reasoning given as content parts of type "thinking" (Mistral's Magistral: {"type": "thinking",
    "thinking": [{"type": "text", "text": ...}]})."""
    if not isinstance(content, list):
        return ""
    return "\n".join(_text_of(part.get("thinking"), "choices[0].message.content[].thinking")
                     for part in content if isinstance(part, dict) and part.get("type") == "thinking")


def _usage(body: dict, prompt_key: str, completion_key: str) -> dict[str, int] | None:
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return None
    out = {}
    for name, key in (("prompt_tokens", prompt_key), ("completion_tokens", completion_key),
                      ("total_tokens", "total_tokens")):
        value = usage.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[name] = int(value)
    if "total_tokens" not in out and {"prompt_tokens", "completion_tokens"} <= out.keys():
        out["total_tokens"] = out["prompt_tokens"] + out["completion_tokens"]
    for details in ("prompt_tokens_details", "input_tokens_details"):  # cached prompt tokens, billed apart
        cached = (usage.get(details) or {}).get("cached_tokens") if isinstance(usage.get(details), dict) else None
        if isinstance(cached, int) and not isinstance(cached, bool) and cached > 0:
            out["cached_tokens"] = cached
    return out or None


def _finish(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ReplyShapeError(f"finish_reason is a {type(value).__name__}")
    return _FINISH_ALIASES.get(value, value)


def _fingerprint(body: dict) -> str | None:
    value = body.get("system_fingerprint")
    return value if isinstance(value, str) and value else None


def parse_chat(body: dict) -> Parsed:
    choice = _first_choice(body)
    message = choice.get("message")
    if message is None:
        message = choice.get("delta")  # a server answering a non-streamed call in the streaming shape
    if not isinstance(message, dict):
        raise ReplyShapeError(f"choices[0].message is a {type(message).__name__}, not an object")
    content = _text_of(message.get("content"), "choices[0].message.content")
    server_reasoning = message.get("reasoning_content") or message.get("reasoning")
    server_reasoning = _text_of(server_reasoning, "choices[0].message.reasoning") or _thinking_parts(
        message.get("content")) or None
    text, reasoning = split_reasoning(content, server_reasoning)
    finish = _finish(choice.get("finish_reason"))
    if not text and message.get("tool_calls") and finish is None:
        finish = "tool_calls"
    return Parsed(text, reasoning, finish, _usage(body, "prompt_tokens", "completion_tokens"), _fingerprint(body),
                  calls_from_chat_message(message), chat_tokens(body, choice))


def parse_completions(body: dict) -> Parsed:
    choice = _first_choice(body)
    text, reasoning = split_reasoning(_text_of(choice.get("text"), "choices[0].text"),
                                      _text_of(choice.get("reasoning_content") or choice.get("reasoning"),
                                               "choices[0].reasoning") or None)
    return Parsed(text, reasoning, _finish(choice.get("finish_reason")),
                  _usage(body, "prompt_tokens", "completion_tokens"), _fingerprint(body))


def parse_responses(body: dict, max_output_tokens: int | None) -> Parsed:
    output = body.get("output")
    if output is None or output == []:
        if body.get("status") == "failed" or body.get("error"):
            raise ReplyShapeError(f"response failed: {str(body.get('error'))[:200]}")
        raise EmptyReply("response has no output")
    if not isinstance(output, list):
        raise ReplyShapeError(f"output is a {type(output).__name__}, not a list")
    texts, thoughts = [], []
    for i, item in enumerate(output):
        if not isinstance(item, dict):
            raise ReplyShapeError(f"output[{i}] is a {type(item).__name__}, not an object")
        kind = item.get("type")
        if kind == "message":
            texts.append(_text_of(item.get("content"), f"output[{i}].content"))
        elif kind == "reasoning":
            thoughts.append(_text_of(item.get("summary"), f"output[{i}].summary")
                            or _text_of(item.get("content"), f"output[{i}].content"))
        # other items (function_call, web_search_call, ...) carry no answer text
    usage = _usage(body, "input_tokens", "output_tokens")
    finish = "stop"
    incomplete = body.get("incomplete_details")
    reason = incomplete.get("reason") if isinstance(incomplete, dict) else None
    if reason == "content_filter":
        finish = "content_filter"
    elif reason is not None or body.get("status") == "incomplete":
        finish = "length"
    elif max_output_tokens and usage and usage.get("completion_tokens", 0) >= max_output_tokens:
        finish = "length"  # servers that say "completed" although the cap cut the reply
    elif any(isinstance(item, dict) and item.get("type") == "function_call" for item in output) and not any(texts):
        finish = "tool_calls"
    text, reasoning = split_reasoning("".join(texts), "\n".join(t for t in thoughts if t) or None)
    return Parsed(text, reasoning, finish, usage, _fingerprint(body), calls_from_responses_output(output),
                  item_tokens(output))


def _first_choice(body: dict) -> dict:
    choices = body.get("choices")
    if choices is None or choices == []:
        raise EmptyReply("reply has no choices")
    if not isinstance(choices, list):
        raise ReplyShapeError(f"choices is a {type(choices).__name__}, not a list")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise ReplyShapeError(f"choices[0] is a {type(choice).__name__}, not an object")
    return choice
