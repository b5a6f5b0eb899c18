"""task=clean: remove gym's leftover containers and, when asked, the images it built.

    python -m gym task=clean                         # containers whose gym process is gone (a run killed outright)
    python -m gym task=clean run=outputs/e2e/<time>  # every container of that run
    python -m gym task=clean images=true dry_run=true  # also list the task images; remove nothing

gym removes its containers itself at the end of a run, on Ctrl-C and SIGTERM, and the next run on the host
sweeps those of a killed one; this is the same by hand, for a run that will not be resumed or for disk.
"""

from __future__ import annotations

import shutil
from typing import Any

from omegaconf import DictConfig

from gym.core.errors import GymError

IMAGES = {False: None, True: "tasks", "tasks": "tasks", "all": "all"}


def images_choice(value: Any) -> str | None:
    """images=false|true|all as None, "tasks" or "all"; anything else is one line."""
    key = value.lower() if isinstance(value, str) and value.lower() not in ("true", "false") else value
    key = {"true": True, "false": False}.get(key, key) if isinstance(key, str) else key
    if key not in IMAGES:
        raise GymError(f"images={value} is not one of: false, true (gym's task images), all (the stand-in bases too)")
    return IMAGES[key]


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.metrics.table import format_table
    from gym.runtime import make_runtime, settings_from_config
    from gym.runtime.cleanup import gym_images, leftover_containers, remove

    which = images_choice(cfg.get("images"))
    run_dir = str(cfg.run) if cfg.get("run") else None
    runtime = make_runtime(settings_from_config(cfg.runtime))
    runtime.check()
    found = leftover_containers(runtime, run_dir, live=bool(cfg.get("live")) or run_dir is not None)
    found += gym_images(runtime, which) if which else []
    if not found:
        where = f"of run {run_dir}" if run_dir else "left over"
        print(f"gym clean: no containers {where}" + (" and no gym images" if which else ""), flush=True)
        return {"found": 0, "removed": 0}
    rows = [(item.kind, item.id.removeprefix("sha256:")[:12], item.name, _size(item.size), item.run or item.why)
            for item in found]
    width = shutil.get_terminal_size((200, 20)).columns
    print(format_table(["kind", "id", "name", "size", "run / task / why"], rows, right=[3], width=width), flush=True)
    if cfg.get("dry_run"):
        print(f"gym clean: dry run, nothing removed ({len(found)} found); run again without dry_run=true to remove them",
              flush=True)
        return {"found": len(found), "removed": 0, "dry_run": True}
    kept = remove(runtime, found)
    note = f"; {len(kept)} image(s) still in use by a container stayed" if kept else ""
    print(f"gym clean: removed {len(found) - len(kept)} of {len(found)}{note}", flush=True)
    return {"found": len(found), "removed": len(found) - len(kept), "kept": [item.name for item in kept]}


def _size(size: int) -> str:
    return f"{size / 1e6:,.0f} MB" if size else ""
