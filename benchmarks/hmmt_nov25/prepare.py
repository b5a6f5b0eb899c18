"""HMMT November 2025 (MathArena/hmmt_nov_2025): 30 problems from the November Harvard-MIT Mathematics
Tournament, answers in LaTeX; the same parquet layout and rows as hmmt_feb25 (see there)."""

from __future__ import annotations

from pathlib import Path

from gym.data import prepare_matharena

URL = "https://huggingface.co/datasets/MathArena/hmmt_nov_2025/resolve/main/data/train-00000-of-00001.parquet"


def prepare(ctx) -> Path:
    return prepare_matharena(ctx, URL)
