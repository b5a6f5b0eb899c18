"""Terminal-Bench 2.0 (89 tasks in Harbor's format, Apache-2.0): the task folders from a GitHub snapshot that
holds all of them (`terminal-bench-2/` of the archive), or from `tasks_dir=<a local checkout>`. With
`data.mirror=<dir>` the archive is read from <dir>/codeload.github.com/<owner>/<repo>/tar.gz/<commit>
(tools/tb2_mirror.py makes that file from a git mirror). See gym.episodes.harbor.prepare."""

from __future__ import annotations

import tarfile
from pathlib import Path
from typing import TYPE_CHECKING

from gym.data import GymError
from gym.episodes.harbor import DEFAULT_REACHABLE, prepare_tasks

if TYPE_CHECKING:
    from gym.data import PrepareContext

SNAPSHOT = "https://codeload.github.com/yujianll/skill-usage/tar.gz/f9f89fadc42150d0b3de9dfa8ff31da31607ca89"
FOLDER = "terminal-bench-2"


def unpack(archive: Path, into: Path) -> Path:
    """The archive's terminal-bench-2/ folder, unpacked once beside it; its path."""
    done = into / ".unpacked"
    if not done.exists():
        into.mkdir(parents=True, exist_ok=True)
        try:
            with tarfile.open(archive) as tar:
                members = [m for m in tar.getmembers() if f"/{FOLDER}/" in f"/{m.name}"]
                tar.extractall(into, members=members, filter="data")
        except (tarfile.TarError, OSError) as exc:
            raise GymError(f"{archive}: unreadable archive ({exc})") from None
        done.touch()
    found = sorted(into.glob(f"*/{FOLDER}")) + sorted(into.glob(FOLDER))
    if not found:
        raise GymError(f"{archive}: no {FOLDER}/ folder inside")
    return found[0]


def prepare(ctx: "PrepareContext", tasks_dir: str | None = None, only: list | None = None,
            reachable: list | None = None, unrunnable: dict | None = None) -> Path:
    if tasks_dir:
        root = Path(tasks_dir).expanduser()
    else:
        archive = ctx.fetch(SNAPSHOT)
        root = unpack(archive, ctx.raw_dir / "unpacked")
    return prepare_tasks(ctx, root, reachable or DEFAULT_REACHABLE, only, unrunnable)
