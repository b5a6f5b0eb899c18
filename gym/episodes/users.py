"""The simulated users (conf group `user=`), each a callable (view, tools, row, seed) -> Turn.

* `MockUser` (user=mock): gym's deterministic user. It opens with the task's request (`question`),
  performs the task's user-side gold actions one per turn, says yes to an agent's question (a few times
  at most), and otherwise ends with ###STOP###. With model=mock it makes every episode offline and
  predictable; with a real agent it is a plumbing check, not a realistic customer.
* `ScriptedUser` (user=scripted): says the row's own `user_turns` in order, then stops (BFCL).
* `ModelUser` (user=vllm|openai): an LLM behind an OpenAI-compatible endpoint, sent the upstream
  guidelines and scenario (`user_system_prompt`) and the dialogue with roles flipped.
"""

from __future__ import annotations

from typing import Any

from gym.episodes.base import Turn
from gym.toolcalls import ToolCall, chat_tools

STOP = "###STOP###"
MAX_CONFIRMATIONS = 3  # a mock user says yes this many times before it ends the dialogue


def _own_turns(view: list[dict]) -> list[dict]:
    return [m for m in view if m.get("role") == "assistant"]


def gold_actions(row: dict, requestor: str | None = None) -> list[dict]:
    """A τ² row's gold actions, all of them or those of one requestor ("assistant" or "user")."""
    actions = ((row.get("task") or {}).get("evaluation_criteria") or {}).get("actions") or []
    return actions if requestor is None else [a for a in actions if a.get("requestor", "assistant") == requestor]


class MockUser:
    model = "gym-mock-user"

    def __call__(self, view: list[dict], tools: list[dict], row: dict, seed: int | None = None) -> Turn:
        own = _own_turns(view)
        opening = str(row.get("question") or "I need help.")
        if not any(m.get("content") == opening for m in own):  # a task's history may hold earlier turns
            return Turn(text=opening)
        done_calls = sum(len(m.get("tool_calls") or []) for m in own)
        pending = gold_actions(row, "user")[done_calls:]
        if pending and tools:
            action = pending[0]
            return Turn(tool_calls=[ToolCall(action["name"], dict(action.get("arguments") or {}), None,
                                             f"user-gold-{done_calls}")])
        last = next((m.get("content") or "" for m in reversed(view) if m.get("role") == "user"), "")
        confirmations = sum(1 for m in own if (m.get("content") or "").startswith("Yes, please"))
        if last.rstrip().endswith("?") and confirmations < MAX_CONFIRMATIONS:
            return Turn(text="Yes, please go ahead.")
        return Turn(text=f"Thank you, that is all. {STOP}")


class ScriptedUser:
    model = "scripted"

    def __call__(self, view: list[dict], tools: list[dict], row: dict, seed: int | None = None) -> Turn:
        turns = row.get("user_turns") or []
        said = sum(1 for m in _own_turns(view) if m.get("content"))
        return Turn(text=str(turns[said])) if said < len(turns) else Turn(text=STOP)


class ModelUser:
    """An LLM user simulator; `client` is a gym ModelClient (started, checked and fingerprinted by
    gym.model.endpoints like the judge), asked with the user's tools when the domain gives it some."""

    def __init__(self, client: Any, seed_offset: int = 0):
        self.client = client
        self.model = client.model
        self.seed_offset = seed_offset

    def __call__(self, view: list[dict], tools: list[dict], row: dict, seed: int | None = None) -> Turn:
        kwargs: dict[str, Any] = {"seed": None if seed is None else seed + self.seed_offset}
        if tools:
            kwargs["tools"] = chat_tools(tools)
        completion = self.client.complete(view, **kwargs)
        return turn_of(completion)


def turn_of(completion: Any) -> Turn:
    """A client Completion as a Turn (visible text only: reasoning is kept apart, never relayed)."""
    return Turn(status=completion.status, text=completion.text, reasoning=completion.reasoning,
                tool_calls=list(getattr(completion, "tool_calls", None) or []), usage=completion.usage,
                finish_reason=completion.finish_reason, error=completion.error,
                cached=bool(getattr(completion, "from_cache", False)), tokens=getattr(completion, "tokens", None))


USERS = {"mock": MockUser, "scripted": ScriptedUser, "model": ModelUser}
