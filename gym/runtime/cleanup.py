"""What `task=clean` finds and removes: gym's leftover containers and, when asked, the images gym built.

A leftover container is one whose gym process is gone (a run killed outright: `gym.owner` names a dead
process on this host), or any container of a run named by its directory (`gym.run`). Images: the task
images gym built (label `gym.task`), and with `which="all"` the stand-in bases and imported root
filesystems too (rebuilt from the archives when next needed). An image a container still uses stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gym.runtime.base import (LABEL_MANAGED, LABEL_OWNER, LABEL_RUN, LABEL_TRIAL, Container, ContainerRuntime,
                              owner_gone)

BASE_PREFIXES = ("localhost/gym-standin/", "localhost/gym-base/")  # stand-in bases, imported root filesystems
ORDER = {"task image": 0, "stand-in base": 1, "root filesystem": 2}  # children before the images they build on


@dataclass
class Found:
    kind: str  # container | task image | stand-in base | root filesystem
    id: str
    name: str  # a container's trial, an image's tag (or its short id when untagged)
    run: str = ""  # a container's run directory
    why: str = ""  # why it is a leftover
    size: int = 0  # an image's bytes


def run_label(run_dir: str) -> str:
    """The `gym.run` label of a run directory (as the run wrote it: absolute, resolved)."""
    return str(Path(run_dir).expanduser().resolve())


def leftover_containers(runtime: ContainerRuntime, run: str | None = None, live: bool = False) -> list[Found]:
    """gym's containers to remove: of run `run` (a directory) if given, else those whose process is gone;
    `live` adds those whose gym process still runs (or runs on another host)."""
    labels = {LABEL_MANAGED: "1", **({LABEL_RUN: run_label(run)} if run else {})}
    found = []
    for item in runtime.containers(labels):
        owner = str(item.get(LABEL_OWNER, ""))
        gone = owner_gone(owner)
        if not (gone or live):
            continue
        why = f"its gym process {owner} is gone" if gone else f"its gym process {owner or '?'} may still run"
        found.append(Found("container", item["id"], str(item.get(LABEL_TRIAL, "")), str(item.get(LABEL_RUN, "")), why))
    return found


def gym_images(runtime: ContainerRuntime, which: str = "tasks") -> list[Found]:
    """The images gym built: task images, and with which="all" the bases too (children listed first)."""
    found = []
    for image in runtime.images({LABEL_MANAGED: "1"}) + _root_filesystems(runtime, which):
        tags = [tag for tag in image["tags"] if tag]
        if "gym.task" in image["labels"]:
            kind = "task image"
        elif which != "all":
            continue
        else:
            kind = "root filesystem" if any(t.startswith(BASE_PREFIXES[1]) for t in tags) else "stand-in base"
        name = ", ".join(tags) or image["id"].removeprefix("sha256:")[:12]
        found.append(Found(kind, image["id"], name, size=image["size"], why=image["labels"].get("gym.task", "")))
    unique = {item.id: item for item in found}
    return sorted(unique.values(), key=lambda item: (ORDER[item.kind], item.name))


def _root_filesystems(runtime: ContainerRuntime, which: str) -> list[dict]:
    """Imported root filesystems carry no labels: found by their repository name."""
    if which != "all":
        return []
    return [image for image in runtime.images({}) if any(t.startswith(BASE_PREFIXES[1]) for t in image["tags"])]


def remove(runtime: ContainerRuntime, found: list[Found]) -> list[Found]:
    """Remove what was found (containers first); those still there afterwards (an image in use)."""
    kept = []
    for item in sorted(found, key=lambda i: (i.kind != "container", ORDER.get(i.kind, 0))):
        if item.kind == "container":
            runtime.remove(Container(item.id, ""))
            continue
        names = [tag for tag in item.name.split(", ") if "/" in tag or ":" in tag] or [item.id]
        for name in names:
            runtime.remove_image(name)
        if runtime.image_exists(item.id):
            kept.append(item)
    return kept
