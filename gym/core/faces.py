"""Lazy faces: a package that exports names defined in its modules, loading each module on first use.

A face is a module-level dict `FACE` (name -> the module that defines it) plus `__getattr__ =
lazy_getattr(__name__, FACE)`: importing the package stays cheap, and tests/project/test_architecture.py reads
`FACE` as imports, so a face obeys the layer order like any import.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_getattr(package: str, face: dict[str, str]) -> Callable[[str], Any]:
    """The package's `__getattr__`: a name of `face` from its module, anything else an AttributeError."""

    def __getattr__(name: str) -> Any:
        if name not in face:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(face[name]), name)

    return __getattr__
