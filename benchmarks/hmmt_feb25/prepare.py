"""HMMT February 2025 (MathArena/hmmt_feb_2025): 30 problems from the Harvard-MIT Mathematics
Tournament, answers in LaTeX (fractions, radicals, expressions).

Upstream parquet (MathArena/hmmt_feb_2025, train split) columns: problem_idx (int64), problem (string),
answer (string, LaTeX), problem_type (list of strings). Prepared rows:

    {"question": <problem>, "expected_answer": "\\frac{9}{4}",
     "metadata": {"problem_idx": 1, "problem_type": ["Algebra"], "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path

from gym.data import prepare_matharena

URL = "https://huggingface.co/datasets/MathArena/hmmt_feb_2025/resolve/main/data/train-00000-of-00001.parquet"


def prepare(ctx) -> Path:
    return prepare_matharena(ctx, URL)
