"""The prepared task row behind a rollout, for an episode page's database comparison: the benchmark
named by the row (gym.rollouts.sources.resolve_benchmark) and its prepared data or materialized inputs
(gym.rollouts.sources.TaskRows), found once per benchmark."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

from gym.core.typed import RunConfig


def task_row_finder(run: RunConfig) -> Callable[[dict, Path], tuple[dict, str, str]]:
    """(rollout row, its rollouts file) -> (prepared task row, prepared data path, episode environment name)."""
    from gym.data.local import task_file
    from gym.rollouts.sources import TaskRows, resolve_benchmark

    cache: dict[str, Any] = {}
    rows = TaskRows()
    lock = threading.Lock()

    def find(row: dict, source: Path) -> tuple[dict, str, str]:
        with lock:
            bench = resolve_benchmark(run, str(row["benchmark"]), cache)
            task = rows.lookup(source, bench, row, f"{row['benchmark']} task {row['task_index']}")
            return task, str(task_file(bench)), str(bench.environment or "")

    return find
