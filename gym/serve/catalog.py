"""The benchmarks a server (or a trainer's process) holds: prepared rows, the verifier, the environment.

`Served` is one benchmark, loaded once: its prepared rows (the same file collect reads), the verifier
collect would build from `benchmark.verifier` (with its judge, when it needs one), and for an episode
benchmark the environment behind that verifier. `verdict` grades one answer with the very function
collect's rows come from (gym.rollouts.row.verify_answer), so a reward served here is collect's reward.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from gym.core.config import to_plain
from gym.core.errors import GymError
from gym.core.io import iter_jsonl
from gym.core.prompts import build_messages
from gym.rollouts.row import verify_answer
from gym.verifiers import Verifier, strict_rewards


class RequestError(GymError):
    """A request gym cannot answer as asked: the server answers 4xx with this one line."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class Served:
    name: str
    kind: str  # answer | episode
    family: str
    data_path: Path
    rows: list[dict]
    verifier: Verifier
    system: str | None = None
    user: str = "{question}"
    max_tokens: int | None = None  # the benchmark's default output cap (/run sends it as collect does)
    default_user: str | None = None  # episodes: the user when none is chosen (bfcl_multi_turn: scripted)
    _by_id: dict | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def env(self) -> Any:
        return self.verifier.env if self.kind == "episode" else None

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
        if self.kind == "episode":
            return self.env.initial_messages(row)
        return build_messages(self.system, self.user, row, f"{self.name} row")

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
            return [t["name"] for t in env.tools(env.reset(self.rows[0], 0))]
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


def load(cfg: DictConfig, bench: DictConfig, stack: ExitStack) -> Served:
    """One benchmark, from its composed config: rows, verifier (closed with the stack), judge if needed."""
    from gym.data import local
    from gym.verifiers import make_verifier

    path = local.task_file(bench) if local.is_local(bench) else Path(bench.dataset.path)
    if not path.is_file():
        raise GymError(f"{bench.name} is not prepared ({path} is missing): "
                       f"run python -m gym task=prepare benchmark={bench.name}")
    verifier = make_verifier(str(bench.verifier.family), to_plain(bench.verifier.options))
    verifier.strict = strict_rewards(cfg)
    stack.callback(verifier.close)
    if verifier.needs_judge:
        _attach_judge(cfg, bench, verifier, path, stack)
    if bench.get("embeddings") is not None:
        _attach_embeddings(cfg, bench, verifier, stack)
    rows = [row for _, row in iter_jsonl(path)]
    if not rows:
        raise GymError(f"{path} has no tasks")
    served = Served(name=str(bench.name), kind=str(bench.get("kind") or "answer"), family=str(bench.verifier.family),
                    data_path=path, rows=rows, verifier=verifier, system=bench.prompt.system,
                    user=local.user_prompt(bench), max_tokens=bench.get("max_tokens"),
                    default_user=bench.get("default_user"))
    if served.kind == "episode":
        served.env  # noqa: B018 - build the environment now: a broken domain fails at start, not per request
    return served


def _attach_judge(cfg: DictConfig, bench: DictConfig, verifier: Verifier, path: Path, stack: ExitStack) -> None:
    from gym.model.endpoints import connect_judge

    step = _step_config(cfg, bench, "reverify")  # no policy endpoint here: judge=mock gets a reference server of its own
    if str((step.get("judge") or {}).get("kind") or "none") == "none":
        raise GymError(f"{bench.name} is graded by an LLM judge: add judge=vllm judge.base_url=http://host:8000/v1 "
                       "(or judge=openai, or judge=mock for a dry run)")
    connect_judge(step, stack, verifier, "", path, 16, None)


def _attach_embeddings(cfg: DictConfig, bench: DictConfig, verifier: Verifier, stack: ExitStack) -> None:
    """banking_alltools: KB_search_dense's endpoint (benchmark.embeddings; kind=mock starts gym's reference
    server for it, there being no policy server here)."""
    from gym.model.embeddings import connect_embeddings

    connect_embeddings(_step_config(cfg, bench, "serve"), stack, verifier, "")


def _step_config(cfg: DictConfig, bench: DictConfig, model_kind: str) -> DictConfig:
    """The server's config as one benchmark's endpoint helpers read it: that benchmark, and a model kind
    that tells them no policy endpoint runs here."""
    step = OmegaConf.create(OmegaConf.to_container(cfg, resolve=False))
    OmegaConf.set_struct(step, False)
    step.benchmark = bench
    step.model.kind = model_kind
    return step


def benchmark_names(cfg: DictConfig) -> list[str]:
    """`benchmarks=[a,b]` (or `benchmark=a`): the benchmarks to serve, each once."""
    names = to_plain(cfg.get("benchmarks"))
    if names in (None, [], ""):
        chosen = cfg.get("benchmark")
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


def load_all(cfg: DictConfig, stack: ExitStack) -> dict[str, Served]:
    from gym.core.config import compose_benchmark

    served = {}
    for name in benchmark_names(cfg):
        chosen = cfg.get("benchmark")
        bench = chosen if chosen is not None and chosen.name == name else compose_benchmark(cfg, name)
        served[name] = load(cfg, bench, stack)
    return served
