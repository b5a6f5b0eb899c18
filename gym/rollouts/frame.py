"""The loaded rollouts' DataFrame, built piece by piece so each column is held once.

gym.rollouts.load parses a file a block of lines at a time; each block's table is added here at once:
numbers go into arrays sized for every row of the files (counted before reading), strings (key,
extracted answer) stay in arrow and become pyarrow-backed pandas strings without a copy, and the few
repeated names (benchmark, model, status, adaptive rule) become categories, task and rollout indices take
32 bits. So ten million rows cost the frame (about 100 bytes a row) plus one block, not the frame two or
three times over.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa

log = logging.getLogger("gym.rollouts.load")
CATEGORIES = ("benchmark", "model", "status", "adaptive")
STRINGS = ("key", "extracted_answer")
INT32_MAX = 2**31 - 1
INTEGERS = {"task_index": np.int32, "rollout_index": np.int32, "source": np.int32, "ordinal": np.int32,
            "key hash": np.int64}


def _release() -> None:
    """Give arrow's freed blocks back to the system (its allocator keeps them for reuse otherwise)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def use_system_allocator() -> None:
    """Arrow on the C allocator: large blocks come from mmap and go back to the system when freed, where
    arrow's own allocator (mimalloc) keeps every block parsed so far: hundreds of megabytes at 1M rows."""
    import pyarrow as pa

    if pa.default_memory_pool().backend_name != "system":
        pa.set_memory_pool(pa.system_memory_pool())


class FrameBuilder:
    def __init__(self, capacity: int):
        self.capacity, self.rows = capacity, 0
        self.order: list[str] = []  # columns in the order a concatenation of whole-file tables would have
        self.files_done = 0
        self.file_scores: list[str] = []  # score columns the current file brought in (sorted, as a file's are)
        self.numbers: dict[str, np.ndarray] = {}
        self.strings: dict[str, list] = {}
        self.codes: dict[str, np.ndarray] = {}
        self.names: dict[str, dict[str, int]] = {}  # category column -> value -> code

    def add(self, table: "pa.Table", source: int) -> None:
        """Append a piece of one file; its rows follow that file's earlier pieces (ordinal counts on)."""
        low, high = self.rows, self.rows + table.num_rows
        if high > self.capacity:
            self._grow(high)
        for name in table.column_names:
            self._put(name, table.column(name), low, high)
        self._put("source", np.full(table.num_rows, source, dtype=np.int32), low, high)
        self.rows = high
        del table
        _release()

    def mark(self) -> tuple[int, dict[str, int], list[str]]:
        """Where the next file starts (rows, string pieces, columns), to roll back a file read halfway."""
        return self.rows, {name: len(pieces) for name, pieces in self.strings.items()}, list(self.order)

    def rollback(self, mark: tuple[int, dict[str, int], list[str]]) -> None:
        self.rows, self.order, self.file_scores = mark[0], list(mark[2]), []
        for name, pieces in self.strings.items():
            del pieces[mark[1].get(name, 0):]

    def add_ordinals(self, start_row: int, count: int) -> None:
        """Rows start_row.. of one file are its lines 0..count-1 (in file order)."""
        self._put("ordinal", np.arange(count, dtype=np.int32), start_row, start_row + count)
        self.files_done += 1
        self.file_scores = []

    def frame(self) -> "pd.DataFrame":
        import pandas as pd
        import pyarrow as pa

        out: dict[str, Any] = {}
        for name in self.order:
            if name == "key hash":
                continue
            if name in self.strings:
                chunks = [chunk for column in self.strings.pop(name) for chunk in column.chunks]
                out[name] = pd.array(pa.chunked_array(chunks, pa.large_string()),
                                     dtype=pd.StringDtype("pyarrow", na_value=np.nan))
            elif name in self.codes:
                known = sorted(self.names[name])
                remap = np.full(len(known) + 1, -1, dtype=np.int32)  # first-seen code -> sorted code; -1 stays
                for position, value in enumerate(known):
                    remap[self.names[name][value]] = position
                out[name] = pd.Categorical.from_codes(remap[self.codes.pop(name)[: self.rows]], categories=known)
            else:
                out[name] = self.numbers.pop(name)[: self.rows]
        frame = pd.DataFrame(out, copy=False)
        _release()
        return frame

    def _put(self, name: str, column: Any, low: int, high: int) -> None:
        if name not in self.order and name != "key hash":
            self._place(name)
        if name in STRINGS:  # pandas keeps large_string: cast now, one block at a time
            import pyarrow as pa

            self.strings.setdefault(name, []).append(column.cast(pa.large_string()))
            if name == "key":  # 64-bit hashes find duplicate keys without a hash table of the strings
                self._numbers("key hash")[low:high] = np.fromiter(map(hash, column.to_pylist()), np.int64,
                                                                  count=high - low)
        elif name in CATEGORIES:
            codes = self._codes(name)
            codes[low:high] = self._encode(name, column)
        else:
            values = column if isinstance(column, np.ndarray) else column.to_numpy()
            target = self._numbers(name)
            if target.dtype == np.int32 and values.dtype.kind in "iu" and len(values) \
                    and (values.max() > INT32_MAX or values.min() < -INT32_MAX):
                from gym.core.errors import GymError

                raise GymError(f"a rollout's {name} is beyond {INT32_MAX:,}, more than gym's frame holds")
            target[low:high] = values

    def key_hashes(self) -> np.ndarray:
        return self.numbers["key hash"][: self.rows]

    def _place(self, name: str) -> None:
        """A new column's place: score columns of the first file sit before source and ordinal, sorted; a
        later file's new ones follow, sorted (what concatenating whole-file tables gives)."""
        if not name.startswith("scores."):
            self.order.append(name)
            return
        self.order = [column for column in self.order if column not in self.file_scores]
        self.file_scores = sorted([*self.file_scores, name])
        at = self.order.index("source") if self.files_done == 0 and "source" in self.order else len(self.order)
        self.order[at:at] = self.file_scores

    def _numbers(self, name: str) -> np.ndarray:
        if name not in self.numbers:
            dtype = INTEGERS.get(name, np.float64)
            self.numbers[name] = np.zeros(self.capacity, dtype) if dtype is not np.float64 \
                else np.full(self.capacity, np.nan)  # a score column absent from earlier files: null there
        return self.numbers[name]

    def _codes(self, name: str) -> np.ndarray:
        if name not in self.codes:
            self.codes[name] = np.full(self.capacity, -1, dtype=np.int32)
            self.names[name] = {}
        return self.codes[name]

    def _encode(self, name: str, column: Any) -> np.ndarray:
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(column).combine_chunks()
        known = self.names[name]
        mapping = np.array([known.setdefault(value, len(known)) if value is not None else -1
                            for value in encoded.dictionary.to_pylist()] + [-1], dtype=np.int32)
        indices = pc.fill_null(encoded.indices, -1).to_numpy()  # a null value: -1, which maps to -1
        return mapping[indices]

    def _grow(self, needed: int) -> None:
        """More rows than counted (a file grew while being read): make room."""
        self.capacity = max(needed, int(self.capacity * 1.5) + 1024)
        for table in (self.numbers, self.codes):
            for name, values in table.items():
                grown = np.full(self.capacity, -1 if table is self.codes else
                                (0 if values.dtype.kind == "i" else np.nan), dtype=values.dtype)
                grown[: len(values)] = values
                table[name] = grown


