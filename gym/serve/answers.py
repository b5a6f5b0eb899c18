"""What a request says: the task row it is about and the answer to grade, in every layout gym accepts.

Rows: NeMo Gym's layout (the row's own fields beside `responses_create_params` and `response`, as the
reference's verify request models define them: math `question`/`expected_answer`, MCQ `options`/
`expected_answer`, ...), gym's own (`task_index` into the prepared file, or the prepared row under `row`),
or for an episode benchmark the upstream `task_id`.

Answers (`response`, else `answer`): a Responses object (NeMo Gym's `response`: `output` items, function
calls included), a bare list of Responses output items, a chat completion (`choices`), a chat message
(`{"role": "assistant", "content": ..., "tool_calls": [...]}`) or plain text. Text is read the way
collect's client reads a reply (gym.model.replies: reasoning and `<think>` blocks set aside), so the
same reply gets the same reward here as in collect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gym.model.replies import EmptyReply, ReplyShapeError, parse_chat, parse_responses, split_reasoning
from gym.serve.catalog import RequestError, Served
from gym.toolcalls import ToolCall

# Fields of the contract itself (NeMo Gym's BaseVerifyRequest / BaseVerifyResponse, gym's extras), never
# part of a task row.
CONTRACT_FIELDS = frozenset({"responses_create_params", "response", "reward", "answer", "row", "task_index",
                             "task_id", "session_id", "termination", "seed", "_ng_task_index",
                             "_ng_rollout_index", "agent_ref", "policy", "gym", "mask_sample",
                             "reward_components", "verification_skipped",
                             "skip_verification"})


@dataclass
class Answer:
    text: str
    tool_calls: list[ToolCall] | None  # None: the answer carried no structured calls
    output: list[dict] | None = None  # Responses output items, when the answer came as such
    finish_reason: str | None = None  # "length": the reply was cut at the length limit (strict mode scores 0)


def object_body(body: Any) -> dict:
    if not isinstance(body, dict):
        raise RequestError(f"the request body must be a JSON object, got {type(body).__name__}", 422)
    return body


def task_row(served: Served, body: dict) -> dict:
    """The prepared row a request is about: `task_index`, else `row`, else `task_id`, else the body's own
    fields (NeMo Gym's layout: the row's fields sit beside the contract's)."""
    if "task_index" in body:
        return served.row(body["task_index"])
    if "row" in body:
        if not isinstance(body["row"], dict):
            raise RequestError("row must be a JSON object (a prepared task row)", 422)
        return body["row"]
    if "task_id" in body and served.kind == "episode":
        return served.row_by_id(body["task_id"])
    own = {key: value for key, value in body.items() if key not in CONTRACT_FIELDS}
    if served.kind == "episode" or not own:
        need = "task_index or task_id" if served.kind == "episode" else "task_index, row, or the row's own fields"
        raise RequestError(f"missing field: say which {served.name} task this is ({need})", 422)
    return own


def answer_of(body: dict) -> Answer:
    value = body.get("response", body.get("answer"))
    if value is None:
        raise RequestError("missing field: response (a Responses object, output items, a chat message or text)", 422)
    return read_answer(value)


def read_answer(value: Any) -> Answer:
    try:
        if isinstance(value, str):
            return Answer(split_reasoning(value)[0], None)
        if isinstance(value, list):
            value = {"output": value}
        if not isinstance(value, dict):
            raise RequestError(f"response must be an object, a list of output items or text, "
                               f"got {type(value).__name__}", 422)
        if "output" in value:
            output = value.get("output") or []
            if output == []:
                return Answer("", [], [])
            parsed = parse_responses(value, None)
            return Answer(parsed.text, parsed.tool_calls, output, parsed.finish_reason)
        if "choices" in value:
            parsed = parse_chat(value)
            return Answer(parsed.text, parsed.tool_calls, None, parsed.finish_reason)
        if "content" in value or "tool_calls" in value:
            parsed = parse_chat({"choices": [{"message": value}]})
            return Answer(parsed.text, parsed.tool_calls)
    except (ReplyShapeError, EmptyReply) as exc:
        raise RequestError(f"response: {exc}", 422) from None
    raise RequestError("response: not a Responses object (output), chat completion (choices), chat message "
                       "(content/tool_calls) or text", 422)
