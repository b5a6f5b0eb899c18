"""Finding rollout files for a `rollouts=` spec.

The spec is a path, a glob, a run dir, a sweep dir, or a list of any of these.

* A file named outright is read whatever its name: you asked for it.
* A directory (a run dir, a sweep dir, any tree) contributes every file below it, at any depth,
  named `rollouts.jsonl` or `*rollouts*.jsonl`.
* A glob contributes the `.jsonl` files it matches; a directory it matches is searched as above.
* One file per run: where a directory holds `X.jsonl` and `X.reverified.jsonl` (task=reverify of
  earlier versions wrote its file into the run it read), only the re-verified one is taken from it.
* Side files are never taken from a directory or a glob: names containing `failures`,
  `materialized`, `metrics`, `profil` (reward_profile.jsonl, *_reward_profiling.jsonl) or
  `selected` (selected_tasks.jsonl). So `runs/**/*.jsonl` picks up rollouts, not the failure
  sidecars, metrics or curated task lists written beside them.

Nothing matched -> GymError naming the pattern.

"""

from __future__ import annotations

import fnmatch
import glob as globlib
from pathlib import Path
from typing import Any, Iterable, Iterator

from gym.core.errors import GymError

SIDE_FILE_MARKERS = ("failures", "materialized", "metrics", "profil", "selected")
ROLLOUT_FILE_PATTERNS = ("rollouts.jsonl", "*rollouts*.jsonl")


def is_side_file(path: Path) -> bool:
    name = path.name.lower()
    return any(marker in name for marker in SIDE_FILE_MARKERS)


def _is_rollout_name(path: Path) -> bool:
    return any(fnmatch.fnmatch(path.name, pattern) for pattern in ROLLOUT_FILE_PATTERNS)


REVERIFIED = ".reverified.jsonl"


def _from_directory(directory: Path, skipped: list[Path]) -> list[Path]:
    found = []
    for path in directory.rglob("*.jsonl"):
        if not path.is_file() or not _is_rollout_name(path):
            continue
        (skipped if is_side_file(path) else found).append(path)
    return one_per_run(found, skipped)


def one_per_run(files: list[Path], skipped: list[Path]) -> list[Path]:
    """`X.jsonl` beside its `X.reverified.jsonl` goes to `skipped`: the run's rows are read once, with
    their latest verdicts (no duplicate rows by key, no second run of the same rollouts)."""
    names = set(files)
    superseded = [f for f in files if f.with_name(f.name.removesuffix(".jsonl") + REVERIFIED) in names]
    skipped.extend(superseded)
    return [f for f in files if f not in superseded]


def _as_list(spec: Any) -> list[str]:
    if spec is None:
        return []
    if isinstance(spec, (str, Path)):
        return [str(spec)]
    if isinstance(spec, Iterable):
        items: list[str] = []
        for item in spec:
            items.extend(_as_list(item))
        return items
    raise GymError(f"rollouts: expected a path, glob or list of them, got {spec!r}")


def find_rollout_files(spec: Any) -> tuple[list[Path], list[Path]]:
    """(files to read in sorted order, side files skipped) for a `rollouts=` spec."""
    patterns = [p.strip() for p in _as_list(spec) if p and p.strip()]
    if not patterns:
        raise GymError("rollouts: no path given (rollouts=<file|glob|run dir|sweep dir> or a list)")
    files: set[Path] = set()
    skipped: list[Path] = []
    for pattern in patterns:
        path = Path(pattern).expanduser()
        if globlib.has_magic(pattern):
            matched: list[Path] = []
            for hit in sorted(globlib.glob(str(path), recursive=True)):
                hit_path = Path(hit)
                if hit_path.is_dir():
                    matched.extend(_from_directory(hit_path, skipped))
                elif hit_path.suffix == ".jsonl":
                    (skipped if is_side_file(hit_path) else matched).append(hit_path)
            matched = one_per_run(matched, skipped)
            if not matched:
                extra = f" ({len(skipped)} side file(s) skipped)" if skipped else ""
                raise GymError(f"rollouts: no rollout files matched '{pattern}'{extra}")
            files.update(matched)
        elif path.is_dir():
            matched = _from_directory(path, skipped)
            if not matched:
                raise GymError(f"rollouts: no rollouts.jsonl / *rollouts*.jsonl under directory '{pattern}'")
            files.update(matched)
        elif path.is_file():
            files.add(path)
        else:
            raise GymError(f"rollouts: no such file or directory '{pattern}'")
    return sorted(p.resolve() for p in files), sorted(set(skipped))


def rows_as_loaded(path: Path) -> Iterator[dict]:
    """A rollouts file's rows line by line, numbered as the loader numbers them: blank lines skipped, a torn last
    line ends the file (the loader skipped it too), a line that is no JSON object read as {}."""
    import json

    with Path(path).open("rb") as handle:
        for raw in handle:
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except ValueError:
                return
            yield row if isinstance(row, dict) else {}
