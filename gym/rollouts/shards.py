"""Merging the shards of a run (`shard=i/n`, one job each): aggregate and profile of a sweep dir.

Each shard's run.json says which part it ran ("shard": "i/n") and how it ended. Reading rollouts that
come from shards, every part 0..n-1 must be there and finished ("done"); otherwise the merge would
average some of the tasks only, so the missing and unfinished shards are named instead
(`allow_partial=true` merges what there is).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.rollouts.files import find_rollout_files


def shard_runs(files: list[Path]) -> dict[str, dict[str, Any]]:
    """Per sharded experiment (its identity without the shard): n, and each shard's status and dir."""
    found: dict[str, dict[str, Any]] = {}
    for path in files:
        info = _run_info(path)
        shard = info.get("shard") if info else None
        if not shard:
            continue
        index, count = (int(part) for part in str(shard).split("/"))
        identity = {k: v for k, v in (info.get("identity") or {}).items() if k != "shard"}
        entry = found.setdefault(json.dumps(identity, sort_keys=True), {
            "benchmark": identity.get("benchmark"), "counts": set(), "shards": {}})
        entry["counts"].add(count)
        entry["shards"][index] = (str(info.get("status")), str(path.parent))
    return found


def check_shards(spec: Any, allow_partial: bool = False) -> list[str]:
    """Problems with the shards behind a rollouts spec (GymError unless allow_partial; then returned)."""
    problems = []
    for entry in shard_runs(find_rollout_files(spec)[0]).values():
        count = max(entry["counts"])
        if len(entry["counts"]) > 1:
            problems.append(f"{entry['benchmark']}: shards of different splits ({sorted(entry['counts'])} parts)")
        missing = [f"{i}/{count}" for i in range(count) if i not in entry["shards"]]
        unfinished = [f"{i}/{count} ({status}, {where})" for i, (status, where) in sorted(entry["shards"].items())
                      if status != "done"]
        if missing:
            problems.append(f"{entry['benchmark']}: shard(s) {', '.join(missing)} missing")
        if unfinished:
            problems.append(f"{entry['benchmark']}: shard(s) {'; '.join(unfinished)} not finished")
    if problems and not allow_partial:
        raise GymError("; ".join(problems) + ": the merge would cover part of the tasks only; run or resume those "
                       "shards (the same command with shard=i/n resume=true), or allow_partial=true to merge what there is")
    return problems


def _run_info(rollouts: Path) -> dict[str, Any] | None:
    """The run.json of the run that wrote a rollouts file (beside it, naming it)."""
    path = rollouts.parent / "run.json"
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    named = info.get("rollouts") or info.get("rollouts_file")
    if named and Path(named).resolve() != rollouts.resolve():
        return None
    return info if isinstance(info, dict) else None
