"""A τ² episode's world: the agent's and the user's databases, set up and replayed as upstream does.

`fresh_state` deep-copies the domain's parsed databases, merges a task's `initialization_data` and runs
its `initialization_actions`; `run_tool` is one tool call with upstream's error convention (a tool that
raises answers "Error: <message>"); `replay` re-runs the state-changing calls of a trajectory, comparing
each output with the recorded one (a difference means the tools are not deterministic: the scorer fails
rather than guess). A domain with a `sync` (telecom) has its two sides made to agree where upstream's
environment does it: when the state is built, after each named function (set-up action or check), after
each tool call that succeeds and at the end of a replay; never after the evaluator's gold actions
(`run_tool(..., sync=False)`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator

from gym.episodes.base import ToolEndpointFailed, ToolOutput
from gym.episodes.tau2.domain import Domain
from gym.episodes.tau2.cow import episode_db, table_hash
from gym.episodes.tau2.records import merge, render


@dataclass
class Tau2State:
    domain: Domain
    db: dict
    user_db: dict | None
    schemas: dict[str, list] = field(default_factory=dict)  # requestor -> the tool schemas offered
    solo: bool = False  # solo mode: the agent's calls of user tools run on the user's side, as upstream

    def database(self, requestor: str) -> dict | None:
        if requestor == "user" and not self.domain.shared_db:
            return self.user_db
        return self.db

    def side(self, name: str, requestor: str) -> str:
        """Who a call runs as: in solo mode an agent's call of a user tool runs on the user's side."""
        user = self.domain.user
        if self.solo and requestor == "assistant" and user is not None and name in user.tools:
            return "user"
        return requestor

    def hashes(self) -> tuple[str | None, str | None]:
        agent = table_hash(self.db)
        return agent, agent if self.domain.shared_db else table_hash(self.user_db)


class ReplayMismatch(Exception):
    """A replayed state-changing call answered differently from the recorded trajectory."""


def fresh_state(domain: Domain, db: dict, user_db: dict | None, task: dict) -> Tau2State:
    state = Tau2State(domain, episode_db(db, shared=True), episode_db(user_db, shared=True))
    sync(state)
    initial = task.get("initial_state") or {}
    data = initial.get("initialization_data") or {}
    if data.get("agent_data") is not None:
        state.db = episode_db(domain.agent.normalize(merge(state.db, data["agent_data"]), "initialization_data.agent_data"),
                              shared=False)
        if state.user_db is not None:
            # Upstream points the user toolkit at the agent's database after this update (environment.py
            # set_state); both hashes then cover the agent's database. Kept so hashes agree with upstream.
            state.user_db = state.db
    if data.get("user_data") is not None and domain.user is not None:
        state.user_db = episode_db(domain.user.normalize(merge(state.user_db or {}, data["user_data"]),
                                                         "initialization_data.user_data"), shared=False)
        state.db = state.user_db
    for action in initial.get("initialization_actions") or []:
        run_function(state, action.get("env_type", "assistant"), action["func_name"], action.get("arguments") or {})
    return state


def sync(state: Tau2State) -> None:
    if state.domain.sync is not None and state.user_db is not None:
        state.domain.sync(state.db, state.user_db)


def run_function(state: Tau2State, env_type: str, name: str, arguments: dict) -> Any:
    """A named tool or helper on the agent's or the user's side, called directly, then the sides synced
    (exceptions propagate)."""
    toolkit = state.domain.toolkit(env_type)
    fn = toolkit.function(name) if toolkit is not None else None
    if fn is None:
        raise ValueError(f"Function {name} not found in {env_type} tools")
    value = fn(state.database(env_type), **arguments)
    sync(state)
    return value


def run_tool(state: Tau2State, name: str, arguments: Any, requestor: str = "assistant",
             synced: bool = True) -> ToolOutput:
    if state.solo and requestor == "user":  # upstream's solo environment refuses them
        return ToolOutput("Error: User tool calls are not allowed in solo mode", error=True)
    requestor = state.side(name, requestor)
    toolkit = state.domain.toolkit(requestor)
    if toolkit is None or name not in toolkit.tools:
        return ToolOutput(f"Error: Tool '{name}' not found.", error=True)
    if not isinstance(arguments, dict):
        return ToolOutput(f"Error: the arguments of {name} are not a JSON object", error=True)
    try:
        value = toolkit.tools[name].fn(state.database(requestor), **arguments)
        if synced:
            sync(state)  # a sync that fails turns the call's answer into an error, as upstream's
        return ToolOutput(render(value))
    except ToolEndpointFailed:
        raise  # the run's infrastructure, not the tool: the episode ends unfinished
    except Exception as exc:  # a tool's own failure is the model's information, never a crash
        return ToolOutput(render(f"Error: {exc}"), error=True)


def is_mutating(state: Tau2State, name: str, requestor: str) -> bool | None:
    """Whether a tool changes its database; None for a name no toolkit has (a hallucinated tool)."""
    for side in (requestor, "user" if requestor == "assistant" else "assistant"):
        toolkit = state.domain.toolkit(side)
        if toolkit is not None and name in toolkit.tools:
            return toolkit.tools[name].mutates
    return None


def tool_exchanges(trajectory: list[dict]) -> Iterator[tuple[str, str, Any, str, str | None]]:
    """(requestor, name, arguments, recorded output, call id) for each tool call answered in the trajectory."""
    answers = {m.get("tool_call_id"): m.get("content") for m in trajectory if m.get("role") == "tool"}
    for message in trajectory:
        if message.get("role") not in ("assistant", "user") or not message.get("tool_calls"):
            continue
        requestor = "assistant" if message["role"] == "assistant" else "user"
        for call in message["tool_calls"]:
            function = call.get("function") or {}
            yield requestor, function.get("name", ""), parse_arguments(function.get("arguments")), \
                answers.get(call.get("id")), call.get("id")


def parse_arguments(raw: Any) -> Any:
    """A call's arguments as recorded (a JSON string in chat messages); None when they do not parse."""
    if isinstance(raw, dict):
        return raw
    try:
        return json.loads(raw) if isinstance(raw, str) and raw.strip() else ({} if not raw else None)
    except ValueError:
        return None


def _loaded(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def replay(state: Tau2State, trajectory: list[dict], strict: bool = True) -> int:
    """Re-run the trajectory's state-changing calls on `state`; returns how many ran."""
    ran = 0
    for requestor, name, arguments, recorded, call_id in tool_exchanges(trajectory):
        if not is_mutating(state, name, requestor) or not isinstance(arguments, dict):
            continue  # reads, unknown names and unparsable arguments changed nothing live
        output = run_tool(state, name, arguments, requestor)
        ran += 1
        if strict and recorded is not None and _loaded(output.content) != _loaded(recorded):
            raise ReplayMismatch(f"replayed {name} (call {call_id}) answered {output.content[:200]!r}, "
                                 f"recorded {str(recorded)[:200]!r}")
    sync(state)
    return ran
