"""gym's rewards in a trainer's own process: TRL, verl, and a reset/step environment.

    from gym.serve.trainers import reward_function, compute_score, Environment

    GRPOTrainer(..., reward_funcs=[reward_function("gsm8k")])           # TRL
    # verl: custom_reward_function.path=<gym>/serve/trainers.py, custom_reward_function.name=compute_score
    env = Environment("tau2_mock", user="mock")                          # an episode, step by step
    observation, info = env.reset(task_index=0, seed=300)
    observation, reward, terminated, truncated, info = env.step({"role": "assistant", "content": "..."})

Each benchmark is loaded once per process (its prepared rows, the verifier collect builds from the
benchmark's config, the environment), from the data root gym uses everywhere ($GYM_DATA_DIR, ...); the
benchmark must be prepared (`python -m gym task=prepare benchmark=<name>`). Rewards come from the very
function collect's rows come from (gym.rollouts.row.verify_answer, through gym.serve.catalog), so a
completion gets here the reward collect gives it. A completion the verifier cannot decide
(verifier_error) gets `on_verifier_error` (default 0.0, or None: TRL then skips the sample).
"""

from __future__ import annotations

import atexit
import os
import threading
from contextlib import ExitStack
from typing import Any, Callable, Sequence

from gym.serve.answers import read_answer
from gym.serve.catalog import Served

_loaded: dict[tuple, Served] = {}
_lock = threading.Lock()
_stack = ExitStack()
atexit.register(_stack.close)
UNFINISHED = ("verifier_error", "infra_error")
# Keyword arguments TRL passes beside the dataset's columns.
TRL_EXTRAS = frozenset({"prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric"})


def benchmark(name: str, overrides: Sequence[str] = ()) -> Served:
    """The benchmark `name` composed as the command line would (`overrides`: e.g. ["judge=mock"])."""
    key = (name, tuple(overrides), os.environ.get("GYM_DATA_DIR"))  # the data root decides which rows
    with _lock:
        if key not in _loaded:
            from gym.core.config import compose
            from gym.serve.catalog import load

            cfg = compose([f"benchmark={name}", *overrides])
            _loaded[key] = load(cfg, cfg.benchmark, _stack)
        return _loaded[key]


def _reward(verdict: dict, on_verifier_error: float | None) -> float | None:
    return on_verifier_error if verdict["status"] in UNFINISHED else verdict["reward"]


def _last_reply(completion: Any) -> Any:
    """A TRL completion: text, or (conversational) a list of messages whose last one is the reply."""
    if isinstance(completion, list):
        replies = [m for m in completion if isinstance(m, dict) and m.get("role") == "assistant"]
        return replies[-1] if replies else ""
    return completion


def reward_function(name: str, overrides: Sequence[str] = (), on_verifier_error: float | None = 0.0) -> Callable:
    """A TRL reward function: `f(prompts, completions, **columns) -> list[float]`.

    The task row of each completion: the prepared row at the `task_index` column when the dataset has one,
    else the dataset's own columns (a dataset made from gym's prepared file has them all)."""
    served = benchmark(name, overrides)

    def reward(prompts: Any = None, completions: Sequence[Any] = (), **columns: Any) -> list[float | None]:
        rewards = []
        for i, completion in enumerate(completions):
            if "task_index" in columns:
                row = served.row(int(columns["task_index"][i]))
            else:
                row = {key: value[i] for key, value in columns.items()
                       if key not in TRL_EXTRAS and isinstance(value, (list, tuple)) and len(value) == len(completions)}
            answer = read_answer(_last_reply(completion))
            calls = answer.tool_calls if served.offers_tools(row) else None
            rewards.append(_reward(served.verdict(row, answer.text, calls), on_verifier_error))
        return rewards

    reward.__name__ = f"gym_{name}"
    return reward


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None) -> float:
    """verl's custom reward: `data_source` is the gym benchmark, `ground_truth` its gold answer;
    `extra_info` may carry `task_index` (the prepared row) or more of the row's fields (MCQ options, ...)."""
    served = benchmark(str(data_source))
    extra = extra_info if isinstance(extra_info, dict) else {}
    if isinstance(extra.get("task_index"), int):
        row = served.row(extra["task_index"])
    else:
        row = {**extra, "expected_answer": ground_truth}
    answer = read_answer(solution_str)
    reward = _reward(served.verdict(row, answer.text, None), 0.0)
    return float(reward or 0.0)


class Environment:
    """One benchmark as an environment with `reset` / `step` / `close` (Gymnasium's return shapes).

    An episode benchmark runs collect's episode loop with the trainer as the agent: `step` takes the
    agent's reply (a chat message with `content` and/or `tool_calls`, Responses items, or text), runs its
    calls, lets the simulated user (`user`: mock, scripted, or None for solo mode) answer, and returns
    what the agent sees next; `user="auto"` is the benchmark's own default (bfcl_multi_turn: its scripted
    turns), else mock. A single-answer benchmark is a one-step episode."""

    def __init__(self, name: str, user: str | None = "auto", overrides: Sequence[str] = (), **limits: Any):
        from gym.episodes.base import Limits

        self.served = benchmark(name, overrides)
        self.user = _user(user, self.served)
        self.limits = Limits(**limits)
        self.session: Any = None

    def reset(self, task_index: int | None = None, row: dict | None = None,
              seed: int | None = None) -> tuple[list, dict]:
        from gym.serve.steps import StepSession

        chosen = row if row is not None else self.served.row(int(task_index or 0))
        self.session = StepSession.start(self.served, chosen, seed, self.user, self.limits)
        opening = self.session.opening()
        return opening["observation"], {"tools": opening["tools"]}

    def step(self, reply: Any) -> tuple[list, float | None, bool, bool, dict]:
        from gym.serve.catalog import RequestError

        if self.session is None:
            raise RequestError("reset first", 409)
        result = self.session.step(read_answer(reply))
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
