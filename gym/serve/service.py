"""What the server does, without HTTP: `Service.handle(benchmark, action, body, session)`.

gym.serve.app turns requests into calls of `handle` and its results into JSON; keeping the work here
means the in-process API, the tests and the perf script exercise the same code as a trainer over HTTP.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gym.core.errors import did_you_mean
from gym.episodes.base import Limits
from gym.episodes.export import items_to_trajectory, trajectory_items
from gym.serve.aggregate import aggregate_metrics
from gym.serve.answers import answer_of, object_body, read_answer, task_row
from gym.serve.catalog import RequestError, Served
from gym.serve.sessions import Sessions
from gym.serve.steps import StepSession, seed_tool_session

ACTIONS = ("verify", "seed_session", "aggregate_metrics", "reset", "step", "close", "run")
UNFINISHED = ("verifier_error", "infra_error")  # the verifier (or its judge) could not decide


@dataclass
class ToolReply:
    """A tool's output as the body of its response: the text gym's own episodes record for it."""

    content: str
    error: bool


@dataclass
class Service:
    served: dict[str, Served]
    sessions: Sessions
    limits: Limits = field(default_factory=Limits)
    users: dict[str, Any] = field(default_factory=dict)  # episode benchmark -> its simulated user (None: solo)
    on_verifier_error: float | None = 0.0  # the reward a verify the verifier could not decide gets
    agent: Any = None  # gym.serve.agent.Agent: plays /run
    counts: Counter = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def health(self) -> dict[str, Any]:
        with self._lock:
            counts = dict(self.counts)
        return {"status": "ok", "benchmarks": list(self.served), "sessions": self.sessions.summary(), "counts": counts}

    def benchmarks(self) -> list[dict[str, Any]]:
        return [served.summary() for served in self.served.values()]

    def benchmark(self, name: str | None) -> Served:
        if name is None:
            if len(self.served) == 1:
                return next(iter(self.served.values()))
            raise RequestError(f"several benchmarks are served ({', '.join(self.served)}): "
                               "POST to /<benchmark>/<route>", 404)
        if name not in self.served:
            raise RequestError(f"unknown benchmark {name!r}{did_you_mean(name, self.served)}; "
                               f"served: {', '.join(self.served)}", 404)
        return self.served[name]

    def inline(self, benchmark: str | None, action: str) -> bool:
        served = self.served.get(benchmark) if benchmark is not None else (
            next(iter(self.served.values())) if len(self.served) == 1 else None)
        # a family whose verify is microseconds of text work (`Verifier.inline`) runs on the event loop; the
        # others (math workers, code sandboxes, judges, episodes) block, and run on the server's threads
        return action == "verify" and served is not None and served.verifier.inline

    def handle(self, benchmark: str | None, action: str, body: Any, session: str | None,
               cancelled: threading.Event | None = None) -> tuple[Any, str | None]:
        """(result, a session id to set as the cookie or None); `cancelled` set: the client of a /run left."""
        if benchmark is None and action in self.served and len(self.served) > 1:
            raise RequestError(f"POST /{action}/<route>: name a route after the benchmark "
                               f"({', '.join(ACTIONS)} or a tool)", 404)
        served = self.benchmark(benchmark)
        body = object_body(body)
        if action == "verify":
            return self.verify(served, body, session), None
        if action == "seed_session":
            if served.kind != "episode":  # NeMo Gym's SimpleResourcesServer: an empty 200 on every server
                return {}, None
            return self.seed_session(served, body)
        if action == "aggregate_metrics":
            return aggregate_metrics(body), None
        if action == "reset":
            return self.reset(served, body)
        if action == "step":
            return self.step(served, body, session), None
        if action == "close":
            return self.sessions.close_by_client(body.get("session_id") or session), None
        if action == "run":
            if self.agent is None:
                raise RequestError("this server plays no rollouts", 404)
            return self.agent.run(served, body, cancelled), None
        return self.tool(served, action, body, session), None

    def count(self, name: str) -> None:
        with self._lock:
            self.counts[name] += 1

    # -- NeMo Gym's resources-server contract --------------------------------------------------------

    def verify(self, served: Served, body: dict, session: str | None) -> dict[str, Any]:
        if served.kind == "episode":
            verdict, row = self._verify_episode(served, body, session)
        else:
            row = task_row(served, body)
            answer = answer_of(body)
            calls = answer.tool_calls if served.offers_tools(row) else None
            verdict = served.verdict(row, answer.text, calls, answer.finish_reason)
        self.count("verify")
        reward = verdict["reward"]
        if verdict["status"] in UNFINISHED:
            self.count(verdict["status"])
            reward = self.on_verifier_error
        out = {**body, "reward": reward, **contract_fields(verdict), "status": verdict["status"],
               "extracted_answer": verdict["extracted_answer"], "scores": verdict["scores"],
               "details": verdict["verifier"], "error": verdict["error"]}
        if "expected_answer" not in out and row.get("expected_answer") is not None:
            out["expected_answer"] = row["expected_answer"]
        return out

    def _verify_episode(self, served: Served, body: dict, session: str | None) -> tuple[dict, dict]:
        sid = body.get("session_id") or session
        state = None
        if sid:
            tools = self.sessions.close(sid)
            if getattr(tools, "benchmark", None) != served.name or not hasattr(tools, "state"):
                raise RequestError(f"session {str(sid)[:6]}... is not a /seed_session of {served.name}", 404)
            row, state = tools.row, tools.state
        else:
            row = task_row(served, body)
        trajectory = with_opening(trajectory_of(body), served.env.initial_messages(row))
        termination = str(body.get("termination") or "agent_stop")
        return served.episode_verdict(row, trajectory, termination, state), row

    def seed_session(self, served: Served, body: dict) -> tuple[dict, str]:
        row = task_row(served, body)
        session = seed_tool_session(served, row, _seed(body))
        sid = self.sessions.open(session)
        opening = served.env.initial_messages(row)
        inputs, output = trajectory_items(opening)
        return {"session_id": sid, "benchmark": served.name, "tools": served.env.tools(session.state, "assistant"),
                "messages": opening, "input": inputs + output}, sid

    def tool(self, served: Served, name: str, body: dict, session: str | None) -> ToolReply:
        if served.kind != "episode":
            raise RequestError(f"unknown route /{name} for {served.name} (a single-answer benchmark: "
                               f"routes {', '.join(ACTIONS)})", 404)
        sid = session or body.get("session_id")
        arguments = {k: v for k, v in body.items() if k != "session_id"}  # the session is never a tool argument
        tools = self.sessions.get(sid, served.name)
        if not hasattr(tools, "call"):
            raise RequestError("tools run in a /seed_session session; a /reset session takes /step", 409)
        with _busy(tools):
            output = tools.call(served, name, arguments)
        self.count("tool_calls")
        return ToolReply(output["output"], output["error"])

    # -- the step interface -----------------------------------------------------------------------------

    def reset(self, served: Served, body: dict) -> tuple[dict, str]:
        row = task_row(served, body)
        user = self.users.get(served.name)
        if served.kind == "episode" and user is None and not served.env.supports_solo:
            raise RequestError(f"{served.name} needs a simulated user for /reset: start the server with user=mock "
                               "(or user=vllm user.base_url=...)", 422)
        session = StepSession.start(served, row, _seed(body), user, self.limits)
        opening = session.opening()
        sid = self.sessions.open(session)
        # NeMo Gym's gymnasium_agent then POSTs /close after every episode, finished or failed
        info = {**opening.pop("info"), "supports_explicit_close": True}
        return {"session_id": sid, **opening, "info": info}, sid

    def step(self, served: Served, body: dict, session: str | None) -> dict:
        sid = body.get("session_id") or session
        steps = self.sessions.get(sid, served.name)
        if not hasattr(steps, "step"):
            raise RequestError("a /seed_session session takes tool calls and /verify, not /step", 409)
        value = body.get("response", body.get("answer", body.get("message", body.get("action"))))
        if value is None:
            raise RequestError("missing field: message (the agent's reply: content and/or tool_calls)", 422)
        with _busy(steps):
            result = steps.step(read_answer(value))
        self.count("steps")
        if steps.done:
            self.sessions.close(sid)
        return {"session_id": sid, **result}


def contract_fields(verdict: dict) -> dict[str, Any]:
    """NeMo Gym's newer verify-response fields: `mask_sample` (true: no real verdict, keep the sample out of
    the trainer's batch and baseline) and `reward_components` (the verifier's per-criterion rewards)."""
    fields: dict[str, Any] = {"mask_sample": verdict["status"] in UNFINISHED}
    if verdict.get("scores"):
        fields["reward_components"] = dict(verdict["scores"])
    return fields


class _busy:
    """One request at a time per session: a second one at once is refused, not interleaved."""

    def __init__(self, session: Any):
        self.lock = session.__dict__.setdefault("_gym_lock", threading.Lock())

    def __enter__(self) -> None:
        if not self.lock.acquire(blocking=False):
            raise RequestError("this session is already handling a request", 409)

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def _seed(body: dict) -> int | None:
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RequestError(f"seed must be an integer, got {seed!r}", 422)
    return seed


def trajectory_of(body: dict) -> list[dict]:
    """An episode's chat trajectory from a verify request: the input messages, then the response's items."""
    params = body.get("responses_create_params") or {}
    inputs = params.get("input") if isinstance(params, dict) else None
    inputs = [{"role": "user", "content": inputs}] if isinstance(inputs, str) else inputs or []
    response = body.get("response")
    output = response.get("output") if isinstance(response, dict) else response
    if not isinstance(inputs, list) or not isinstance(output or [], list):
        raise RequestError("responses_create_params.input and response.output must be lists of items", 422)
    leading = []
    items = [_as_item(item) for item in inputs + list(output or [])]
    while items and items[0].get("type") == "message" and items[0].get("role") in ("system", "developer"):
        first = items.pop(0)
        leading.append({"role": "system", "content": "".join(p.get("text") or "" for p in first["content"])})
    return items_to_trajectory(leading, items)


def _as_item(item: Any) -> dict:
    if not isinstance(item, dict):
        raise RequestError(f"an input or output item is a {type(item).__name__}, not an object", 422)
    if item.get("type") in (None, "message") and "role" in item:
        content = item.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        return {"type": "message", "role": item["role"], "content": [p for p in parts if isinstance(p, dict)]}
    return item


def with_opening(trajectory: list[dict], opening: list[dict]) -> list[dict]:
    """The trajectory with the task's opening (any upstream history, the first message) in front, when the
    client sent only what came after it: the scorer replays that history, as it does for collect's rows."""
    def said(messages: list[dict]) -> list[tuple]:
        return [(m.get("role"), m.get("content") or None) for m in messages if m.get("role") != "system"]

    head = said(opening)
    if said(trajectory)[:len(head)] == head:
        return trajectory
    system = [m for m in trajectory if m.get("role") == "system"] or [m for m in opening if m.get("role") == "system"]
    spoken = [m for m in trajectory if m.get("role") != "system"]
    return system + [m for m in opening if m.get("role") != "system"] + spoken
