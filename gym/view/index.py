"""A rollouts file opened for viewing: one pass records where each row starts and the few fields the
tables filter on, so a page reads back only the rows it shows.

The pass checks every line as every reader does (gym.rollouts.row.check_row for gym rows of any schema
version, gym.rollouts.nemo_gym.to_gym for NeMo Gym rows), keeps the last row per key, and remembers where
it stopped: `refresh()` reads only what was appended since (a run being collected), skipping a torn last
line until it is whole. A row read back for a page goes through gym.rollouts.row.upgrade. Per row the
index holds a byte offset and a handful of numbers and category codes in numpy arrays (about 70 bytes a
row), never the rows themselves.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np

from gym.core.errors import GymError
from gym.core.io import complete_end
from gym.rollouts import nemo_gym
from gym.rollouts.row import STATUSES, Rollout, check_row, upgrade

CATEGORIES = ("benchmark", "model", "subset", "termination", "error_type")
FLUSH_ROWS = 65536  # rows parsed into Python lists before they go into the numpy columns
STATUS_CODE = {status: number for number, status in enumerate(STATUSES)}


class Codes:
    """Category labels <-> small integer codes (label 0 is "")."""

    def __init__(self) -> None:
        self.labels: list[str] = [""]
        self._code: dict[str, int] = {"": 0}

    def get(self, label: str) -> int:
        """The label's code, -1 when no row has it."""
        return self._code.get(label, -1)

    def code(self, label: str) -> int:
        found = self._code.get(label)
        if found is None:
            found = self._code[label] = len(self.labels)
            self.labels.append(label)
        return found


def error_type(error: Any) -> str:
    """A short name for why a rollout failed: the error text's leading words ("HTTP 500", "ReadTimeout")."""
    head = str(error).split(":", 1)[0].split("(", 1)[0].strip()
    return head[:40]


def subset_label(subsets: Any) -> str:
    return ", ".join(f"{name}={value}" for name, value in sorted(subsets.items())) if isinstance(subsets, dict) else ""


def parse_line(raw: bytes, path: Path, where: str) -> Rollout:
    """One line as a current-version gym row (GymError naming file:line when it is not one)."""
    try:
        obj = json.loads(raw)
    except ValueError as exc:
        raise GymError(f"{where}: malformed JSON ({exc.__class__.__name__}: {exc})") from None
    if not isinstance(obj, dict):
        raise GymError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    return nemo_gym.to_gym(obj, path, where) if nemo_gym.is_nemo_row(obj) else upgrade(obj, where)


def _key_hash(key: Any) -> int:
    return int.from_bytes(hashlib.blake2b(str(key).encode(), digest_size=8).digest(), "little", signed=True)


class _Columns:
    """Growable numpy columns."""

    def __init__(self) -> None:
        self.size = 0
        self.data = {name: np.zeros(1024, dtype) for name, dtype in
                     (("offset", np.int64), ("line", np.int64), ("key", np.int64), ("task_index", np.int64),
                      ("rollout_index", np.int64), ("reward", np.float64), ("status", np.int8),
                      *((name, np.int32) for name in CATEGORIES))}

    def extend(self, rows: dict[str, list]) -> None:
        count = len(rows["offset"])
        need = self.size + count
        for name, array in self.data.items():
            if need > len(array):
                grown = np.zeros(max(need, 2 * len(array)), array.dtype)
                grown[:self.size] = array[:self.size]
                self.data[name] = array = grown
            array[self.size:need] = rows[name]
        self.size = need

    def __getitem__(self, name: str) -> np.ndarray:
        return self.data[name][:self.size]


