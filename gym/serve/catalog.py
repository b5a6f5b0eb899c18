"""The benchmarks a server (or a trainer's process) holds: prepared rows, the verifier, the environment.

`Served` is one benchmark (gym.rollouts.benchmark.Benchmark, the one collect loads) held in memory: its
prepared rows, the messages collect sends for a row (images with their detail included), the verifier
collect builds (with its judge and embeddings endpoint, when it needs them), and for an episode benchmark
the environment behind that verifier. `verdict` grades one answer with the very function collect's rows
come from (gym.rollouts.row.verify_answer), so a reward served here is collect's reward.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from typing import Any

from gym.core.errors import GymError
from gym.core.schema import BenchmarkConfig
from gym.core.typed import RunConfig
from gym.rollouts.benchmark import Benchmark
from gym.rollouts.row import verify_answer
from gym.verifiers import Verifier, strict_rewards


class RequestError(GymError):
    """A request gym cannot answer as asked: the server answers 4xx with this one line."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class Served:
    benchmark: Benchmark
    rows: list[dict]
    _by_id: dict | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:  # plain attributes: read on every request
        config = self.benchmark.config
        self.name, self.kind, self.family = self.benchmark.name, self.benchmark.kind, str(config.verifier.family)
        self.data_path = self.benchmark.data
        verifier = self.benchmark.verifier
        if verifier is None:
            raise GymError(f"{self.name}: a served benchmark is loaded with its verifier (Benchmark.load(..., stack))")
        self.verifier: Verifier = verifier
        self.max_tokens = config.max_tokens  # the benchmark's default output cap (/run sends it as collect does)
        self.default_user = config.default_user  # episodes: the user when none is chosen (bfcl_multi_turn: scripted)

    @property
    def env(self) -> Any:
        return self.benchmark.environment

    def row(self, index: Any) -> dict:
        if isinstance(index, bool) or not isinstance(index, int):
            raise RequestError(f"task_index must be an integer, got {index!r}")
        if not 0 <= index < len(self.rows):
            raise RequestError(f"task_index {index} is out of range: {self.name} has {len(self.rows)} tasks", 404)
        return self.rows[index]

    def row_by_id(self, task_id: Any) -> dict:
        """An episode row by its upstream task id (τ²'s `task_id`, BFCL's `id`)."""
        with self._lock:
            if self._by_id is None:
                self._by_id = {str(r.get("task_id", r.get("id"))): i for i, r in enumerate(self.rows)}
        index = self._by_id.get(str(task_id))
        if index is None:
            raise RequestError(f"{self.name} has no task with task_id {task_id!r}", 404)
        return self.rows[index]

    def messages(self, row: dict) -> list[dict]:
        """The messages collect sends for the row (an episode's opening messages)."""
        return self.benchmark.messages(row)

    def answer_tools(self, row: dict, api: str = "chat",
                     given: list[dict] | None = None) -> tuple[list[dict], list | None, Any]:
        """(messages, tools, tool_choice) collect sends for an answer benchmark's row (tools None: none
        offered natively; prompt mode documents them in the messages). `given`: the prompt a request
        carries (NeMo Gym's `responses_create_params.input`), used in place of the rendered template."""
        messages = given or self.messages(row)
        messages, tools, choice = self.verifier.request(row, messages, api)
        return messages, tools or None, choice if tools else None

    def offers_tools(self, row: dict) -> bool:
        """Whether collect's request for the row carries tools natively (then the reply's calls are graded)."""
        return self.verifier.tools_per_task and self.answer_tools(row)[1] is not None

    def tool_names(self) -> list[str]:
        """An episode environment's tools (the same for every task of a τ² domain; BFCL's first task's)."""
        if self.kind == "episode" and self.rows:
            env = self.env
            # a container benchmark's reset builds an image and starts a container: not for a listing
            state = None if getattr(env, "runtime", None) is not None else env.reset(self.rows[0], 0)
            return [t["name"] for t in env.tools(state)]
        return []

    def verdict(self, row: dict, text: str, tool_calls: list | None = None,
                finish_reason: str | None = None) -> dict[str, Any]:
        """collect's verdict fields for one answer (status, reward, scores, extracted_answer, verifier, error)."""
        return verify_answer(self.verifier, row, text, tool_calls if self.verifier.uses_tool_calls else None,
                             finish_reason)

    def episode_verdict(self, row: dict, trajectory: list[dict], termination: str, state: Any = None) -> dict:
        return verify_answer(self.verifier, row, {"trajectory": trajectory, "termination": termination,
                                                  "state": state})

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "verifier": self.family, "tools": self.tool_names(),
                "tools_per_task": self.verifier.tools_per_task, "rows": len(self.rows)}


def load(run: RunConfig, config: BenchmarkConfig, stack: ExitStack) -> Served:
    """One benchmark, from its typed config: rows, verifier (closed with the stack), judge and embeddings
    endpoint if it needs them (no policy endpoint runs here: judge=mock gets a reference server of its own)."""
    bench = Benchmark.load(config, stack, strict_rewards(run.knobs))
    if bench.verifier.needs_judge and str(run.judge.kind or "none") == "none":
        raise GymError(f"{config.name} is graded by an LLM judge: add judge=vllm judge.base_url=http://host:8000/v1 "
                       "(or judge=openai, or judge=mock for a dry run)")
    judged = run if bench.verifier.needs_judge else replace(run, judges=())  # judges=: the judged ones
    bench.attach_endpoints(judged, stack, "", 16)
    served = Served(bench, bench.all_rows())
    if served.kind == "episode":
        served.env  # noqa: B018 - build the environment now: a broken domain fails at start, not per request
    return served


def benchmark_names(run: RunConfig) -> list[str]:
    """`benchmarks=[a,b]` (or `benchmark=a`): the benchmarks to serve, each once."""
    names = run.knob("benchmarks")
    if names in (None, [], ""):
        chosen = run.benchmark
        names = [str(chosen.name)] if chosen is not None else []
    names = [names] if isinstance(names, str) else [str(name) for name in names]
    if "all" in names:
        raise GymError("benchmarks=all: name the benchmarks to serve, e.g. benchmarks=[gsm8k,tau2_retail]")
    if not names:
        raise GymError("say what to serve: benchmarks=[gsm8k,tau2_retail] (or benchmark=gsm8k)")
    seen: list[str] = []
    for name in names:
        if name in seen:
            raise GymError(f"benchmarks= names {name} twice")
        seen.append(name)
    return seen


def load_all(run: RunConfig, stack: ExitStack) -> dict[str, Served]:
    return {name: load(run, run.benchmark_named(name), stack) for name in benchmark_names(run)}
