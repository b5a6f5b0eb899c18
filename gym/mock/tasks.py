"""The prepared rows gym's reference server answers, and the index that finds a prompt's row.

A prompt is matched to a prepared row because the rendered prompt contains the row's `question`
verbatim. Rows are indexed by a short, rare run of words from inside the question, so a lookup costs
O(words in the prompt) dictionary probes whatever the number of rows; candidates are confirmed by a
substring check.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from gym.core.errors import GymError
from gym.mock.tool_answers import is_tool_row

ANCHOR_WORDS = 8  # words per index key; long enough to be rare, short enough for short questions
_CANDIDATES_PER_ROW = 8  # windows considered when picking a row's rarest anchor

def unit_draw(*parts: object) -> float:
    """A uniform number in [0, 1) fixed by `parts` (stable across processes, unlike hash())."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


@dataclass(frozen=True)
class Task:
    question: str
    expected_answer: str
    options: tuple[str, ...]  # option letters, for multiple choice
    code_row: dict | None = field(default=None, compare=False, hash=False)  # code tasks are answered with a program
    answer_template: str | None = None  # a row's own answer format, e.g. "(({answer}))", added as a last line
    tool_row: dict | None = field(default=None, compare=False, hash=False)  # tool-calling tasks: answered with calls


def load_rows(paths: Iterable[str | Path]) -> list[dict]:
    """Read prepared JSONL files; every row needs a string `question` and `expected_answer`."""
    from gym.core.io import iter_jsonl

    rows: list[dict] = []
    for path in paths:
        for line, row in iter_jsonl(path):
            episode = isinstance(row.get("task"), dict)  # an episode row (gym.mock.episodes): no single answer
            for key in ("question",) if episode else ("question", "expected_answer"):
                if not isinstance(row.get(key), (str, int, float)) or isinstance(row.get(key), bool):
                    raise GymError(f"{path}:{line}: prepared row needs a '{key}' string")
            rows.append(row)
    return rows


class TaskIndex:
    """Map prompt text to the prepared row whose question it contains."""

    def __init__(self, rows: Sequence[dict]):
        self.tasks: list[Task] = []
        self._exact: dict[str, list[int]] = {}  # stripped question -> rows (prompt that is just the question)
        self._by_width: dict[int, dict[tuple[str, ...], list[int]]] = {}
        windows_per_row: list[list[tuple[str, ...]]] = []
        frequency: Counter[tuple[str, ...]] = Counter()
        for number, row in enumerate(rows):
            options = row.get("options") if isinstance(row.get("options"), dict) else {}
            code_row = row if "canonical_solution" in row or "unit_tests" in row else None
            template = row.get("answer_template") if isinstance(row.get("answer_template"), str) else None
            task = Task(str(row["question"]), str(row["expected_answer"]).strip(), tuple(map(str, options)), code_row,
                        template, row if is_tool_row(row) else None)
            self.tasks.append(task)
            self._exact.setdefault(task.question.strip(), []).append(number)
            windows = _candidate_windows(task.question.split())
            windows_per_row.append(windows)
            frequency.update(set(windows))
        for number, windows in enumerate(windows_per_row):
            if not windows:
                continue
            anchor = min(windows, key=lambda window: frequency[window])  # first of the rarest
            self._by_width.setdefault(len(anchor), {}).setdefault(anchor, []).append(number)
        self._golds: dict[tuple[bool, bool], list[str]] = {}
        for gold in sorted({task.expected_answer for task in self.tasks}):
            self._golds.setdefault(_shape_of(gold), []).append(gold)

    def __len__(self) -> int:
        return len(self.tasks)

    def find(self, prompt: str, rank: Callable[[int], tuple] | None = None) -> int | None:
        """Row index of the question in `prompt`; the one ending last wins (few-shot examples come first).
        Rows with the same question (BFCL asks one question with different functions) are told apart by
        `rank` (highest wins), else the first wins."""
        exact = self._exact.get(prompt.strip())
        if exact is not None:
            return _first(exact, rank)
        words = prompt.split()
        candidates: set[int] = set()
        for width, table in self._by_width.items():
            for start in range(len(words) - width + 1):
                hit = table.get(tuple(words[start : start + width]))
                if hit:
                    candidates.update(hit)
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