def last_row_per_key(frame: "pd.DataFrame", key_hashes: "np.ndarray") -> tuple["pd.DataFrame", int, int]:
    """(frame with the last row of each key, rows dropped, keys whose copies differ in reward). Rows whose
    key hashes repeat are compared by their keys themselves; the rest cannot be duplicates."""
    candidates = _repeated(key_hashes)
    if not len(candidates):
        return frame, 0, 0
    sub = frame.iloc[candidates][["key", "reward"]]
    dups = sub[sub["key"].duplicated(keep=False)]
    changed = int((dups.groupby("key", sort=False)["reward"].nunique(dropna=False) > 1).sum())
    drop = candidates[sub["key"].duplicated(keep="last").to_numpy()]
    if len(drop):
        keep = np.ones(len(frame), dtype=bool)
        keep[drop] = False
        frame = frame[keep].reset_index(drop=True)
        log.info("dropped %d duplicate row(s) by key (the last row wins); %d key(s) had different rewards",
                 len(drop), changed)
    return frame, len(drop), changed


def index_collisions(frame: "pd.DataFrame") -> int:
    """Rows sharing benchmark/model/task_index/rollout_index with another row (under another key)."""
    bench, model = frame["benchmark"].cat.codes.to_numpy(np.int64), frame["model"].cat.codes.to_numpy(np.int64)
    task, rollout = frame["task_index"].to_numpy(np.int64), frame["rollout_index"].to_numpy(np.int64)
    fits = (len(frame) and bench.max() < 64 and model.max() < 64 and 0 <= task.min() and task.max() < 1 << 31
            and 0 <= rollout.min() and rollout.max() < 1 << 19)
    if not fits:  # too wide to pack into one number: pandas compares the four columns
        return int(frame.duplicated(["benchmark", "model", "task_index", "rollout_index"]).sum())
    packed = np.sort((bench << 56) | (model << 50) | (task << 19) | rollout)  # one int64 per row, exact
    return int((packed[1:] == packed[:-1]).sum())  # sorting: no hash table of ten million entries


def _repeated(values: np.ndarray) -> np.ndarray:
    """Positions (ascending) of the values that occur more than once."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    same = ordered[1:] == ordered[:-1]
    del ordered
    flag = np.zeros(len(values), dtype=bool)
    flag[1:] |= same
    flag[:-1] |= same
    return np.sort(order[flag])
