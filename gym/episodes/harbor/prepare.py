"""A folder of Harbor tasks as prepared rows (benchmark=harbor, terminal_bench_2).

Each task folder is copied under the data directory (`tasks/<name>`, so a prepared benchmark does not
depend on where it came from) and becomes one row: the instruction is the question, the task's settings
and folder ride along, and the oracle's solve.sh is the gold `shell` action (the reference server plays
it with gym's terminal agent). The static scan (gym.episodes.harbor.task.scan) marks the tasks that
cannot run here as unscorable with the reason; `runnable.json` beside the rows lists every task with
whether it can run here and why not (task=search shows it).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterable, Mapping

from gym.core.errors import GymError
from gym.core.io import write_json_atomic
from gym.episodes.harbor.task import read_task, scan, system_prompt, task_folders

RUNNABLE = "runnable.json"
# hosts reachable from builds on an air-gapped machine with distribution and package mirrors
DEFAULT_REACHABLE = ("deb.debian.org", "security.debian.org", "archive.ubuntu.com", "security.ubuntu.com",
                     "ports.ubuntu.com", "pypi.org", "pypi.python.org", "files.pythonhosted.org",
                     "registry.npmjs.org", "npmjs.org", "localhost", "127.0.0.1")


def can_stand_in(image: str) -> bool:
    from gym.runtime.bases import stand_in_for

    return stand_in_for(image) is not None


def gold_command(folder: Path) -> str | None:
    """The oracle's commands as one shell command (solve.sh's text), when solve.sh is all the solution is."""
    solution = folder / "solution"
    files = [p for p in solution.rglob("*") if p.is_file()] if solution.is_dir() else []
    if [p.name for p in files] != ["solve.sh"]:
        return None
    return files[0].read_text(encoding="utf-8", errors="replace")


def prepare_tasks(ctx: Any, root: Path, reachable: Iterable[str] = DEFAULT_REACHABLE,
                  only: Iterable[str] | None = None, unrunnable: Mapping[str, str] | None = None) -> Path:
    """Rows for the Harbor tasks under `root` (every folder with a task.toml; `only`: those names).
    `unrunnable` names tasks a run showed cannot run here for reasons the scan cannot see, with why."""
    folders = task_folders(root)
    wanted = set(only or [])
    if wanted:
        unknown = sorted(wanted - {f.name for f in folders})
        if unknown:
            raise GymError(f"{root}: no task named {unknown[0]}")
        folders = [f for f in folders if f.name in wanted]
    if not folders:
        raise GymError(f"{root}: no Harbor task folders (each needs a task.toml)")
    target = ctx.output_path.parent / "tasks"
    rows, listing = [], []
    ctx.count_seen(len(folders))
    for folder in folders:
        copy = target / folder.name
        if copy.resolve() != folder.resolve():
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(folder, copy, symlinks=True)
        task = read_task(copy)
        why = scan(task, set(reachable), can_stand_in) or (unrunnable or {}).get(task.name)
        row = {"id": task.name, "question": task.instruction, "solo_system_prompt": system_prompt(task.instruction),
               "subset": str(task.metadata.get("category") or "all"),
               "difficulty": task.metadata.get("difficulty"),
               "task": {"name": task.name, "path": f"tasks/{task.name}", "settings": task.settings(),
                        "evaluation_criteria": {"actions": []}}}
        command = gold_command(copy)
        if command is not None:
            row["task"]["evaluation_criteria"]["actions"] = [{"name": "shell", "arguments": {
                "command": command, "timeout": task.agent_timeout}}]
        if why:
            row["unscorable"] = f"cannot run here: {why}"
            ctx.unscorable(task.name, why)
        rows.append(row)
        listing.append({"task": task.name, "runs_here": why is None, "why_not": why,
                        "base": task.docker_image, "difficulty": row["difficulty"]})
    path = ctx.write_rows(rows)
    write_json_atomic(path.parent / RUNNABLE, listing)
    return path


def read_runnable(data_path: Path) -> list[dict] | None:
    path = Path(data_path).parent / RUNNABLE
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