class RunFile:
    """The index of one rollouts file; thread-safe."""

    def __init__(self, path: Path, number: int):
        self.path, self.number = Path(path), number
        self.codes = {name: Codes() for name in CATEGORIES}
        self._columns = _Columns()
        self._end = 0  # bytes indexed so far
        self._lines = 0
        self._lock = threading.RLock()
        self._handle: Any = None
        self.live = np.zeros(0, np.int64)  # positions (into the columns) of each key's last row, in file order
        self._live_columns: dict[str, np.ndarray] = {}
        self._searches: dict[tuple[str, int], np.ndarray] = {}
        self.version = 0  # bumped when new rows land
        self.refresh()

    # -- indexing ---------------------------------------------------------------------------------------
    def refresh(self) -> bool:
        """Index what was appended since the last call; True when rows were added."""
        with self._lock:
            if not self.path.is_file():
                return False
            end, _ = complete_end(self.path)
            if end <= self._end:
                return False
            rows: dict[str, list] = {name: [] for name in self._columns.data}
            offset = self._end
            with self.path.open("rb") as handle:
                handle.seek(offset)
                for raw in handle:
                    if offset >= end:
                        break
                    self._lines += 1
                    if raw.strip():
                        self._add(rows, self._fields(raw), offset)
                        if len(rows["offset"]) >= FLUSH_ROWS:  # Python lists of a million rows would cost more
                            self._columns.extend(rows)         # than the whole index
                            rows = {name: [] for name in self._columns.data}
                    offset += len(raw)
            self._end = offset
            self._columns.extend(rows)
            self._dedupe()
            self.version += 1
            return True

    def _fields(self, raw: bytes) -> dict:
        """The row as written (gym) or as gym reads it (NeMo Gym), its status and reward checked as every
        reader checks them (gym.rollouts.row.check_row)."""
        where = f"{self.path}:{self._lines}"
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            raise GymError(f"{where}: malformed JSON ({exc.__class__.__name__}: {exc})") from None
        if not isinstance(obj, dict):
            raise GymError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        if nemo_gym.is_nemo_row(obj):
            return nemo_gym.to_gym(obj, self.path, where)  # type: ignore[return-value]
        _, obj["reward"] = check_row(obj, where)
        return obj

    def _add(self, rows: dict[str, list], row: dict, offset: int) -> None:
        rows["offset"].append(offset)
        rows["line"].append(self._lines)
        rows["key"].append(_key_hash(row.get("key")))
        rows["task_index"].append(row["task_index"])
        rows["rollout_index"].append(row["rollout_index"])
        reward = row.get("reward")
        rows["reward"].append(np.nan if reward is None else reward)
        rows["status"].append(STATUS_CODE.get(row.get("status"), 0))
        episode = row.get("episode")
        subsets = row.get("subsets")
        error = row.get("error")
        for name, label in (("benchmark", row.get("benchmark")), ("model", row.get("model")),
                            ("subset", subset_label(subsets) if subsets else ""),
                            ("termination", episode.get("termination") if isinstance(episode, dict) else ""),
                            ("error_type", error_type(error) if error else "")):
            rows[name].append(self.codes[name].code(str(label or "")))

    def _dedupe(self) -> None:
        keys = self._columns["key"]
        reversed_keys = keys[::-1]
        _, first_in_reversed = np.unique(reversed_keys, return_index=True)
        self.live = np.sort(len(keys) - 1 - first_in_reversed)
        self._live_columns = {}

    # -- reading ----------------------------------------------------------------------------------------
    def column(self, name: str) -> np.ndarray:
        """A column over the live rows (one per key, file order)."""
        with self._lock:
            found = self._live_columns.get(name)
            if found is None:
                found = self._live_columns[name] = self._columns[name][self.live]
            return found

    def labels(self, name: str) -> list[str]:
        return self.codes[name].labels

    def __len__(self) -> int:
        return len(self.live)

    @property
    def rows_read(self) -> int:
        return self._columns.size

    def row(self, number: int) -> Rollout:
        """Live row `number` (0-based, file order of the last row per key), read back from the file."""
        with self._lock:
            if not 0 <= number < len(self.live):
                raise KeyError(number)
            position = self.live[number]
            offset, line = int(self._columns["offset"][position]), int(self._columns["line"][position])
            if self._handle is None:
                self._handle = self.path.open("rb")
            self._handle.seek(offset)
            raw = self._handle.readline()
        return parse_line(raw, self.path, f"{self.path}:{line}")

    def line_of(self, number: int) -> int:
        return int(self._columns["line"][self.live[number]])

    def find(self, task_index: int, rollout_index: int, benchmark: str | None = None) -> int | None:
        """The live row number of (task, rollout[, benchmark]), or None."""
        with self._lock:
            mask = (self.column("task_index") == task_index) & (self.column("rollout_index") == rollout_index)
            if benchmark is not None:
                mask &= self.column("benchmark") == self.codes["benchmark"].get(benchmark)
            hits = np.flatnonzero(mask)
        return int(hits[0]) if len(hits) else None

    def matching(self, text: str) -> np.ndarray:
        """Live row numbers whose line holds `text` (case-insensitive): one pass over the file's bytes,
        remembered for the next pages of the same search."""
        key = (text.lower(), self.version)
        if key not in self._searches:
            if len(self._searches) >= 8:
                self._searches.pop(next(iter(self._searches)))
            self._searches[key] = self._scan(text)
        return self._searches[key]

    def _scan(self, text: str) -> np.ndarray:
        needle = text.lower().encode("utf-8")
        escaped = json.dumps(text.lower(), ensure_ascii=False)[1:-1].encode("utf-8")  # as written in JSON
        with self._lock:
            starts, live, end = self._columns["offset"].copy(), self.live.copy(), self._end
        hits: list[int] = []
        with self.path.open("rb") as handle:
            read, carry = 0, b""
            while read < end:
                data = handle.read(min(8 << 20, end - read))
                if not data:
                    break
                chunk, base = carry + data, read - len(carry)
                cut = chunk.rfind(b"\n") + 1
                block, carry = chunk[:cut].lower(), chunk[cut:]
                for pattern in {needle, escaped}:
                    at = block.find(pattern)
                    while at >= 0:
                        hits.append(base + at)
                        line_end = block.find(b"\n", at)
                        at = block.find(pattern, line_end + 1) if line_end >= 0 else -1
                read += len(data)
        if not hits:
            return np.zeros(0, np.int64)
        positions = np.unique(np.searchsorted(starts, np.asarray(hits, np.int64), side="right") - 1)
        numbers = np.searchsorted(live, positions)
        inside = numbers < len(live)
        numbers, positions = numbers[inside], positions[inside]
        return numbers[live[numbers] == positions]  # a hit in a superseded row of a key is not shown

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None
