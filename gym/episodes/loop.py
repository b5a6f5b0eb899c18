"""One episode: the agent, the user and the environment take turns until a stop, as τ²'s orchestrator.

Every message is a step: an agent reply, a user reply, and the results of one message's tool calls
(all calls of a turn run in order; a failing call gives the model an error output and counts toward
`max_errors`). Limits are checked after each step that does not wait on tool results; an episode that
reaches max_steps or too many errors ends there (scored 0 by the environment), as does one whose agent
replies with calls more than max_steps_per_turn times since the user last spoke (the environment's own
limit when the knob is null: BFCL's force quit). An environment with `user_spoke(state)` is told of each
user message (BFCL multi-turn offers different functions per turn). An agent or user endpoint
that fails in transport ends the episode as `infrastructure_error` with status infra_error (redone on
resume); one that refuses the request for good ends it as `context_window_exceeded` (agent, when the
endpoint says so) or `agent_error` / `user_error`, status ok and scored 0.

Solo mode (no user): the agent may only call tools. Its `done` call ends the episode as agent_stop (the
message becomes the stop token with no calls, as upstream's solo agent rewrites it); a reply without tool
calls ends it as agent_error, even one that says a stop token (upstream's solo agent takes calls only).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

from gym.episodes.base import DONE_TOOL, Environment, Limits, Termination, ToolEndpointFailed, Turn
from gym.episodes.messages import STOP_TOKENS, TRANSFER_TOKEN, agent_view, is_stop, message, tool_message, user_view
from gym.toolcalls import ToolCall

Agent = Callable[[list[dict], list[dict]], Turn]  # (messages, tool schemas) -> the agent's reply


@dataclass
class Episode:
    trajectory: list[dict]
    termination: str = ""
    status: str = "ok"  # ok | infra_error
    error: str | None = None
    steps: int = 0
    agent_turns: int = 0
    turn_steps: int = 0  # agent replies with calls since the user last spoke
    user_turns: int = 0
    tool_calls: int = 0
    user_tool_calls: int = 0
    tool_errors: int = 0
    unknown_tools: int = 0
    transfers: int = 0
    agent_usage: dict = field(default_factory=dict)
    user_usage: dict = field(default_factory=dict)
    cached_turns: int = 0
    finish_reasons: dict = field(default_factory=dict)
    finish_reason: str | None = None  # the agent's last turn's
    pending: dict = field(default_factory=dict, repr=False)  # call id -> parsed arguments, until the call runs
    state: Any = field(default=None, repr=False)  # the world as the episode left it (not stored in the row)

    def summary(self, user_model: str | None) -> dict[str, Any]:
        """The row's `episode` field."""
        return {"termination": self.termination, "steps": self.steps, "agent_turns": self.agent_turns,
                "user_turns": self.user_turns, "tool_calls": self.tool_calls,
                "user_tool_calls": self.user_tool_calls, "tool_errors": self.tool_errors,
                "unknown_tools": self.unknown_tools, "transfers": self.transfers, "user_model": user_model,
                "agent_usage": self.agent_usage or None, "user_usage": self.user_usage or None,
                "finish_reasons": self.finish_reasons, "cached_turns": self.cached_turns}


def _add_usage(total: dict, usage: dict | None) -> None:
    for name, value in (usage or {}).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            total[name] = total.get(name, 0) + value


def _next_role(trajectory: list[dict]) -> str:
    """Who speaks after the last message (an upstream history may end anywhere)."""
    last = trajectory[-1]
    role = last.get("role")
    if role == "assistant":
        return "agent_tools" if last.get("tool_calls") else "user"
    if role == "user":
        return "user_tools" if last.get("tool_calls") else "agent"
    if role == "tool":
        for m in reversed(trajectory):
            if m.get("role") in ("assistant", "user") and m.get("tool_calls"):
                return "agent" if m["role"] == "assistant" else "user"
    return "agent"


