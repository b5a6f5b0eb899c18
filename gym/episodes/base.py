"""What every episode environment shares: the protocol, tool outputs, termination reasons and limits.

An environment turns a prepared row into a world the agent acts on: `reset(row, seed)` builds a fresh
state (databases deep-copied from one parsed copy), `tools(state)` lists the function schemas the agent
may call, `call(state, name, arguments, requestor)` runs one tool, `score(row, trajectory, termination)`
grades a finished episode from its trajectory alone (pure: it replays the trajectory on a fresh state),
so task=reverify scores a stored episode the same way collect did.

Solo mode (user=none, τ²'s `--solo-mode`): no user; the agent gets the task's ticket in its system prompt,
the user's tools beside its own and a `done` tool, and may only call tools. An environment that offers it
sets `supports_solo` and takes `solo=True` in `reset` and `initial_messages`; a row it cannot run solo
raises gym.core.errors.TaskNotSent there (collect then leaves the task out, saying why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, Mapping

from gym.toolcalls import ToolCall


class Termination(str, Enum):
    """Why an episode ended: τ²-bench's set (gym.episodes.loop sets them as upstream's orchestrator)."""

    USER_STOP = "user_stop"
    AGENT_STOP = "agent_stop"
    MAX_STEPS = "max_steps"
    TIMEOUT = "timeout"
    TOO_MANY_ERRORS = "too_many_errors"
    AGENT_ERROR = "agent_error"
    USER_ERROR = "user_error"
    INFRASTRUCTURE_ERROR = "infrastructure_error"
    CONTEXT_WINDOW_EXCEEDED = "context_window_exceeded"


TERMINATIONS: tuple[str, ...] = tuple(t.value for t in Termination)
# Only a conversation that ended by itself is graded; any other ending scores 0 (τ²'s evaluate_simulation).
GRADED_ENDINGS = (Termination.USER_STOP.value, Termination.AGENT_STOP.value)


@dataclass
class ToolOutput:
    """One tool call's result as the caller sees it: the text fed back and whether it was an error."""

    content: str
    error: bool = False


@dataclass(frozen=True)
class Limits:
    """Episode limits (conf: episode.*). Steps count every message, as τ² counts them."""

    max_steps: int = 200
    max_errors: int = 10
    max_agent_steps: int | None = None  # agent messages (tool-call turns included); None = no limit
    timeout: float | None = None  # seconds for the whole episode; None = no limit
    # agent replies with calls between two user messages; None = the environment's own (BFCL: 20, else none)
    max_steps_per_turn: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_errors", "max_agent_steps", "max_steps_per_turn"):
            value = getattr(self, name)
            if value is not None and int(value) < 1:
                raise ValueError(f"episode.{name}={value} must be at least 1")
        if self.timeout is not None and float(self.timeout) <= 0:
            raise ValueError(f"episode.timeout={self.timeout} must be a positive number of seconds (or null)")


class ToolEndpointFailed(Exception):
    """A tool's own endpoint (banking's embeddings for KB_search_dense) failed in transport: the episode is
    unfinished (infra_error, redone on resume), never an error the agent is shown."""


class EpisodeFailed(Exception):
    """An episode that cannot be graded, with its own kind (a container task's build_error, agent_timeout,
    verifier_error ...), the rollout status it becomes (unscored: infra_error or verifier_error, redone on
    resume) and details for the row; never a reward of 0."""

    def __init__(self, kind: str, message: str, status: str = "verifier_error", details: dict | None = None):
        super().__init__(f"{kind}: {message}")
        self.kind, self.status, self.details = kind, status, details or {}


class JudgeFailed(Exception):
    """An environment's LLM judge gave no verdict: `transport` when its endpoint failed (the episode is
    unfinished, like any infrastructure failure), else its reply could not be read."""

    def __init__(self, message: str, transport: bool):
        super().__init__(message)
        self.transport = transport


@dataclass
class Score:
    """A finished episode's grade: the reward and the family's details (checks, breakdown)."""

    reward: float
    details: dict = field(default_factory=dict)


DONE_TOOL = "done"  # solo mode's stop tool (τ²'s LLMSoloAgent): calling it ends the episode
DONE_SCHEMA = {"name": DONE_TOOL, "description": "Call this function when you are done with the task.",
               "parameters": {"type": "object", "properties": {}, "required": []}}


class Environment:
    """The base of every environment gym.episodes.loop drives; one subclass per benchmark family. Its class
    attributes are the capabilities an environment declares, with their defaults."""

    name: str
    supports_solo: bool = False  # whether user=none (solo mode) can run on it
    errors_end_episode: bool = True  # episode.max_errors tool errors end the episode
    # what else makes its episodes other experiments, put in every rollout key (a container task's agent)
    identity: Mapping[str, Any] = MappingProxyType({})

    def reset(self, row: dict, seed: int | None = None) -> Any:
        """A fresh state for the row (the row's initial data and actions applied)."""
        raise NotImplementedError

    def tools(self, state: Any, requestor: str = "assistant") -> list[dict]:
        """Function schemas {name, description, parameters} offered to the agent (or to the user)."""
        raise NotImplementedError

    def call(self, state: Any, name: str, arguments: Any, requestor: str = "assistant") -> ToolOutput:
        """Run one tool call; a tool that raises gives an error output, never an exception."""
        raise NotImplementedError

    # Optional: `user_spoke(state)`, told after each user message that is not a tool call (an environment
    # whose tools change per user turn, BFCL's); `max_steps_per_turn`, its own per-turn limit;
    # `user_view(trajectory, row)`, what its user simulator is shown; `conversation_over(state)`, asked
    # after the user's tool calls (true: the episode ends as user_stop); `call_batch(state, jobs, requestor)`,
    # one message's calls run together, answered as [(call, ToolOutput)] in the order they go back;
    # `over_cap(state, trajectory)`, its own length cap (true: the episode ends as max_steps).

    def initial_messages(self, row: dict) -> list[dict]:
        """The trajectory an episode starts from: system prompt, any upstream history, the first message."""
        raise NotImplementedError

    def score(self, row: dict, trajectory: list[dict], termination: str, final: Any = None) -> Score:
        """Grade a finished episode from its trajectory and, when live, the state it left (else the
        trajectory is replayed on a fresh state); pure, raises on a scorer failure."""
        raise NotImplementedError


@dataclass
class Turn:
    """One reply of the agent or of the user: visible text, tool calls, and how the call went.

    `status` keeps the client's meaning: ok, model_error (the endpoint refused this request for good,
    e.g. the context is too long), infra_error (transport, timeouts: the episode is redone on resume)."""

    status: str = "ok"
    text: str | None = None
    reasoning: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: dict | None = None
    finish_reason: str | None = None
    error: str | None = None
    cached: bool = False
    tokens: dict | None = None  # token ids / log-probs of this model call (gym.core.prompts.TOKEN_KEYS)
