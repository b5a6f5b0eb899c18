"""The prepared rows gym's reference server answers, and the index that finds a prompt's row.

A prompt is matched to a prepared row because the rendered prompt contains the row's `question`
verbatim. Rows are indexed by a short, rare run of words from inside the question (its anchor), so a
lookup costs O(words in the prompt) probes whatever the number of rows; candidates are confirmed by a
substring check. The index holds 64-bit hashes in sorted arrays (12 bytes a row) and reads a row back
only when a request needs it (gym.mock.rows), so a million prepared rows cost tens of megabytes; how rare
a run of words is comes from a count-min sketch over every row's candidate runs.
"""

from __future__ import annotations

import hashlib
import json
import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from gym.mock.substeps import SubStepIndex
from gym.mock.tool_answers import is_tool_row

ANCHOR_WORDS = 8  # words per index key; long enough to be rare, short enough for short questions
_CANDIDATES_PER_ROW = 8  # windows considered when picking a row's rarest anchor
_SKETCH_BITS = 21  # count-min sketch: 2 rows of 2**21 counters
_CHUNK = 65_536  # rows whose anchors are picked at a time
_GOLDS_KEPT = 100_000  # distinct gold answers kept for plausible wrong answers (a stable sample beyond)

def unit_draw(*parts: object) -> float:
    """A uniform number in [0, 1) fixed by `parts` (stable across processes, unlike hash())."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


@dataclass(frozen=True)
class Task:
    question: str
    expected_answer: str
    options: tuple[str, ...]  # option letters, for multiple choice
    answer_template: str | None = None  # a row's own answer format, e.g. "(({answer}))", added as a last line
    tool_row: dict | None = field(default=None, compare=False, hash=False)  # tool-calling tasks: answered with calls


class _Tasks:
    """Task views of the rows by number, made when asked (a few thousand recent ones cached)."""

    def __init__(self, rows: Sequence[dict]):
        self.rows = rows
        self._cache: OrderedDict[int, Task] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, number: int) -> Task:
        with self._lock:
            task = self._cache.get(number)
            if task is not None:
                self._cache.move_to_end(number)
                return task
        task = _task(self.rows[number])
        with self._lock:
            self._cache[number] = task
            if len(self._cache) > 8192:
                self._cache.popitem(last=False)
        return task


def _gold_text(row: dict) -> str:
    """The answer to give: the gold text; for a row graded against a list of gold strings (RULER's JSON
    list, with a match_type) the strings themselves, one a line, not their JSON (escaped quotes)."""
    gold = str(row["expected_answer"]).strip()
    if "match_type" in row and gold.startswith("["):
        try:
            golds = json.loads(gold)
        except json.JSONDecodeError:
            return gold
        if isinstance(golds, list) and golds and all(isinstance(g, str) for g in golds):
            return "\n".join(golds)
    return gold


def _task(row: dict) -> Task:
    options = row.get("options") if isinstance(row.get("options"), dict) else {}
    template = row.get("answer_template") if isinstance(row.get("answer_template"), str) else None
    return Task(str(row["question"]), _gold_text(row), tuple(map(str, options)), template,
                row if is_tool_row(row) else None)


class TaskIndex:
    """Map prompt text to the prepared row whose question it contains."""

    def __init__(self, rows: Sequence[dict]):
        self.tasks = _Tasks(rows)
        self.sub_steps = SubStepIndex()  # SciCode's steps, found by their function header
        hashes, marks, exact = array("q"), array("b"), array("q")  # one pass over the rows, then arrays only
        golds: set[str] = set()
        for row in rows:
            self.sub_steps.add(row)
            windows = _candidate_windows(str(row["question"]).split())
            hashes.extend(hash(window) for window in windows)
            marks.append(len(windows[0]) if windows else 0)  # per window: its row's width first, then -1s
            marks.extend([-1] * (len(windows) - 1))
            exact.append(hash(str(row["question"]).strip()))
            golds.add(str(row["expected_answer"]).strip())
            if len(golds) > 2 * _GOLDS_KEPT:
                golds = _stable_sample(golds)
        self._exact = _table(np.frombuffer(exact, dtype=np.int64), np.arange(len(exact), dtype=np.int32))
        self._by_width = _anchors(np.frombuffer(hashes, dtype=np.int64), np.frombuffer(marks, dtype=np.int8))
        self._golds: dict[tuple[bool, bool], list[str]] = {}
        for gold in sorted(_stable_sample(golds) if len(golds) > _GOLDS_KEPT else golds):
            self._golds.setdefault(_shape_of(gold), []).append(gold)

    def __len__(self) -> int:
        return len(self.tasks)

    def find(self, prompt: str, rank: Callable[[int], tuple] | None = None) -> int | None:
        """Row index of the question in `prompt`; the one ending last wins (few-shot examples come first).
        Rows with the same question (BFCL asks one question with different functions) are told apart by
        `rank` (highest wins), else the first wins."""
        stripped = prompt.strip()
        exact = [n for n in _lookup(self._exact, [hash(stripped)]) if self.tasks[n].question.strip() == stripped]
        if exact:
            return _first(exact, rank)
        words = prompt.split()
        candidates: set[int] = set()
        for width, table in self._by_width.items():
            if len(words) >= width:
                candidates.update(_lookup(table, [hash(tuple(words[s : s + width]))
                                                  for s in range(len(words) - width + 1)]))
        best: list[int] = []
        best_key = (-1, -1)
        for number in sorted(candidates):
            question = self.tasks[number].question
            position = prompt.rfind(question)
            key = (position + len(question), len(question))
            if position >= 0 and key > best_key:
                best, best_key = [number], key
            elif position >= 0 and key == best_key:
                best.append(number)
        return _first(best, rank) if best else None

    def other_gold(self, gold: str, draw: float) -> str | None:
        """Another expected answer of the same shape from the data (a plausible wrong free-text answer)."""
        pool = self._golds.get(_shape_of(gold), [])
        others = [g for g in pool if g != gold] if len(pool) < 64 else pool
        for attempt in range(8):
            choice = others[int(unit_draw(draw, attempt) * len(others))] if others else None
            if choice is not None and choice != gold:
                return choice
        return None


def _anchors(hashes: np.ndarray, marks: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per anchor width, the (hash, row) table of each row's rarest candidate window (the first of the
    rarest). `marks` holds, per window, its row's width at the row's first window and -1 after it; a row
    without words has one 0 mark and no window. Worked in chunks of rows, so memory stays small."""
    firsts = np.flatnonzero(marks >= 0)  # each row's first mark
    has_windows = marks[firsts] > 0
    numbers = np.arange(len(firsts), dtype=np.int32)[has_windows]
    if not len(numbers):
        return {}
    empty_before = np.cumsum(~has_windows) - ~has_windows  # rows without windows before each row
    starts = (firsts - empty_before)[has_windows]  # each row's first window in `hashes`
    ends = np.append(starts[1:], len(hashes))
    sketch = np.zeros((2, 1 << _SKETCH_BITS), dtype=np.uint32)  # count-min: how many rows hold a window
    for low in range(0, len(hashes), _CHUNK * _CANDIDATES_PER_ROW):
        for side, slot in enumerate(_slots(hashes[low : low + _CHUNK * _CANDIDATES_PER_ROW])):
            sketch[side] += np.bincount(slot, minlength=1 << _SKETCH_BITS).astype(np.uint32)
    picks = np.empty(len(starts), dtype=np.int64)
    for row in range(0, len(starts), _CHUNK):
        first, last = starts[row : row + _CHUNK], ends[row : row + _CHUNK]
        chunk = hashes[first[0] : last[-1]]
        slots = _slots(chunk)
        rarity = np.minimum(sketch[0][slots[0]], sketch[1][slots[1]])
        least = np.minimum.reduceat(rarity, first - first[0])
        at_least = np.flatnonzero(rarity == np.repeat(least, last - first))
        picks[row : row + _CHUNK] = at_least[np.searchsorted(at_least, first - first[0])] + first[0]
    widths = marks[firsts][has_windows]
    return {int(width): _table(hashes[picks[widths == width]], numbers[widths == width])
            for width in np.unique(widths)}


