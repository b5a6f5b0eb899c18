"""Helpers for tests that call benchmarks' prepare scripts directly."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from gym.core.config import compose
from gym.data.prepare_context import PrepareContext
from gym.core.paths import BENCHMARKS_DIR
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


UPSTREAM = Path(__file__).resolve().parent / "fixtures" / "upstream"


def upstream_file(url: str) -> Path:
    """The committed fixture standing in for `url` (mirror layout: <host>/<path>)."""
    parts = urlsplit(url)
    return UPSTREAM / parts.netloc / parts.path.lstrip("/")


def local_mirror(tmp_path: Path, files: dict[str, bytes]) -> str:
    """A mirror directory holding `files` (url -> content)."""
    root = tmp_path / "mirror"
    for url, content in files.items():
        parts = urlsplit(url)
        target = root / parts.netloc / parts.path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    return str(root)


def fixture_builder():
    """tools/make_fixtures.py as a module."""
    return load_script(UPSTREAM.parents[2] / "tools" / "make_fixtures.py")
