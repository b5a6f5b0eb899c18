"""HMMT November 2025 (MathArena/hmmt_nov_2025): 30 problems from the November Harvard-MIT Mathematics
Tournament, answers in LaTeX.

Upstream parquet (MathArena/hmmt_nov_2025, train split) columns: problem_idx (int64), problem (string),
answer (string, LaTeX), problem_type (list of strings). Prepared rows:

    {"question": <problem>, "expected_answer": "\\sqrt{3}",
     "metadata": {"problem_idx": 1, "problem_type": ["Geometry"], "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path

from gym.converters import prepare_matharena

URL = "https://huggingface.co/datasets/MathArena/hmmt_nov_2025/resolve/main/data/train-00000-of-00001.parquet"


def prepare(ctx) -> Path:
    return prepare_matharena(ctx, URL)
