"""The chosen task's knobs checked against their schema (gym.core.schema.TASK_KNOBS) at compose time, and the
`concurrency` knob's parser (a number or "auto": a union a dataclass schema cannot express)."""

from __future__ import annotations

from typing import Any

from gym.core.errors import GymError
from gym.core.schema import TASK_KNOBS


def check_task_knobs(cfg: Any) -> None:
    """Type-check the chosen task's knobs; a bad value raises GymError naming conf/task/<task>.yaml."""
    from dataclasses import fields

    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    task = cfg.task.name
    schema = TASK_KNOBS.get(task)
    if schema is None:
        return
    names = [f.name for f in fields(schema) if f.name in cfg]
    try:
        OmegaConf.merge(OmegaConf.structured(schema), OmegaConf.masked_copy(cfg, names))
    except OmegaConfBaseException as exc:
        key = getattr(exc, "full_key", None) or "?"
        message = str(exc).splitlines()[0]
        raise GymError(f"conf/task/{task}.yaml: bad value for '{key}': {message}") from None
    if "concurrency" in names:  # a number or "auto": a union the dataclass schema cannot express
        try:
            parse_concurrency(cfg.concurrency, 1)
        except GymError as exc:
            raise GymError(f"conf/task/{task}.yaml: bad value for 'concurrency': {exc}") from None
    for key in AT_LEAST_ONE:  # 0 would silently mean "the default" or "nothing"
        value = cfg.get(key) if key in names else None
        if value is not None and int(value) < 1:
            raise GymError(f"{key}={value} must be at least 1 (or null for the default)")


AT_LEAST_ONE = ("num_repeats", "limit")


def parse_concurrency(value: Any, max_concurrency: Any) -> tuple[str, int]:
    """("fixed", n) or ("auto", cap) from the `concurrency` and `model.max_concurrency` knobs."""
    try:
        cap = int(max_concurrency)
    except (TypeError, ValueError):
        raise GymError(f"model.max_concurrency={max_concurrency!r} must be a positive integer") from None
    if cap < 1:
        raise GymError(f"model.max_concurrency={cap} must be at least 1")
    if isinstance(value, str) and value.strip().lower() == "auto":
        return "auto", cap
    try:
        fixed = int(value) if not isinstance(value, bool) and value is not None else None
    except (TypeError, ValueError):
        fixed = None
    if fixed is None or str(fixed) != str(value).strip():
        raise GymError(f"concurrency={value!r} must be a number of requests in flight or 'auto'")
    if fixed < 1:
        raise GymError(f"concurrency={fixed} must be at least 1 (or 'auto')")
    return "fixed", fixed
