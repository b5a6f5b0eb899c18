"""Agents: the policy model over a client, and gym's gold-replaying reference agent.

`ClientAgent` sends the agent's view of the trajectory with the tool schemas (`tools=`; the client turns
them into each API's shape or into prompt text) and reads text and tool calls back. `gold_turn` is the
reference agent's decision for a τ²-style row: the task's gold actions as tool calls, one per turn, then
a closing message that says every required string (in solo mode, a call to `done`; for a row whose gold
is given per user turn, BFCL multi-turn's `task.gold_turns`: the calls of the turn the conversation is
in, all in one reply, then a short answer that ends the turn); `wrong_turn` is what it says in an episode drawn to go
wrong. The reference server (model=mock) answers episode requests with these, so a run with model=mock
and user=mock has a known pass^1.
"""

from __future__ import annotations

from typing import Any

from gym.episodes.base import DONE_TOOL, Turn
from gym.episodes.users import gold_actions, turn_of
from gym.toolcalls import ToolCall

GOLD_ID = "gold-"  # call ids of the reference agent's calls
CLOSING = "All done."
REFUSAL = "I am sorry, I cannot help with that."


class ClientAgent:
    """The policy over its client; `tool_choice="required"` in solo mode, as upstream's solo agent asks."""

    def __init__(self, client: Any, seed: int | None = None, tool_choice: Any = None):
        self.client = client
        self.seed = seed
        self.tool_choice = tool_choice

    def __call__(self, messages: list[dict], tools: list[dict]) -> Turn:
        if self.tool_choice is not None and tools:
            return turn_of(self.client.complete(messages, seed=self.seed, tools=tools, tool_choice=self.tool_choice))
        return turn_of(self.client.complete(messages, seed=self.seed, tools=tools or None))


def closing_text(row: dict) -> str:
    """The gold agent's last message: every required string, and every NL assertion's text (gym's mock
    judge counts an assertion as met when an agent message states it)."""
    criteria = (row.get("task") or {}).get("evaluation_criteria") or {}
    if criteria.get("closing_message"):  # a row's own gold closing (ToolSandbox: its milestones' sentences)
        return str(criteria["closing_message"])
    return " ".join([CLOSING, *(criteria.get("communicate_info") or []), *(criteria.get("nl_assertions") or [])])


def gold_turn(row: dict, messages: list[dict], solo: bool = False) -> Turn:
    """The next gold step (stateless): the calls made since the user last spoke are the gold done so far
    (ids do not survive text tool-call formats, so they are counted, not read); at the end, the closing
    message, or in solo mode the `done` call."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    done = sum(len(m.get("tool_calls") or []) for m in messages[last_user + 1:] if m.get("role") == "assistant")
    per_turn = (row.get("task") or {}).get("gold_turns")
    if per_turn is not None:
        turn = sum(1 for m in messages if m.get("role") == "user") - 1
        actions = per_turn[turn] if 0 <= turn < len(per_turn) else []
        if done == 0 and actions:  # the turn's gold calls in one reply, as upstream's gold is one step
            return Turn(tool_calls=[ToolCall(a["name"], dict(a["arguments"]), None, f"{GOLD_ID}{n}")
                                    for n, a in enumerate(actions)], finish_reason="tool_calls")
        return Turn(text=CLOSING, finish_reason="stop")
    actions = gold_actions(row, None if solo else "assistant")  # alone, it holds the user's tools too
    if done < len(actions):
        action = actions[done]
        return Turn(tool_calls=[ToolCall(action["name"], dict(action.get("arguments") or {}), None,
                                         f"{GOLD_ID}{done}")], finish_reason="tool_calls")
    if solo:
        return Turn(tool_calls=[ToolCall(DONE_TOOL, {}, None, f"{GOLD_ID}done")], finish_reason="tool_calls")
    return Turn(text=closing_text(row), finish_reason="stop")


def wrong_turn(row: dict, messages: list[dict], solo: bool = False) -> Turn:
    return Turn(text=REFUSAL, finish_reason="stop")


class GoldAgent:
    """In-process reference agent (tests, perf): gold when `right(row, seed)` says so, else a refusal."""

    def __init__(self, row: dict, right: bool = True, solo: bool = False):
        self.row, self.right, self.solo = row, right, solo

    def __call__(self, messages: list[dict], tools: list[dict]) -> Turn:
        return (gold_turn if self.right else wrong_turn)(self.row, messages, self.solo)
