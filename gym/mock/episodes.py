"""The reference server as the agent of episode benchmarks (model=mock on tau2_*).

A request is an episode turn when it offers tools and one of its user messages is the request of a
prepared episode row (`question`, which gym's mock user opens with). The server then plays gym's
reference agent (gym.episodes.agents): the task's gold actions as tool calls, one per turn, then a
closing message with every required string; or, for an episode drawn to go wrong (probability
1 - accuracy, fixed by the server seed, the task and the request seed, so every turn of one episode
draws alike), a refusal. Tool calls go out in the request's own shape: chat `tool_calls`, Responses
`function_call` items, or text in the prompt's format for completions.

Asked to play the simulated user (a request whose system prompt is a row's `user_system_prompt`, as
user=vllm|openai sends it), it answers as gym's mock user would: so the LLM-user path runs offline too.
Rows that share that prompt are told apart by the earlier messages the user is shown; where nothing tells
them apart (telecom's pairs of tasks that give one customer's scenario over different phone faults), the
first such row answers, so that path is a plumbing check there, and user=mock the way to a known pass^k.

Offered KB_search_dense (τ² banking's alltools form), the agent first searches with the customer's request
(chat and Responses), so an offline run asks the embeddings endpoint for queries too; the gold follows.
"""

from __future__ import annotations

import os
import re
from typing import Any, Sequence

from gym.episodes.agents import gold_turn, wrong_turn
from gym.episodes.base import Turn
from gym.episodes.export import items_to_trajectory
from gym.toolcalls import ToolCall

# banking_alltools: the reference agent searches the knowledge base by embeddings once, before the gold
SEARCH_FIRST = "KB_search_dense"


def is_episode_row(row: dict) -> bool:
    return isinstance(row.get("task"), dict) and isinstance(row.get("question"), str)


def _per_turn(row: dict) -> bool:
    """A row whose user turns are scripted and whose gold is given per turn (BFCL multi-turn)."""
    return isinstance(row.get("user_turns"), list) and isinstance(row["task"].get("gold_turns"), list)


def _turns_said(row: dict, messages: list[dict], prompt: str) -> list[str]:
    """The row's user turns said so far: the conversation's user texts, or (completions) those of the
    row's turns found in order in the prompt."""
    if messages:
        return [m["content"] for m in messages if m.get("role") == "user" and isinstance(m.get("content"), str)]
    said, at = [], 0
    for text in row["user_turns"]:
        found = prompt.find(text, at)
        if found < 0:
            break
        said.append(text)
        at = found + len(text)
    return said


def _still_held(row: dict, turn: int) -> set[str]:
    """Functions the row holds out after `turn` (miss_func): offered, they tell this row is not the one."""
    held = row["task"].get("missed_function") or {}
    return {name for at, names in held.items() if int(at) > turn for name in names}


def _turns_fit(row: dict, messages: list[dict], prompt: str, offered: set[str] | None) -> bool:
    if not _per_turn(row):
        return True
    said = _turns_said(row, messages, prompt)
    if not said or said != row["user_turns"][:len(said)]:
        return False
    return offered is None or not (_still_held(row, len(said) - 1) & offered)


def _history_texts(row: dict, seen_by_user: bool = False) -> set[str]:
    """The texts of the task's earlier messages (those the user simulator is shown, when `seen_by_user`)."""
    history = ((row["task"].get("initial_state") or {}).get("message_history")) or []
    if seen_by_user:
        history = [m for m in history if m.get("role") in ("user", "assistant") and not m.get("tool_calls")]
    return {m["content"].strip() for m in history if isinstance(m.get("content"), str) and m["content"].strip()}


