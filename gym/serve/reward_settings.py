"""The reward settings of gym's in-process trainer functions (gym.serve.trainers): by `configure(...)`, else
environment variables (they reach verl's reward workers and forked children alike), else small defaults.

A module of its own so that the settings are one per process even when a trainer imports
gym/serve/trainers.py by its file path (verl's custom_reward_function.path) beside gym.serve.trainers.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, fields
from typing import Any

from gym.core.errors import GymError, did_you_mean


@dataclass(frozen=True)
class RewardSettings:
    workers: int = 2  # math worker processes per benchmark and process (verl runs several reward workers)
    timeout: float | None = None  # seconds per math check; None = the verifier's own (5)
    strict: bool = False  # training-safe rewards: a marked final answer; a reply cut at the length limit scores 0
    overrides: tuple[str, ...] = ()  # command-line overrides: the judge (judge=vllm judge.base_url=...), ...


ENV_VARS = {"workers": "GYM_REWARD_WORKERS", "timeout": "GYM_REWARD_TIMEOUT", "strict": "GYM_REWARD_STRICT",
            "overrides": "GYM_REWARD_OVERRIDES"}
_configured: dict[str, Any] = {}


def configure(**settings: Any) -> RewardSettings:
    """Set this process's reward settings (see the module's doc); returns them as they now stand."""
    known = [f.name for f in fields(RewardSettings)]
    for name in settings:
        if name not in known:
            raise GymError(f"configure(): unknown setting {name!r}{did_you_mean(name, known)}; "
                           f"settings: {', '.join(known)}")
    _configured.update(settings)
    return current_settings()


def current_settings() -> RewardSettings:
    """configure()'s values, else the environment variables, else the defaults; checked."""
    values: dict[str, Any] = {}
    for name, var in ENV_VARS.items():
        if name in _configured:
            values[name] = _configured[name]
        elif os.environ.get(var, "").strip():
            values[name] = os.environ[var].strip()
    try:
        workers = int(values.get("workers", 2))
        timeout = None if values.get("timeout") in (None, "") else float(values["timeout"])
    except (TypeError, ValueError):
        raise GymError(f"reward settings: workers must be an integer and timeout a number of seconds, got "
                       f"{values.get('workers')!r} and {values.get('timeout')!r}") from None
    if workers < 1 or (timeout is not None and timeout <= 0):
        raise GymError(f"reward settings: workers={workers} must be at least 1 and timeout={timeout} positive")
    strict = values.get("strict", False)
    if isinstance(strict, str):
        if strict.lower() not in ("1", "0", "true", "false", "yes", "no"):
            raise GymError(f"{ENV_VARS['strict']}={strict!r} must be true or false")
        strict = strict.lower() in ("1", "true", "yes")
    overrides = values.get("overrides", ())
    overrides = tuple(shlex.split(overrides) if isinstance(overrides, str) else overrides)
    return RewardSettings(workers, timeout, bool(strict), overrides)
