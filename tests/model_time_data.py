"""Synthetic prepared tasks (arithmetic word problems written here) for the collect-side tests of
adaptive repeats, n per request, the response cache and adaptive concurrency."""

from __future__ import annotations

import json
from pathlib import Path


def write_tasks(data_dir: Path, count: int, benchmark: str = "gsm8k") -> Path:
    path = data_dir / benchmark / f"{benchmark}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"question": f"Task {i}: a shelf holds {i} books and {i % 9 + 2} boxes. How many items are on it?",
             "expected_answer": str(i + i % 9 + 2)} for i in range(count)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