class EpisodeIndex:
    """Episode rows by their opening request. Rows that open alike are told apart by the earlier messages
    the task supplies (its history): the row whose history the request holds, the longest one winning."""

    def __init__(self, rows: Sequence[dict]):
        self.rows: dict[str, list[dict]] = {}
        self.users: dict[str, list[dict]] = {}  # the user simulator's system prompt -> the rows that have it
        self.solo: dict[str, dict] = {}  # the solo-mode system prompt -> its row
        for row in rows:
            if is_episode_row(row):
                self.rows.setdefault(row["question"].strip(), []).append(row)
                if isinstance(row.get("user_system_prompt"), str):
                    self.users.setdefault(row["user_system_prompt"].strip(), []).append(row)
                if isinstance(row.get("solo_system_prompt"), str):
                    self.solo.setdefault(row["solo_system_prompt"].strip(), row)
        # what every solo prompt starts with (instruction and policy): one search rules a completions prompt out
        self.solo_opening = os.path.commonprefix(list(self.solo))

    def __bool__(self) -> bool:
        return bool(self.rows)

    def _pick(self, candidates: list[dict], said: set[str], messages: list[dict] = (), prompt: str = "",
              offered: set[str] | None = None) -> dict | None:
        """The row the conversation belongs to; per-turn rows that share an opening are told apart by their
        later turns and by the functions offered (a miss_func row holds some back; the first row wins a tie)."""
        fitting = [row for row in candidates
                   if _history_texts(row) <= said and _turns_fit(row, list(messages), prompt, offered)]

        def closeness(row: dict) -> tuple:  # gold calls all offered, the most history, turns said, held back
            names = {a.get("name") for a in ((row["task"].get("evaluation_criteria") or {}).get("actions") or [])}
            offers = offered is None or names <= offered  # ToolSandbox's variants differ in tool names only
            if not _per_turn(row):
                return offers, len(_history_texts(row)), 0, 0
            return offers, 0, len(_turns_said(row, list(messages), prompt)), len(_still_held(row, -1))

        return max(fitting, key=closeness, default=None)

    def find_user(self, messages: list[dict]) -> dict | None:
        """The row whose user the request asks for: by its system prompt, rows sharing one told apart
        by the history the conversation holds, as agent requests are."""
        # the first system message, or a later one (ToolSandbox's user reads few-shot examples first)
        prompts = [str(m.get("content") or "").strip() for m in messages if m.get("role") == "system"]
        candidates = next((self.users[p] for p in prompts if p in self.users), None)
        if not candidates:
            return None
        said = {m["content"].strip() for m in messages[1:] if isinstance(m.get("content"), str)}
        fitting = [row for row in candidates if _history_texts(row, seen_by_user=True) <= said]
        return max(fitting, key=lambda row: len(_history_texts(row, seen_by_user=True)), default=candidates[0])

    def find(self, messages: list[dict], prompt: str, offered: set[str] | None = None) -> dict | None:
        said = {m["content"].strip() for m in messages if isinstance(m.get("content"), str)}
        for message in reversed(messages):
            if message.get("role") == "user" and isinstance(message.get("content"), str):
                candidates = self.rows.get(message["content"].strip())
                if candidates:
                    picked = self._pick(candidates, said, messages, prompt, offered)
                    if picked is not None or not _per_turn(candidates[0]):
                        return picked
        for question, candidates in self.rows.items() if not messages else ():  # completions: one text
            if question in prompt:
                picked = self._pick(candidates, {text for row in candidates for text in _history_texts(row)
                                                 if text in prompt}, (), prompt, offered)
                if picked is not None or not _per_turn(candidates[0]):
                    return picked
        return None


def request_messages(kind: str, request: dict) -> list[dict]:
    """The conversation of a request as chat messages (completions: none, the prompt is text)."""
    if kind == "chat":
        return [m for m in request.get("messages") or [] if isinstance(m, dict)]
    if kind == "responses":
        items = request.get("input")
        if isinstance(items, str):
            return [{"role": "user", "content": items}]
        normal = []
        for item in items or []:
            if not isinstance(item, dict):
                continue
            if item.get("type", "message") == "message":
                content = item.get("content")
                parts = content if isinstance(content, list) else [{"type": "input_text", "text": str(content or "")}]
                item = {"type": "message", "role": item.get("role"), "content": parts}
            normal.append(item)
        return items_to_trajectory([], normal)
    return []


def text_calls_done(prompt: str, question: str) -> list[dict]:
    """Completions: the prompt is text; the calls answered since the user's request are counted from the
    tool-response blocks after its last occurrence (stand-in messages for gold_turn's count)."""
    tail = prompt[prompt.rfind(question) + len(question):] if question in prompt else ""
    return [{"role": "user", "content": question}] + [
        {"role": "assistant", "tool_calls": [{}]} for _ in range(tail.count("<tool_response>"))]


def turn_calls_done(prompt: str, row: dict) -> list[dict]:
    """Completions, per-turn rows: one stand-in user message per turn said, then the calls answered since
    the last one (counted from the tool-response blocks after it)."""
    said = _turns_said(row, [], prompt)
    tail = prompt[prompt.rfind(said[-1]) + len(said[-1]):] if said else ""
    return [{"role": "user", "content": text} for text in said] + [
        {"role": "assistant", "tool_calls": [{}]} for _ in range(tail.count("<tool_response>"))]


