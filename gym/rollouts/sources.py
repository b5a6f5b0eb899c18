"""Whole rollout rows and what they were collected from: for tasks that rewrite rollouts (reverify, export).

* `read_rows(path)`: every row of a gym or NeMo Gym rollouts file as a current-version gym row
  (gym.rollouts.row.upgrade / gym.rollouts.nemo_gym.to_gym), validated, the last row per key kept, file order.
* `resolve_benchmark(run, name)`: the typed benchmark config for a rollout's `benchmark` field: the option of
  that name, else the longest option name the field starts with followed by `_` (NeMo Gym's agent names
  are `<benchmark>_<server>_<agent>`), else `benchmark=` given on the command line.
* `TaskRows`: the prepared task row (question, gold answer, tests, ...) behind each rollout: from a NeMo
  Gym materialized-inputs file beside the rollouts file when there is one, else from the benchmark's
  prepared data at `task_index`. A row whose gold answer differs from the rollout's is refused: the data
  changed since collection and the verdicts would be about other tasks.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Iterable, Iterator

from gym.rollouts import nemo_gym
from gym.core.errors import GymError
from gym.core.io import iter_jsonl, sha256_file
from gym.core.schema import BenchmarkConfig
from gym.core.typed import RunConfig
from gym.rollouts.row import Rollout, upgrade

log = logging.getLogger("gym.rollouts.load")


def _key(row: dict, path: Path) -> Any:
    return nemo_gym.key_of(row, path) if nemo_gym.is_nemo_row(row) else row.get("key")


def iter_rows(path: Path) -> Iterator[tuple[str, Rollout]]:
    """(file:line, row) for the last row of each key, in the order of those last rows, streamed: a first
    pass keeps only each key's last line number, so memory does not grow with the rows."""
    last: dict[Any, int] = {}
    for number, raw in iter_jsonl(path, tolerate_torn_tail=True):
        key = _key(raw, path)
        last[key if isinstance(key, str) and key else ("line", number)] = number  # a bad key: kept, then refused
    keep = set(last.values())
    del last
    for number, raw in iter_jsonl(path, tolerate_torn_tail=True):
        if number in keep:
            where = f"{path}:{number}"
            yield where, nemo_gym.to_gym(raw, path, where) if nemo_gym.is_nemo_row(raw) else upgrade(raw, where)


def read_rows(path: Path) -> list[tuple[str, Rollout]]:
    return list(iter_rows(path))


def resolve_benchmark(run: RunConfig, name: str, cache: dict[str, BenchmarkConfig]) -> BenchmarkConfig:
    from gym.data.catalog import active_config_dirs, benchmark_files

    if name in cache:
        return cache[name]
    known = benchmark_files(active_config_dirs())
    chosen = run.benchmark
    if name in known:
        bench = run.benchmark_named(name)
    elif chosen is not None:
        bench = chosen
    else:
        prefixes = [option for option in known if name.startswith(option + "_")]
        if not prefixes:
            raise GymError(f"rollouts of '{name}': no benchmark of that name; say which one it is with "
                           "benchmark=<name> (python -m gym task=search lists them)")
        bench = run.benchmark_named(max(prefixes, key=len))
    if bench.name != name:
        log.info("rollouts of '%s' are scored as benchmark %s", name, bench.name)
    cache[name] = bench
    return bench


def _same_answer(a: Any, b: Any) -> bool:
    def norm(value: Any) -> str:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return value.strip() if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return norm(a) == norm(b)


class TaskRows:
    """The prepared task row behind a rollout, found once per file and benchmark."""

    def __init__(self) -> None:
        self._prepared: dict[str, tuple[list[dict], str]] = {}
        self._materialized: dict[Path, dict[tuple[int, int], dict] | None] = {}
        self._names: dict[int, tuple[BenchmarkConfig, str, str]] = {}  # id(bench) -> (bench kept alive, name, path)

    def materialized(self, rollouts_file: Path) -> dict[tuple[int, int], dict] | None:
        """(task, rollout) -> task row from `<stem>_materialized_inputs.jsonl` beside the file, if any."""
        if rollouts_file not in self._materialized:
            side = rollouts_file.with_name(rollouts_file.stem.removesuffix(".reverified") + "_materialized_inputs.jsonl")
            found = None
            if side.is_file():
                found = {(row.get("_ng_task_index"), row.get("_ng_rollout_index")): nemo_gym.task_row(row)
                         for _, row in iter_jsonl(side)}
                log.info("task rows of %s from %s", rollouts_file, side)
            self._materialized[rollouts_file] = found
        return self._materialized[rollouts_file]

    def prepared(self, bench: BenchmarkConfig) -> tuple[list[dict], str]:
        """(rows, sha256) of the benchmark's prepared file."""
        if bench.name not in self._prepared:
            from gym.data.local import task_file

            path = task_file(bench)
            if not path.is_file():
                raise GymError(f"{bench.name} is not prepared ({path} is missing); the gold answers come from it: "
                               f"run python -m gym task=prepare benchmark={bench.name}")
            self._prepared[bench.name] = ([row for _, row in iter_jsonl(path)], sha256_file(path))
        return self._prepared[bench.name]

    def lookup(self, rollouts_file: Path, bench: BenchmarkConfig, row: Rollout, where: str) -> dict:
        if id(bench) not in self._names:
            self._names[id(bench)] = (bench, str(bench.name), str(bench.dataset.path))
        _, name, data_path = self._names[id(bench)]
        side = self.materialized(rollouts_file)
        if side is not None:
            task = side.get((row["task_index"], row["rollout_index"]))
            if task is None:
                raise GymError(f"{where}: no materialized input for task {row['task_index']} rollout "
                               f"{row['rollout_index']} beside {rollouts_file}")
            return task
        rows, sha = self._prepared[name] if name in self._prepared else self.prepared(bench)
        index = row["task_index"]
        if not 0 <= index < len(rows):
            raise GymError(f"{where}: task_index {index} is past the {len(rows)} task(s) prepared for {name} "
                           f"({data_path}); the data changed since collection")
        task = rows[index]
        gold = row.get("expected_answer")
        if gold is not None and not _same_answer(gold, task.get("expected_answer")):
            raise GymError(f"{where}: the prepared data of {name} changed since collection (task {index}: gold "
                           f"{task.get('expected_answer')!r} now, {gold!r} in the rollout); re-prepare the version "
                           "the rollouts were collected on")
        if row.get("data_sha256") and row["data_sha256"] != sha:
            log.debug("%s: prepared file differs from the one collected on; gold answers still match", where)
        return task


def skip_superseded(files: Iterable[Path]) -> list[Path]:
    """Drop `X.reverified.jsonl` (an older gym wrote it beside X) when `X.jsonl` is also given: re-verify X."""
    files = list(files)
    names = set(files)
    return [f for f in files
            if not (f.name.endswith(".reverified.jsonl") and f.with_name(f.name.replace(".reverified", "")) in names)]
