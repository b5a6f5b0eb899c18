"""The reference server's prepared rows, by number, without holding a million of them in memory.

Rows of prepared files are read once for their byte offsets and read back from the file when a
request needs one (a small cache keeps the recent ones); rows given in memory stay there. Rows that
`aside` picks (episode rows) are kept apart, in memory, and not numbered.
"""

from __future__ import annotations

import json
import threading
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from gym.core.errors import GymError

CACHED_ROWS = 4096
_OFFSET_BITS = 40  # a row's place: (file number << 40) | byte offset


def check_row(row: dict, where: str, episode: bool) -> None:
    """Every row needs a string `question` and, unless an episode row, an `expected_answer`."""
    for key in ("question",) if episode else ("question", "expected_answer"):
        if not isinstance(row.get(key), (str, int, float)) or isinstance(row.get(key), bool):
            raise GymError(f"{where}: prepared row needs a '{key}' string")


class RowStore(Sequence):
    def __init__(self, paths: Iterable[str | Path] = (), rows: Iterable[dict] = (),
                 aside: Callable[[dict], bool] = lambda row: False):
        self.aside = aside
        self.aside_rows: list[dict] = []
        self._files = [Path(p) for p in paths]
        self._places = array("q")
        for number, path in enumerate(self._files):
            for offset, line, row in _read_lines(path):
                check_row(row, f"{path}:{line}", aside(row))
                if aside(row):
                    self.aside_rows.append(row)
                else:
                    self._places.append((number << _OFFSET_BITS) | offset)
        self._memory: list[dict] = []
        for row in rows:
            check_row(row, "row", aside(row))
            (self.aside_rows if aside(row) else self._memory).append(row)
        self._cache: OrderedDict[int, dict] = OrderedDict()
        self._handles: dict[int, object] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._places) + len(self._memory)

    def __getitem__(self, number: int) -> dict:  # type: ignore[override]
        if number >= len(self._places):
            return self._memory[number - len(self._places)]
        with self._lock:
            row = self._cache.get(number)
            if row is not None:
                self._cache.move_to_end(number)
                return row
            place = self._places[number]
            handle = self._handles.get(place >> _OFFSET_BITS)
            if handle is None:
                handle = self._handles[place >> _OFFSET_BITS] = self._files[place >> _OFFSET_BITS].open("rb")
            handle.seek(place & ((1 << _OFFSET_BITS) - 1))  # type: ignore[attr-defined]
            row = json.loads(handle.readline())  # type: ignore[attr-defined]
            self._cache[number] = row
            if len(self._cache) > CACHED_ROWS:
                self._cache.popitem(last=False)
            return row

    def __iter__(self) -> Iterator[dict]:
        """The numbered rows in order, streamed from their files."""
        for path in self._files:
            for _, _, row in _read_lines(path):
                if not self.aside(row):
                    yield row
        yield from self._memory

    def close(self) -> None:
        with self._lock:
            for handle in self._handles.values():
                handle.close()  # type: ignore[attr-defined]
            self._handles.clear()


def _read_lines(path: Path) -> Iterator[tuple[int, int, dict]]:
    """(byte offset, line number, row) of each non-blank line."""
    if not path.is_file():
        raise GymError(f"file not found: {path}")
    offset = 0
    with path.open("rb") as handle:
        for line, raw in enumerate(handle, start=1):
            if raw.strip():
                try:
                    row = json.loads(raw)
                except ValueError as exc:
                    raise GymError(f"{path}:{line}: malformed JSON ({exc.__class__.__name__}: {exc})") from None
                if not isinstance(row, dict):
                    raise GymError(f"{path}:{line}: expected a JSON object, got {type(row).__name__}")
                yield offset, line, row
            offset += len(raw)
