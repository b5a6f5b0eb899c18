"""One benchmark as a Gymnasium-shaped environment in a trainer's process.

    from gym.serve.trainers import Environment

    env = Environment("tau2_mock", user="mock", max_agent_steps=8)
    observation, info = env.reset(seed=300)                     # seed -> task (info["task_index"])
    observation, reward, terminated, truncated, info = env.step({"role": "assistant", "content": "..."})

`reset(*, seed=None, options=None)` is Gymnasium's: `options` may name the task (`{"task_index": 3}` or
`{"row": {...}}`); without one, the seed picks it (`seed % len(env)`), and without a seed the tasks come
in order. `info["tools"]` are in the OpenAI function shape (`{"type": "function", "function": {name,
description, parameters}}`) that chat templates, vLLM and verl take. `step` returns Gymnasium's five
values; an episode that used its last allowed agent step (`max_agent_steps`) ends on that step as
truncated, so no action is asked for that would never happen.
"""

from __future__ import annotations

from typing import Any, Sequence

from gym.serve.answers import read_answer
from gym.serve.catalog import RequestError, Served


def openai_tools(tools: Sequence[dict]) -> list[dict]:
    """Function schemas {name, description, parameters, x-...} as OpenAI's tools list."""
    shaped = []
    for tool in tools:
        if tool.get("type") == "function" and "function" in tool:
            shaped.append(tool)
            continue
        function = {"name": tool["name"], "description": tool.get("description") or "",
                    "parameters": tool.get("parameters") or {"type": "object", "properties": {}}}
        shaped.append({"type": "function", "function": function})
    return shaped


class Environment:
    """One benchmark as an environment with `reset` / `step` / `close` (Gymnasium's signatures and shapes).

    An episode benchmark runs collect's episode loop with the trainer as the agent: `step` takes the
    agent's reply (a chat message with `content` and/or `tool_calls`, Responses items, or text), runs its
    calls, lets the simulated user (`user`: mock, scripted, or None for solo mode) answer, and returns
    what the agent sees next; `user="auto"` is the benchmark's own default (bfcl_multi_turn: its scripted
    turns), else mock. A single-answer benchmark is a one-step episode. `limits`: episode.* knobs
    (max_steps, max_errors, max_agent_steps, max_steps_per_turn, timeout)."""

    def __init__(self, name: str, user: str | None = "auto", overrides: Sequence[str] = (), **limits: Any):
        from gym.episodes.base import Limits
        from gym.serve.in_process import benchmark

        self.served: Served = benchmark(name, overrides)
        self.user = _user(user, self.served)
        self.limits = Limits(**limits)
        self.session: Any = None
        self._next = 0  # the task of a reset with neither task nor seed

    def __len__(self) -> int:
        return len(self.served.rows)

    @property
    def num_tasks(self) -> int:
        return len(self.served.rows)

    def task_index(self, seed: int | None, options: dict | None) -> int | None:
        """The task a reset plays: options' task_index, else seed % tasks, else the next in order."""
        options = options or {}
        if "row" in options:
            return None
        if options.get("task_index") is not None:
            return int(options["task_index"])
        if seed is not None:
            return int(seed) % len(self)
        index, self._next = self._next, (self._next + 1) % len(self)
        return index

    def reset(self, *, seed: int | None = None, options: dict | None = None,
              task_index: int | None = None, row: dict | None = None) -> tuple[list, dict]:
        from gym.serve.steps import StepSession

        options = {**(options or {}), **({"task_index": task_index} if task_index is not None else {}),
                   **({"row": row} if row is not None else {})}
        index = self.task_index(seed, options)
        chosen = options["row"] if index is None else self.served.row(index)
        self.session = StepSession.start(self.served, chosen, seed, self.user, self.limits)
        opening = self.session.opening()
        info = {"tools": openai_tools(opening["tools"]), "task_index": index}
        return opening["observation"], info

    def step(self, action: Any) -> tuple[list, float | None, bool, bool, dict]:
        if self.session is None:
            raise RequestError("reset first", 409)
        result = self.session.step(read_answer(action))
        return result["observation"], result["reward"], result["terminated"], result["truncated"], result["info"]

    def close(self) -> None:
        self.session = None


def _user(kind: str | None, served: Served) -> Any:
    from gym.core.errors import GymError
    from gym.episodes.users import MockUser, ScriptedUser

    if served.kind != "episode" or kind is None:
        return None
    if kind == "auto":
        kind = served.default_user or "mock"
    if kind == "mock":
        return MockUser()
    if kind == "scripted":
        return ScriptedUser()
    raise GymError(f"user={kind!r}: the in-process environment takes user='auto', 'mock', 'scripted' or None "
                   "(solo mode)")
