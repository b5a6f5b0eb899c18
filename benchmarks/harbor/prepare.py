"""Any folder of Harbor-format tasks (task.toml, instruction.md, environment/, solution/, tests/) as a benchmark:
`python -m gym task=e2e benchmark=harbor benchmark.dataset.tasks=<dir> agent=oracle model=mock`.
See gym.episodes.harbor.prepare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import GymError
from gym.episodes.harbor import DEFAULT_REACHABLE, prepare_tasks

if TYPE_CHECKING:
    from gym.data import PrepareContext


def prepare(ctx: "PrepareContext", tasks: str | None = None, only: list | None = None,
            reachable: list | None = None) -> Path:
    if not tasks:
        raise GymError("benchmark=harbor reads your folder of Harbor tasks: give benchmark.dataset.tasks=<dir>")
    return prepare_tasks(ctx, Path(tasks).expanduser(), reachable or DEFAULT_REACHABLE, only)
