"""`view.export=<dir>`: the viewer's pages written as a static site that opens from disk without gym.

The same pages as the server's at the same relative paths; the tasks table filters and searches in the
browser over `run/<n>/tasks-data.js` (every row's summary and text), and the plots are copied beside the
pages. The folder is built next to the target and put in its place whole, so a reader never sees half."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from gym.core.errors import GymError
from gym.core.io import replace_dir
from gym.view import pages
from gym.view.runs import Runs
from gym.view.server import STATIC
from gym.view.tasks_table import all_rows, rollout_path


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def export(runs: Runs, target: Path, task_row_of: Callable | None = None, progress: bool = True) -> int:
    """Write every page under `target`; returns the number of pages written."""
    from tqdm import tqdm

    target = Path(target).expanduser().resolve()
    if target.exists() and not target.is_dir():
        raise GymError(f"view.export={target} is a file; give a directory")
    if target.is_dir() and any(target.iterdir()) and not (target / "index.html").is_file():
        raise GymError(f"view.export={target} holds other files; give an empty or new directory "
                       "(or one an earlier export wrote)")
    target.parent.mkdir(parents=True, exist_ok=True)
    built = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        shutil.copytree(STATIC, built / "static")
        _write(built / "index.html", pages.runs_page(runs, live=0))
        count = 1
        total = sum(len(run.index) for run in runs)
        with tqdm(total=total, desc="view pages", unit="page", disable=not progress) as bar:
            for run in runs:
                home = built / "run" / str(run.number)
                _write(home / "index.html", pages.run_page(run, live=0))
                _write(home / "tasks.html", pages.tasks_page(run, live=0))
                numbers, rows = all_rows(run)
                data = {"rows": rows, "status": run.status()}
                _write(home / "tasks-data.js", "window.GYM_TASKS = " + json.dumps(data, ensure_ascii=False) + ";\n")
                for name in run.plots():
                    (home / "files").mkdir(exist_ok=True)
                    shutil.copy2(run.dir / name, home / "files" / name)
                for number, row in zip(numbers, rows):
                    _write(home / rollout_path(row["benchmark"], row["task"], row["rollout"]),
                           pages.rollout_page(run, number, task_row_of))
                    bar.update(1)
                count += 2 + len(rows)
        cache: dict = {}
        for a, b in pages.compare_pairs(runs):
            _write(built / "compare" / f"{a}-{b}.html", pages.compare_page(runs, a, b, cache))
            count += 1
        replace_dir(built, target)
    finally:
        shutil.rmtree(built, ignore_errors=True)
    return count
