"""What a resumed collect already has: each rollout key's last status and reward, held compactly.

A training-set run resumes files of tens of millions of rows; a dict of their keys would take gigabytes
(a str, a tuple and a float per row). gym's keys are 32 hex digits (128 bits), so each is held as two
unsigned 64-bit halves in sorted numpy arrays beside a status code and a float32 reward: 21 bytes a
row, looked up by binary search. The file is parsed by pyarrow keeping only `key`, `status` and
`reward`, and the keys are decoded with numpy; a block pyarrow cannot take (odd types) or holding keys
that are not gym's is read line by line. The last row of a key wins, as
everywhere (gym.rollouts.load); a torn last line is ignored. A key that is not 32 hex digits (a file
written by other tools) is kept in a plain dict.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from gym.core.errors import GymError
from gym.core.io import complete_end, line_blocks
from gym.rollouts.row import STATUSES

_HEX_KEY = re.compile(r"^[0-9a-f]{32}$")
_BLOCK = 16 << 20  # bytes parsed at a time (pyarrow needs a whole line in a block)
_STATUS_CODES = {name: code for code, name in enumerate(("", *STATUSES))}
_STATUS_NAMES = list(_STATUS_CODES)


class DoneKeys:
    """key -> (status, reward) of its last row; `get(key, default)` and `len()` as a dict's."""

    def __init__(self, hi: np.ndarray, lo: np.ndarray, status: np.ndarray, reward: np.ndarray,
                 other: dict[str, tuple[str, float | None]]):
        self.hi, self.lo, self.status, self.reward, self.other = hi, lo, status, reward, other

    def __len__(self) -> int:
        return len(self.hi) + len(self.other)

    def get(self, key: str, default: Any = None) -> Any:
        if not _HEX_KEY.match(key):
            return self.other.get(key, default)
        hi, lo = np.uint64(int(key[:16], 16)), np.uint64(int(key[16:], 16))
        start, stop = np.searchsorted(self.hi, hi, "left"), np.searchsorted(self.hi, hi, "right")
        for i in range(start, stop):  # almost always zero or one candidate
            if self.lo[i] == lo:
                reward = float(self.reward[i])
                return _STATUS_NAMES[self.status[i]], (None if np.isnan(reward) else reward)
        return default


def read_done(path: Path) -> DoneKeys:
    """The keys already in a rollouts file (none when it does not exist)."""
    pieces: list[tuple[np.ndarray, ...]] = []
    other: dict[str, tuple[str, float | None]] = {}
    if path.is_file():
        end, _ = complete_end(path)
        for block in line_blocks(path, end, _BLOCK):
            table = _parse(block)
            fast = _encode_table(table) if table is not None else None
            if fast is None:  # odd types or keys that are not gym's: row by row
                pieces.append(_encode_rows(block, other, path))
            else:
                pieces.append(fast)
    return _merge(pieces, other)


def _parse(block: bytes) -> Any:
    import pyarrow as pa
    import pyarrow.json as pj

    schema = pa.schema([("key", pa.string()), ("status", pa.string()), ("reward", pa.float64())])
    options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    try:
        return pj.read_json(pa.BufferReader(block), parse_options=options,
                            read_options=pj.ReadOptions(block_size=max(len(block), 1 << 20)))
    except (pa.ArrowInvalid, ValueError):  # e.g. a reward written as a string
        return None


# hex digit (ASCII) -> its value; 255 marks a byte that is not a lowercase hex digit
_HEX_VALUE = np.full(256, 255, dtype=np.uint8)
_HEX_VALUE[np.frombuffer(b"0123456789", np.uint8)] = np.arange(10)
_HEX_VALUE[np.frombuffer(b"abcdef", np.uint8)] = np.arange(10, 16)


def _encode_table(table: Any) -> tuple[np.ndarray, ...] | None:
    """The block's rows as arrays, vectorised; None unless every key is 32 lowercase hex digits."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = table["key"].combine_chunks()
    if keys.null_count or len(keys) == 0 or pc.min(pc.utf8_length(keys)).as_py() != 32 \
            or pc.max(pc.utf8_length(keys)).as_py() != 32:
        return None
    offsets = np.frombuffer(keys.buffers()[1], dtype=np.int32)[keys.offset:keys.offset + len(keys) + 1]
    data = np.frombuffer(keys.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    nibbles = _HEX_VALUE[data].reshape(len(keys), 32)
    if (nibbles == 255).any():
        return None
    packed = (nibbles[:, 0::2] << 4 | nibbles[:, 1::2]).astype(np.uint8)  # (rows, 16) bytes
    halves = packed.view(">u8").astype(np.uint64)  # big-endian: numeric order = hex order
    codes = pc.index_in(table["status"], value_set=pa.array(_STATUS_NAMES)).fill_null(0)
    rewards = table["reward"].to_numpy(zero_copy_only=False).astype(np.float32)
    return (np.ascontiguousarray(halves[:, 0]), np.ascontiguousarray(halves[:, 1]),
            codes.to_numpy(zero_copy_only=False).astype(np.uint8), rewards)


def _encode_rows(block: bytes, other: dict, path: Path) -> tuple[np.ndarray, ...]:
    """One block as arrays, row by row in file order; keys that are not gym's go to `other`."""
    hi, lo, status, reward = [], [], [], []
    for line in block.splitlines():
        try:
            row = json.loads(line) if line.strip() else None
        except ValueError as exc:
            raise GymError(f"{path}: a malformed line in the rollouts file ({exc}); gym cannot tell which "
                           "rollouts it holds") from None
        key = row.get("key") if isinstance(row, dict) else None
        if not isinstance(key, str):
            continue
        value = row.get("reward")
        value = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        state = row.get("status") if isinstance(row.get("status"), str) else ""
        if not _HEX_KEY.match(key):
            other[key] = (state, value)
            continue
        hi.append(int(key[:16], 16))
        lo.append(int(key[16:], 16))
        status.append(_STATUS_CODES.get(state, 0))
        reward.append(np.nan if value is None else value)
    return (np.array(hi, dtype=np.uint64), np.array(lo, dtype=np.uint64), np.array(status, dtype=np.uint8),
            np.array(reward, dtype=np.float32))


def _merge(pieces: list[tuple[np.ndarray, ...]], other: dict) -> DoneKeys:
    """All blocks sorted by key, keeping each key's last row in file order (both sorts are stable)."""
    dtypes = (np.uint64, np.uint64, np.uint8, np.float32)
    columns = [np.concatenate([piece[i] for piece in pieces]) if pieces else np.array([], dtype=dtypes[i])
               for i in range(4)]
    pieces.clear()
    order = np.argsort(columns[0], kind="stable")
    hi, lo = columns[0][order], columns[1][order]
    if ((hi[1:] == hi[:-1]) & (lo[1:] != lo[:-1])).any():  # two keys share a first half: sort by both
        order = np.lexsort((columns[1], columns[0]))
        hi, lo = columns[0][order], columns[1][order]
    columns = [hi, lo, columns[2][order], columns[3][order]]
    last = np.ones(len(hi), dtype=bool)
    last[:-1] = (hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1])
    return DoneKeys(*(column[last] for column in columns), other)
