"""Helpers for tests that call benchmarks' prepare scripts directly."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from gym.config import compose
from gym.download import PrepareContext
from gym.paths import BENCHMARKS_DIR
from gym.tasks.prepare import load_script


@cache
def script(name: str):
    """The benchmark's prepare module (imported by path: `math-500` is no module name)."""
    return load_script(BENCHMARKS_DIR / name / "prepare.py")


@cache
def config(name: str):
    return compose([f"benchmark={name}"]).benchmark


def make_ctx(name: str, tmp_path: Path, mirror: str, **kwargs) -> PrepareContext:
    return PrepareContext(name=name, output_path=tmp_path / name / f"{name}.jsonl", mirror=mirror,
                          offline=False, retries=0, progress=False, **kwargs)
