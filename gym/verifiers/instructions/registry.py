"""The checker registry and the typed view of an instruction's kwargs.

A checker is `fn(response, args) -> bool`, registered under its instruction id with `@check(id)`.
`args` reads the instruction's kwargs (null values already dropped) and the task prompt; a missing or
malformed argument raises BadArgs, which the verifier reports as a data problem of that instruction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Checker = Callable[[str, "Args"], bool]
CHECKS: dict[str, Checker] = {}

RELATIONS = ("less than", "at least")


class BadArgs(ValueError):
    """An instruction's kwargs do not give the checker what it needs."""


def check(instruction_id: str) -> Callable[[Checker], Checker]:
    def register(fn: Checker) -> Checker:
        if instruction_id in CHECKS:
            raise RuntimeError(f"instruction id {instruction_id} registered twice")
        CHECKS[instruction_id] = fn
        return fn
    return register


COMPAT = ("fixed", "reference")


class Args:
    """An instruction's kwargs plus the prompt, with typed accessors, and the compat mode: "fixed" (gym's
    corrected rules) or "reference" (the published checkers' behaviour where gym deliberately differs)."""

    __slots__ = ("kwargs", "prompt", "compat")

    def __init__(self, kwargs: Mapping[str, Any] | None, prompt: str = "", compat: str = "fixed") -> None:
        self.kwargs = {str(k): v for k, v in (kwargs or {}).items() if v is not None}
        self.prompt = prompt
        self.compat = compat

    @property
    def reference(self) -> bool:
        return self.compat == "reference"

    def _get(self, name: str) -> Any:
        if name not in self.kwargs:
            raise BadArgs(f"missing argument '{name}'")
        return self.kwargs[name]

    def has(self, name: str) -> bool:
        return name in self.kwargs

    def int(self, name: str, minimum: int = 0) -> int:
        value = self._get(name)
        # JSON exports of the data sets sometimes carry counts as floats (5.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) != int(value):
            raise BadArgs(f"argument '{name}' must be an integer, got {value!r}")
        if int(value) < minimum:
            raise BadArgs(f"argument '{name}' must be >= {minimum}, got {value!r}")
        return int(value)

    def number(self, name: str) -> float:
        value = self._get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadArgs(f"argument '{name}' must be a number, got {value!r}")
        return float(value)

    def text(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str) or not value.strip():
            raise BadArgs(f"argument '{name}' must be a non-empty string, got {value!r}")
        return value

    def texts(self, name: str) -> list[str]:
        value = self._get(name)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
            raise BadArgs(f"argument '{name}' must be a list of non-empty strings, got {value!r}")
        return value

    def relation(self, name: str) -> str:
        value = self._get(name)
        if value not in RELATIONS:
            raise BadArgs(f"argument '{name}' must be one of {', '.join(RELATIONS)}, got {value!r}")
        return str(value)


def compare(actual: float, relation: str, threshold: float) -> bool:
    return actual < threshold if relation == "less than" else actual >= threshold
