"""One exception type for every user-facing failure: printed as one line, never as a traceback."""

from __future__ import annotations

import difflib
from typing import Iterable


class GymError(Exception):
    """A problem the user can fix; the message is the whole story."""

    exit_code = 2


class TaskNotSent(Exception):
    """A task this run cannot pose (e.g. an episode task without a ticket in solo mode): collect leaves it
    out and counts it under the message, which says why."""


def did_you_mean(name: str, choices: Iterable[str], n: int = 3) -> str:
    """' (did you mean a, b?)' or '' when nothing is close."""
    close = difflib.get_close_matches(name, sorted(choices), n=n, cutoff=0.5)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def unknown_benchmark(name: str, choices: Iterable[str]) -> GymError:
    choices = list(choices)
    hint = did_you_mean(name, choices)
    if not hint:
        hint = " (see `python -m gym task=search` for the list)"
    return GymError(f"unknown benchmark '{name}'{hint}")