def _slots(hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mask = (1 << _SKETCH_BITS) - 1
    return hashes & mask, (hashes >> 32) & mask


def _table(keys: np.ndarray, numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted hashes, row numbers) for lookups by hash; equal hashes keep row order."""
    order = np.argsort(keys, kind="stable")
    return keys[order], numbers[order]


def _lookup(table: tuple[np.ndarray, np.ndarray], hashes: list[int]) -> list[int]:
    keys, numbers = table
    probe = np.array(hashes, dtype=np.int64)
    left, right = np.searchsorted(keys, probe, "left"), np.searchsorted(keys, probe, "right")
    found: list[int] = []
    for lo, hi in zip(left[left < right].tolist(), right[left < right].tolist()):
        found += numbers[lo:hi].tolist()
    return found


def _stable_sample(golds: set[str]) -> set[str]:
    """The _GOLDS_KEPT golds with the lowest stable hash: the same sample in every process."""
    return set(sorted(golds, key=lambda gold: unit_draw("gold", gold))[:_GOLDS_KEPT])


def _shape_of(gold: str) -> tuple[bool, bool]:
    """Coarse kind of an answer (has digits, is one character) so wrong answers look like right ones."""
    return any(ch.isdigit() for ch in gold), len(gold) == 1


def _candidate_windows(words: list[str]) -> list[tuple[str, ...]]:
    """Up to a few word runs from inside a question; the first and last word are avoided when possible
    because a template may glue punctuation to them."""
    if len(words) <= ANCHOR_WORDS:
        return [tuple(words)] if words else []
    first, last = (1, len(words) - ANCHOR_WORDS - 1) if len(words) >= ANCHOR_WORDS + 2 else (0, len(words) - ANCHOR_WORDS)
    span = last - first
    steps = min(_CANDIDATES_PER_ROW, span + 1)
    starts = sorted({first + round(span * k / max(steps - 1, 1)) for k in range(steps)})
    return [tuple(words[s : s + ANCHOR_WORDS]) for s in starts]


def _first(numbers: list[int], rank: Callable[[int], tuple] | None) -> int:
    if rank is not None and len(numbers) > 1:
        return max(numbers, key=lambda number: (rank(number), -number))
    return numbers[0]
