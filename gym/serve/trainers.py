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

from typing import Any, Callable, Sequence

from gym.serve.answers import read_answer
from gym.serve.environment import Environment  # noqa: F401 - part of this module's API
from gym.serve.in_process import ALIASES, _loaded, benchmark, benchmark_name  # noqa: F401
from gym.serve.reward_settings import ENV_VARS, RewardSettings, _configured, configure, current_settings  # noqa: F401

UNFINISHED = ("verifier_error", "infra_error")
# Keyword arguments TRL passes beside the dataset's columns.
TRL_EXTRAS = frozenset({"prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric",
                        "environments"})
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


__all__ = ["Environment", "RewardSettings", "benchmark", "compute_score", "configure", "current_settings",
           "reward_function"]
