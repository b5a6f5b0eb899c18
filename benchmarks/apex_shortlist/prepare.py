"""MathArena Apex Shortlist 2025 (MathArena/apex-shortlist): 49 hard final-answer problems picked from
2025 competitions, answers in LaTeX.

Upstream parquet (MathArena/apex-shortlist, train split) columns: problem_idx (int64), answer (string),
source (string, the competition it comes from), problem (string). Prepared rows:

    {"question": <problem>, "expected_answer": "\\frac{1}{2}",
     "metadata": {"problem_idx": 1, "source": "SMT 2025", "source_index": 0}}
"""

from __future__ import annotations

from pathlib import Path

from gym.data import prepare_matharena

URL = "https://huggingface.co/datasets/MathArena/apex-shortlist/resolve/main/data/train-00000-of-00001.parquet"


def prepare(ctx) -> Path:
    return prepare_matharena(ctx, URL, ("source", "problem_type"))
