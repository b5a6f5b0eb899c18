"""AIME 2026 (MathArena/aime_2026): the 30 problems of AIME I and II 2026, integer answers 0-999.

Upstream parquet (MathArena/aime_2026, train split) columns: problem_idx (int64), answer (int64),
problem (string). Prepared rows:

    {"question": <problem>, "expected_answer": "70",
     "metadata": {"problem_idx": 1, "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path

from gym.data import prepare_matharena

URL = "https://huggingface.co/datasets/MathArena/aime_2026/resolve/main/data/train-00000-of-00001.parquet"


def prepare(ctx) -> Path:
    return prepare_matharena(ctx, URL)
