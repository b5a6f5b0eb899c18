"""gym's rewards in a trainer's own process: TRL, verl, and a reset/step environment.

    from gym.serve.trainers import reward_function, compute_score, configure, Environment

    GRPOTrainer(..., reward_funcs=[reward_function("gsm8k")])           # TRL
    # verl: reward.custom_reward_function.path=<gym>/serve/trainers.py, reward.custom_reward_function.name=compute_score
    env = Environment("tau2_mock", user="mock")                          # an episode, step by step

Each benchmark is loaded once per process (its prepared rows, the verifier collect builds from the
benchmark's config, the environment), from the data root gym uses everywhere ($GYM_DATA_DIR, ...); the
benchmark must be prepared (`python -m gym task=prepare benchmark=<name>`). Rewards come from the very
function collect's rows come from (gym.rollouts.row.verify_answer, through gym.serve.catalog), so a
completion gets here the reward collect gives it.

Settings (`configure(...)` in the process, else environment variables, which reach verl's reward workers
and forked children alike): `workers` (GYM_REWARD_WORKERS, math worker processes per benchmark and
process, default 2), `timeout` (GYM_REWARD_TIMEOUT, seconds per math check), `strict` (GYM_REWARD_STRICT,
config `reward.strict`: training-safe rewards) and `overrides` (GYM_REWARD_OVERRIDES, space-separated
command-line overrides, e.g. the judge endpoint: "judge=vllm judge.base_url=http://host:8000/v1"). The
loaded benchmarks are keyed by process id: a child forked after its parent scored builds its own.
"""

from __future__ import annotations

import atexit
import difflib
import os
import threading
from contextlib import ExitStack
from typing import Any, Callable, Sequence

from gym.core.errors import GymError
from gym.serve.answers import read_answer
from gym.serve.catalog import Served
from gym.serve.reward_settings import ENV_VARS, RewardSettings, _configured, configure, current_settings  # noqa: F401

UNFINISHED = ("verifier_error", "infra_error")
# Keyword arguments TRL passes beside the dataset's columns.
TRL_EXTRAS = frozenset({"prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric",
                        "environments"})
# Other projects' names for gym benchmarks (verl's own preprocessing writes these as data_source).
ALIASES = {"openai/gsm8k": "gsm8k", "lighteval/MATH": "hendrycks_math",
           "DigitalLearningGmbH/MATH-lighteval": "hendrycks_math", "HuggingFaceH4/MATH-500": "math-500"}
_loaded: dict[tuple, Served] = {}
_stacks: dict[int, ExitStack] = {}
_lock = threading.Lock()


def benchmark_name(data_source: str) -> str:
    """A gym benchmark from a trainer's dataset name: itself, a known alias (openai/gsm8k), else one line
    naming the benchmarks that look like it."""
    from gym.core.config import CONF_DIR

    name = ALIASES.get(str(data_source), str(data_source))
    known = sorted(path.stem for path in (CONF_DIR / "benchmark").glob("*.yaml"))
    if name in known:
        return name
    tail = name.rsplit("/", 1)[-1].lower()
    close = [b for b in known if tail and (tail in b.lower() or b.lower() in tail)]
    close += [b for b in difflib.get_close_matches(tail, known, n=3, cutoff=0.6) if b not in close]
    hint = f"benchmarks that match: {', '.join(close[:5])}" if close else "see python -m gym task=search"
    raise GymError(f"data_source {data_source!r} is not a gym benchmark ({hint}); write the gym benchmark's "
                   "name as the data_source")


def benchmark(name: str, overrides: Sequence[str] = ()) -> Served:
    """The benchmark `name` composed as the command line would (`overrides`: e.g. ["judge=mock"]; a key the
    config does not have yet needs no `+`), with this process's reward settings."""
    name = benchmark_name(name)
    settings = current_settings()
    wanted = (*settings.overrides, *overrides)
    key = (os.getpid(), name, wanted, settings, os.environ.get("GYM_DATA_DIR"))  # the data root decides the rows
    with _lock:
        if key not in _loaded:
            _loaded[key] = _load(name, wanted, settings)
        return _loaded[key]


def _load(name: str, overrides: Sequence[str], settings: RewardSettings) -> Served:
    from omegaconf import open_dict

    from gym.serve.catalog import load

    cfg = _compose([f"benchmark={name}", *overrides])
    with open_dict(cfg):
        cfg.reward.strict = settings.strict or bool(cfg.reward.strict)
        options = cfg.benchmark.verifier.options
        if str(cfg.benchmark.verifier.family) == "math":  # the family whose checks run in worker processes
            options.workers = options.get("workers") or settings.workers
            if settings.timeout is not None:
                options.timeout = settings.timeout
    pid = os.getpid()
    if pid not in _stacks:
        _stacks[pid] = ExitStack()
        atexit.register(_close_own, pid)
    return load(cfg, cfg.benchmark, _stacks[pid])


