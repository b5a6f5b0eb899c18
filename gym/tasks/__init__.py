"""The task registry: `task=<name>` -> the module whose `run(cfg)` does the work.

Modules are imported only when chosen, so a task's heavy imports stay off everyone else's start-up.
A task that runs others (e2e) goes through `run_task` rather than importing them.
"""

from __future__ import annotations

import importlib
from typing import Any

TASKS = {
    "search": "gym.tasks.search",
    "prepare": "gym.tasks.prepare",
    "collect": "gym.tasks.collect",
    "aggregate": "gym.tasks.aggregate",
    "noise": "gym.tasks.noise",
    "profile": "gym.tasks.profile",
    "e2e": "gym.tasks.e2e",
    "reverify": "gym.tasks.reverify",
    "export": "gym.tasks.export",
    "serve": "gym.tasks.serve",
    "view": "gym.tasks.view",
    "clean": "gym.tasks.clean",
}


def run_task(name: str, cfg: Any) -> Any:
    """Run task `name` on a config composed for it."""
    return importlib.import_module(TASKS[name]).run(cfg)