def episode_turn(index: EpisodeIndex, kind: str, request: dict, prompt: str, right: Any) -> Turn | None:
    """The reference agent's turn for an episode request; None when the request is not one.

    `right(question)` draws whether this episode goes the gold way."""
    messages = request_messages(kind, request)
    if messages and messages[0].get("role") == "system":  # asked to play the user: gym's mock user, over HTTP
        row = index.find_user(messages)
        if row is not None:
            from gym.episodes.users import MockUser

            return MockUser()(messages, [t.get("function", t) for t in request.get("tools") or []], row)
    if (not request.get("tools") and kind != "completions") or "expectedOutcomes:" in prompt:
        return None  # not an agent turn (a judge prompt quotes the conversation too)
    # the functions offered: the request's tools, or (completions) the names documented in the prompt
    offered = ({str((t.get("function") or t).get("name")) for t in request.get("tools") or []}
               if kind != "completions" else set(re.findall(r'"name": "([^"]+)"', prompt)))
    solo = _solo_row(index, messages, prompt)
    row = solo or index.find(messages, prompt, offered)
    if row is None:
        return None
    if kind == "completions" and _per_turn(row):
        messages = turn_calls_done(prompt, row)
    elif kind == "completions":  # stand-ins for the calls answered so far (solo: since the ticket)
        messages = text_calls_done(prompt, row["solo_system_prompt"].strip() if solo else row["question"])
    elif SEARCH_FIRST in offered and right(row["question"]):
        if not _search_ids(messages):  # the dense search once, as a real agent would, so embeddings are asked
            return Turn(tool_calls=[ToolCall(SEARCH_FIRST, {"query": row["question"][:300]}, None, "gold-search")],
                        finish_reason="tool_calls")
        messages = _without_search(messages)
    return (gold_turn if right(row["question"]) else wrong_turn)(row, messages, solo is not None)


def _search_ids(messages: list[dict]) -> set:
    return {call.get("id") for m in messages if m.get("role") == "assistant" for call in m.get("tool_calls") or []
            if (call.get("function") or {}).get("name") == SEARCH_FIRST}


def _without_search(messages: list[dict]) -> list[dict]:
    """The conversation without the search and its answer: what gold_turn counts its calls in."""
    ids = _search_ids(messages)
    return [m for m in messages if m.get("tool_call_id") not in ids
            and not (m.get("tool_calls") and {c.get("id") for c in m["tool_calls"]} <= ids)]


def _solo_row(index: EpisodeIndex, messages: list[dict], prompt: str) -> dict | None:
    """The row of a solo-mode request (its system prompt is the row's solo prompt)."""
    if messages:
        first = messages[0]
        return index.solo.get(str(first.get("content") or "").strip()) if first.get("role") == "system" else None
    if not index.solo or index.solo_opening not in prompt:
        return None
    return next((row for text, row in index.solo.items() if text in prompt), None)


def shape_turn(kind: str, turn: Turn, prompt_tokens: int, model: str, number: int) -> dict:
    """The OpenAI response body carrying the reference agent's turn (tool calls in the API's own shape;
    on completions, as <tool_call> text in gym's default prompt format)."""
    import time

    from gym.toolcalls import render_calls

    calls = turn.tool_calls
    text = turn.text
    if kind == "completions" and calls:
        text, calls = render_calls(calls, "hermes"), []
    tokens = len((text or "").split()) + sum(len(call.arguments_json().split()) + 1 for call in calls)
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": tokens, "total_tokens": prompt_tokens + tokens}
    finish = "tool_calls" if calls else "stop"
    created = int(time.time())
    if kind == "responses":
        output: list[dict] = []
        if text:
            output.append({"type": "message", "id": f"msg_{number:08x}", "status": "completed", "role": "assistant",
                           "content": [{"type": "output_text", "text": text, "annotations": []}]})
        output += [{**call.to_responses(i), "id": f"fc_{number:08x}_{i}", "status": "completed"}
                   for i, call in enumerate(calls)]
        return {"id": f"resp_{number:08x}", "object": "response", "created_at": created, "model": model,
                "status": "completed", "incomplete_details": None, "output": output,
                "usage": {"input_tokens": prompt_tokens, "output_tokens": tokens, "total_tokens": prompt_tokens + tokens}}
    if kind == "completions":
        return {"id": f"cmpl-{number:08x}", "object": "text_completion", "created": created, "model": model,
                "choices": [{"index": 0, "text": text or "", "logprobs": None, "finish_reason": "stop"}], "usage": usage}
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [call.to_chat(i) for i, call in enumerate(calls)]
    return {"id": f"chatcmpl-{number:08x}", "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}], "usage": usage}