def _close_own(pid: int) -> None:
    if os.getpid() == pid:  # a forked child leaves its parent's verifiers to the parent
        _stacks[pid].close()


def _compose(overrides: list[str]) -> Any:
    """compose(), adding the `+` Hydra wants before a key the config does not have yet."""
    from hydra.errors import ConfigCompositionException

    from gym.core.config import compose

    for _ in range(len(overrides) + 1):
        try:
            return compose(overrides)
        except ConfigCompositionException as exc:
            missing = str(exc).partition("Could not override '")[2].partition("'")[0]
            at = [i for i, o in enumerate(overrides) if o.split("=", 1)[0] == missing]
            if not missing or not at:
                raise GymError(" ".join(str(exc).split())) from None
            overrides = [("+" + o if i == at[0] else o) for i, o in enumerate(overrides)]
    raise GymError(f"cannot compose {overrides}")


def _reward(verdict: dict, on_verifier_error: float | None) -> float | None:
    return on_verifier_error if verdict["status"] in UNFINISHED else verdict["reward"]


def _last_reply(completion: Any) -> Any:
    """A TRL completion: text, or (conversational) a list of messages whose last one is the reply."""
    if isinstance(completion, list):
        replies = [m for m in completion if isinstance(m, dict) and m.get("role") == "assistant"]
        return replies[-1] if replies else ""
    return completion


def reward_function(name: str, overrides: Sequence[str] = (), on_verifier_error: float | None = None,
                    max_completion_length: int | None = None) -> Callable:
    """A TRL reward function: `f(prompts, completions, **columns) -> list[float | None]`.

    The task row of each completion: the prepared row at the `task_index` column when the dataset has one,
    else the dataset's own columns (a dataset made from gym's prepared file has them all). A completion the
    verifier cannot decide gets `on_verifier_error`: None, which TRL leaves out of the group. With strict
    rewards, `max_completion_length` (GRPOConfig's) tells a cut-off completion: one of that many tokens."""
    served = benchmark(name, overrides)

    def reward(prompts: Any = None, completions: Sequence[Any] = (), **columns: Any) -> list[float | None]:
        rewards = []
        ids = columns.get("completion_ids")
        for i, completion in enumerate(completions):
            if "task_index" in columns:
                row = served.row(int(columns["task_index"][i]))
            else:
                row = {key: value[i] for key, value in columns.items()
                       if key not in TRL_EXTRAS and isinstance(value, (list, tuple)) and len(value) == len(completions)}
            answer = read_answer(_last_reply(completion))
            calls = answer.tool_calls if served.offers_tools(row) else None
            cut = max_completion_length is not None and ids is not None and len(ids[i]) >= max_completion_length
            verdict = served.verdict(row, answer.text, calls, "length" if cut else answer.finish_reason)
            rewards.append(_reward(verdict, on_verifier_error))
        return rewards

    reward.__name__ = f"gym_{served.name}"
    return reward


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None,
                  **kwargs: Any) -> float:
    """verl's custom reward: `data_source` is the gym benchmark (or an alias such as openai/gsm8k),
    `ground_truth` its gold answer; `extra_info` may carry `task_index` (the prepared row) or more of the
    row's fields (MCQ options, ...), and `finish_reason` ("length": cut off). verl's other keyword arguments
    (reward_kwargs, the reward router's) are accepted and not used."""
    served = benchmark(str(data_source))
    extra = extra_info if isinstance(extra_info, dict) else {}
    if isinstance(extra.get("task_index"), int):
        row = served.row(extra["task_index"])
    else:
        row = {**extra, "expected_answer": ground_truth}
    answer = read_answer(solution_str)
    verdict = served.verdict(row, answer.text, None, extra.get("finish_reason") or answer.finish_reason)
    return float(_reward(verdict, 0.0) or 0.0)


def __getattr__(name: str) -> Any:  # the environment lives beside this module; imported only when asked for
    if name in ("Environment", "TRLEnvironment"):
        from gym.serve import environment

        return getattr(environment, name)
    raise AttributeError(name)


__all__ = ["RewardSettings", "benchmark", "compute_score", "configure", "current_settings",
           "reward_function"]
