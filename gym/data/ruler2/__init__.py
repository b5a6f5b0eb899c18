"""RULER v2's synthetic long-context tasks, generated at prepare for a tokenizer and a length (tasks: the
task list and the shared sizing; generators: the three generators; sources: the upstream files they read)."""

from __future__ import annotations

from typing import Callable

from gym.data.ruler2.generators import Generator, Mmlu, Niah, Qa
from gym.data.ruler2.sources import Sources
from gym.data.ruler2.tasks import ROUTING, TASKS


def generator(task: str, sources: Sources, max_length: int) -> Generator:
    """A fresh generator for `task` (its own random stream, seeded with 42 as upstream)."""
    kind, args = TASKS[task]
    if kind == "niah":
        return Niah(task, args, sources.words, max_length)
    if kind == "mmlu":
        return Mmlu(task, args, *sources.mmlu)
    return Qa(task, args, *sources.hotpot)


def generate(task: str, sources: Sources, count: Callable[[str], int], max_length: int, num_samples: int) -> list[dict]:
    """`num_samples` rows of a RULER v2 task, each filled up to `max_length` tokens as `count` counts them."""
    return generator(task, sources, max_length).samples(count, max_length, num_samples)


__all__ = ["ROUTING", "TASKS", "Sources", "generate", "generator"]
