"""AIME 2025 (MathArena/aime_2025): the 30 problems of AIME I and II 2025, integer answers 0-999.

Upstream parquet columns: problem_idx (int64), problem (string), answer (int64),
problem_type (list of strings). Prepared rows:

    {"question": <problem>, "expected_answer": "70",
     "metadata": {"problem_idx": 1, "problem_type": ["Number Theory"], "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path

from gym.data import prepare_matharena

URL = "https://huggingface.co/datasets/MathArena/aime_2025/resolve/main/data/train-00000-of-00001.parquet"


def prepare(ctx) -> Path:
    return prepare_matharena(ctx, URL)
