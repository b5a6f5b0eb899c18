"""Episodes driven from outside: the trainer is the agent, gym plays the rest.

Two ways in, one state per session (gym.serve.sessions holds them):

* `ToolSession` (NeMo Gym's resources-server contract): `/seed_session` resets the environment for a row,
  each `/<tool>` runs one call on that state, `/verify` scores the trajectory the trainer sends with the
  state those calls left (the environment's own scorer, as collect's episode verifier does).
* `StepSession` (`/reset` + `/step`, Gymnasium-style): the episode loop collect runs
  (gym.episodes.loop.EpisodeRunner), with the trainer's reply standing in for the policy's: each step
  takes the agent's message and/or tool calls, runs the calls, lets the simulated user answer, and
  returns what the agent sees next, `reward` once the episode ends, `terminated` / `truncated`, `info`.
  A single-answer benchmark is a one-step episode: the reply is graded and the episode ends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from gym.episodes.base import Limits, Turn
from gym.episodes.loop import EpisodeRunner
from gym.episodes.messages import agent_view
from gym.serve.answers import Answer
from gym.serve.catalog import RequestError, Served

TRUNCATIONS = ("max_steps", "timeout")  # ended by a limit, not by itself (Gymnasium's `truncated`)


@dataclass
class ToolSession:
    benchmark: str
    row: dict
    state: Any
    calls: int = 0
    errors: int = 0

    def call(self, served: Served, name: str, arguments: Any) -> dict[str, Any]:
        env = served.env
        known = {tool["name"] for tool in env.tools(self.state, "assistant")}
        if name not in known:
            raise RequestError(f"unknown tool {name!r} for {served.name}; tools: {', '.join(sorted(known))}", 404)
        output = env.call(self.state, name, arguments, "assistant")
        self.calls += 1
        self.errors += int(output.error)
        return {"output": output.content, "error": output.error}


def seed_tool_session(served: Served, row: dict, seed: int | None) -> ToolSession:
    if served.kind != "episode":
        raise RequestError(f"{served.name} is a single-answer benchmark: it has no tools or sessions; "
                           "POST the answer to /verify", 422)
    return ToolSession(served.name, row, served.env.reset(row, seed))


def turn_of_answer(answer: Answer) -> Turn:
    calls = answer.tool_calls or []
    return Turn(text=answer.text or None, tool_calls=list(calls), finish_reason="tool_calls" if calls else "stop")


@dataclass
class StepSession:
    benchmark: str
    served: Served = field(repr=False)
    row: dict = field(repr=False)
    seed: int | None = None
    runner: Any = field(default=None, repr=False)
    episode: Any = field(default=None, repr=False)
    who: str = "agent"
    seen: int = 0  # messages of the agent's view already sent back
    started: float = 0.0
    pending: Turn | None = None
    done: bool = False
    result: dict | None = None
    released: bool = False  # the episode's world given back (release)

    @classmethod
    def start(cls, served: Served, row: dict, seed: int | None, user: Any, limits: Limits) -> "StepSession":
        session = cls(served.name, served, row, seed, started=time.monotonic())
        if served.kind == "episode":
            session.runner = EpisodeRunner(served.env, session._agent, user, limits)
            session.episode, session.who = session.runner.start(row, seed)
            session._others()
        return session

    def _agent(self, messages: list[dict], tools: list[dict]) -> Turn:
        turn, self.pending = self.pending, None
        self.seen = len(messages) + 1  # the trainer knows what it saw and what it said
        return turn or Turn(status="infra_error", error="no reply to step with")

    def _others(self) -> None:
        """The user's turns and tool results, until the agent is to speak or the episode ends."""
        episode = self.episode
        while not episode.termination and episode.status == "ok" and (self.who != "agent" or self._spent()):
            self.who = self.runner.advance(self.row, episode, self.who, self.seed, self.started)

    def _spent(self) -> bool:
        """The agent has used its last allowed step: the episode ends now (truncated), not after the trainer
        was asked for an action that would be thrown away."""
        limit = self.runner.limits.max_agent_steps
        return limit is not None and self.episode.agent_turns >= limit

    def opening(self) -> dict[str, Any]:
        if self.served.kind != "episode":
            messages, tools, _ = self.served.answer_tools(self.row)
            return {"observation": messages, "tools": tools or [], **self._flags()}
        view = agent_view(self.episode.trajectory)
        self.seen = len(view)
        tools = self.served.env.tools(self.episode.state, "assistant") if not self.episode.termination else []
        return {"observation": view, "tools": tools, **self._flags()}

    def step(self, answer: Answer) -> dict[str, Any]:
        if self.done:
            raise RequestError("the episode has ended: reset to start another", 409)
        if self.served.kind != "episode":
            verdict = self.served.verdict(self.row, answer.text, answer.tool_calls, answer.finish_reason)
            self.done, self.result = True, verdict
            return {"observation": [], **self._flags(), "reward": verdict["reward"], "terminated": True,
                    "truncated": False, "info": {"termination": "answered", **_verdict_info(verdict)}}
        self.pending = turn_of_answer(answer)
        episode = self.episode
        self.who = self.runner.advance(self.row, episode, self.who, self.seed, self.started)
        self._others()
        view = agent_view(episode.trajectory)
        observation, self.seen = view[self.seen:], len(view)
        return {"observation": observation, **self._finish()}

    def release(self) -> None:
        """Give back what the episode's world holds (a container task's container): once graded, or when the
        session is closed or expires unfinished."""
        release = getattr(self.served.env, "release", None) if self.served.kind == "episode" else None
        state = self.episode.state if self.episode else None
        if release is not None and state is not None and not self.released:
            self.released = True
            release(state)

    def _flags(self) -> dict[str, Any]:
        return {"reward": None, "terminated": False, "truncated": False, "info": {}}

    def _finish(self) -> dict[str, Any]:
        episode = self.episode
        info: dict[str, Any] = {"termination": episode.termination or None, "steps": episode.steps,
                                "agent_turns": episode.agent_turns, "user_turns": episode.user_turns,
                                "tool_calls": episode.tool_calls, "tool_errors": episode.tool_errors}
        if not episode.termination and episode.status == "ok":
            return {"reward": None, "terminated": False, "truncated": False, "info": info}
        self.done = True
        try:
            if episode.status == "ok":
                self.result = self.served.episode_verdict(self.row, episode.trajectory, episode.termination,
                                                          episode.state)
            else:
                self.result = {"status": episode.status, "reward": None, "error": episode.error}
        finally:
            self.release()
        info.update(_verdict_info(self.result))
        truncated = episode.termination in TRUNCATIONS
        return {"reward": self.result["reward"], "terminated": not truncated, "truncated": truncated, "info": info}


def _verdict_info(verdict: dict) -> dict[str, Any]:
    return {"status": verdict.get("status"), "error": verdict.get("error"),
            "extracted_answer": verdict.get("extracted_answer"), "scores": verdict.get("scores")}