class EpisodeRunner:
    """Runs episodes of one environment with one agent and one user simulator (None: solo mode)."""

    def __init__(self, env: Environment, agent: Agent, user: Any, limits: Limits):
        self.env, self.agent, self.user, self.limits = env, agent, user, limits
        self.solo = user is None
        self.max_steps_per_turn = limits.max_steps_per_turn or getattr(env, "max_steps_per_turn", None)
        self.live_state: Any = None  # the world of the episode being run (released by the caller if it is cut short)

    def run(self, row: dict, seed: int | None = None) -> Episode:
        episode, who = self.start(row, seed)
        started = time.monotonic()
        while not episode.termination:
            who = self.advance(row, episode, who, seed, started)
            if episode.status != "ok":
                break
        return episode

    def start(self, row: dict, seed: int | None = None) -> tuple[Episode, str]:
        """A fresh episode of the row and who speaks first (`run` drives it; a trainer's step loop too)."""
        if self.solo:
            state = self.live_state = self.env.reset(row, seed, solo=True)
            episode = Episode(self.env.initial_messages(row, solo=True), state=state)
        else:
            state = self.live_state = self.env.reset(row, seed)
            episode = Episode(self.env.initial_messages(row), state=state)
        who = _next_role(episode.trajectory)
        if who == "agent_tools" or who == "user_tools":
            who = "agent" if who == "agent_tools" else "user"  # a history's calls were answered by replay
        return episode, who

    def advance(self, row: dict, episode: Episode, who: str, seed: int | None, started: float) -> str:
        """One step (a reply, or one message's tool calls), then the limits; who speaks next."""
        who = self._step(row, episode.state, episode, who, seed)
        if episode.status == "ok" and who not in ("agent_tools", "user_tools"):
            self._check_limits(episode, started)
        return who

    def _step(self, row: dict, state: Any, episode: Episode, who: str, seed: int | None) -> str:
        episode.steps += 1
        if who == "agent":
            return self._agent_turn(state, episode)
        if who == "user":
            return self._user_turn(row, state, episode, seed)
        requestor = "assistant" if who == "agent_tools" else "user"
        calls = episode.trajectory[-1].get("tool_calls") or []
        calling: list[str] = []  # the call being run (named in an endpoint failure)
        try:
            for call, output in self._run_calls(state, episode, calls, requestor, calling):
                function = call["function"]
                episode.trajectory.append(tool_message(call["id"], output.content))
                episode.tool_errors += int(output.error)
                known = {s["name"] for s in self.env.tools(state, requestor)}
                episode.unknown_tools += int(function["name"] not in known)
                episode.transfers += int(function["name"] == "transfer_to_human_agents")
        except ToolEndpointFailed as exc:
            episode.error = f"tool {calling[-1] if calling else '?'}: {exc}"
            episode.status, episode.termination = "infra_error", Termination.INFRASTRUCTURE_ERROR.value
            return "agent"
        if requestor == "user" and getattr(self.env, "conversation_over", None) and self.env.conversation_over(state):
            episode.termination = Termination.USER_STOP.value  # the user's own stop tool (ToolSandbox's)
        return "agent" if requestor == "assistant" else "user"

    def _run_calls(self, state: Any, episode: Episode, calls: list[dict], requestor: str,
                   calling: list[str]) -> Iterator[tuple[dict, Any]]:
        """(call, output) per call of one message, in the order the answers go back: one by one, or all at
        once where the environment runs a message's calls together (`call_batch`: ToolSandbox tries them
        in every order and may answer in the order that failed)."""
        jobs = [(call, episode.pending.pop(call["id"], None)) for call in calls]
        if len(jobs) > 1 and hasattr(self.env, "call_batch"):
            calling.append(", ".join(call["function"]["name"] for call, _ in jobs))
            yield from self.env.call_batch(state, jobs, requestor)
            return
        for call, arguments in jobs:  # one at a time: an endpoint that fails stops the rest (infra_error)
            calling.append(call["function"]["name"])
            yield call, self.env.call(state, call["function"]["name"], arguments, requestor)

    @staticmethod
    def _record_calls(episode: Episode, turn: Turn, prefix: str, count: int) -> list[ToolCall]:
        """Ids for calls that came without one (text formats); parsed arguments kept for the environment."""
        calls = []
        for number, call in enumerate(turn.tool_calls):
            call = replace(call, id=call.id or f"{prefix}{count + number}")
            calls.append(call)
            episode.pending[call.id] = call.arguments
        return calls

    def _agent_turn(self, state: Any, episode: Episode) -> str:
        limit = self.limits.max_agent_steps
        if limit is not None and episode.agent_turns >= limit:
            episode.steps -= 1
            episode.termination = Termination.MAX_STEPS.value
            return "user"
        view = getattr(self.env, "agent_view", agent_view)  # an environment may send less (SciCode: one step)
        turn = self.agent(view(episode.trajectory), self.env.tools(state, "assistant"))
        episode.agent_turns += 1
        episode.cached_turns += int(turn.cached)
        _add_usage(episode.agent_usage, turn.usage)
        episode.finish_reason = turn.finish_reason
        if turn.finish_reason:
            episode.finish_reasons[turn.finish_reason] = episode.finish_reasons.get(turn.finish_reason, 0) + 1
        if turn.status != "ok":
            return self._failed(episode, turn, "agent")
        done = self.solo and any(call.name == DONE_TOOL for call in turn.tool_calls)
        if done:
            turn = replace(turn, text=STOP_TOKENS[0], tool_calls=[])  # upstream drops the turn's other calls
        calls = self._record_calls(episode, turn, "call_", episode.tool_calls)
        episode.tool_calls += len(calls)
        episode.turn_steps += int(bool(calls))
        episode.trajectory.append(message("assistant", turn.text, calls, turn.reasoning, turn.tokens))
        if calls:
            return "agent_tools"
        if done or (not self.solo and is_stop(turn.text)):
            episode.termination = Termination.AGENT_STOP.value
        elif self.solo:  # upstream's solo agent takes tool calls only (a stop token in text included)
            episode.termination = Termination.AGENT_ERROR.value
            episode.error = "agent: a reply without tool calls in solo mode"
        return "user"

    def _user_turn(self, row: dict, state: Any, episode: Episode, seed: int | None) -> str:
        if hasattr(self.env, "next_user_turn"):  # the environment writes the user's turns (SciCode's steps)
            turn = self.env.next_user_turn(state, episode.trajectory, row)
        else:
            if hasattr(self.env, "user_view"):  # an environment may show its user more (ToolSandbox's few-shot)
                view = self.env.user_view(episode.trajectory, row)
            else:
                view = user_view(episode.trajectory, row.get("user_system_prompt") or "")
            turn = self.user(view, self.env.tools(state, "user"), row, seed)
        episode.user_turns += 1
        _add_usage(episode.user_usage, turn.usage)
        if turn.status != "ok":
            return self._failed(episode, turn, "user")
        calls = self._record_calls(episode, turn, "user_call_", episode.user_tool_calls)
        episode.user_tool_calls += len(calls)
        episode.trajectory.append(message("user", turn.text, calls))
        if calls:
            return "user_tools"
        if is_stop(turn.text):
            episode.termination = Termination.USER_STOP.value
            episode.transfers += int(TRANSFER_TOKEN in (turn.text or ""))
        episode.turn_steps = 0
        if hasattr(self.env, "user_spoke"):
            self.env.user_spoke(state)
        return "agent"

    @staticmethod
    def _failed(episode: Episode, turn: Turn, who: str) -> str:
        episode.error = f"{who}: {turn.error or turn.status}"
        if turn.status == "infra_error":
            episode.status = "infra_error"
            episode.termination = Termination.INFRASTRUCTURE_ERROR.value
        elif who == "agent" and "context" in (turn.error or "").lower():
            episode.termination = Termination.CONTEXT_WINDOW_EXCEEDED.value
        else:
            episode.termination = (Termination.AGENT_ERROR if who == "agent" else Termination.USER_ERROR).value
        return who

    def _check_limits(self, episode: Episode, started: float) -> None:
        if episode.steps >= self.limits.max_steps or (
                self.max_steps_per_turn is not None and episode.turn_steps > self.max_steps_per_turn):
            episode.termination = Termination.MAX_STEPS.value
        if episode.tool_errors >= self.limits.max_errors and self.env.errors_end_episode:
            episode.termination = Termination.TOO_MANY_ERRORS.value
        over = getattr(self.env, "over_cap", None)  # an environment's own length cap (ToolSandbox's max_messages)
        if not episode.termination and over is not None and over(episode.state, episode.trajectory):
            episode.termination = Termination.MAX_STEPS.value
        if (self.limits.timeout is not None and not episode.termination
                and time.monotonic() - started >= self.limits.timeout):
            episode.termination = Termination.TIMEOUT.value
        expired = getattr(self.env, "timed_out", None)  # an environment's own clock (a container task's agent timeout)
        if not episode.termination and expired is not None and expired(episode.state):
            episode.termination = Termination.TIMEOUT.value
