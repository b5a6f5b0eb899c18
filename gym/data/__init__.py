"""The data layer: the catalog, downloads, and the prepare-script API.

A benchmark's `prepare.py` (gym's own or a user's) imports its tools from here:

    from gym.data import GymError, PrepareContext, math_row, text_row

Names are loaded on first use, so importing gym.data.catalog (search, start-up) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

# The documented prepare-script API: name -> the module that defines it.
API = {
    "PrepareContext": "gym.data.prepare_context", "read_manifest": "gym.data.prepare_context",
    "text_row": "gym.data.converters", "math_row": "gym.data.converters", "prepare_math": "gym.data.converters",
    "prepare_parquet_files": "gym.data.converters", "joined_answers": "gym.data.converters",
    "unboxed": "gym.data.converters", "missing_text": "gym.data.converters", "stripped_text": "gym.data.converters",
    "GymError": "gym.core.errors",
}
__all__ = sorted(API)


def __getattr__(name: str) -> Any:
    if name not in API:
        raise AttributeError(f"module 'gym.data' has no attribute {name!r}")
    return getattr(importlib.import_module(API[name]), name)
