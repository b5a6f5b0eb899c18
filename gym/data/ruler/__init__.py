"""RULER's synthetic long-context tasks, generated at prepare for a tokenizer and a length (tasks: the
generators; sources: the upstream files they read). The package is their face for prepare scripts."""

from __future__ import annotations

from typing import Iterable

from gym.core.errors import GymError
from gym.core.faces import lazy_getattr

FACE = {"TASKS": "gym.data.ruler.tasks", "MATCH_TYPE": "gym.data.ruler.tasks", "Generator": "gym.data.ruler.tasks",
        "read_sources": "gym.data.ruler.sources"}
__all__ = sorted([*FACE, "generation_args"])
__getattr__ = lazy_getattr(__name__, FACE)


def generation_args(max_length: int, num_samples: int, tasks: list[str] | str, known: Iterable[str],
                    label: str) -> list[str]:
    """The prepare arguments RULER and RULER v2 share, checked: positive whole lengths and sample counts,
    and task names among `known`; returns the tasks as a list."""
    for name, value in (("max_length", max_length), ("num_samples", num_samples)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise GymError(f"{name} must be a positive whole number, got {value!r}")
    known = list(known)
    tasks = [tasks] if isinstance(tasks, str) else list(tasks)
    unknown = [task for task in tasks if task not in known]
    if unknown or not tasks:
        raise GymError(f"unknown {label} task {', '.join(map(str, unknown)) or '(none given)'}; tasks: {', '.join(known)}")
    return tasks
