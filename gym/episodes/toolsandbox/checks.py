"""ToolSandbox's argument checks (upstream's common/validators.py) and its search filters (common/utils.py),
with upstream's messages, so a tool fails the way upstream's does."""

from __future__ import annotations

import inspect
from functools import wraps
from typing import Any, Callable

from rapidfuzz import fuzz, process, utils

from gym.episodes.toolsandbox.world import NoDataError


class NotGiven:
    """An argument the caller left out (upstream's NOT_GIVEN sentinel)."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()
NOT_GIVEN_NAME = "tool_sandbox.common.utils.NotGiven"  # how upstream's annotations print it

# An annotation as (accepted python types, how upstream prints it in a TypeError)
STR = ((str,), "<class 'str'>")
FLOAT = ((float,), "<class 'float'>")
INT = ((int,), "<class 'int'>")
BOOL = ((bool,), "<class 'bool'>")
OPT_STR = ((str, type(None)), "typing.Optional[str]")
OPT_FLOAT = ((float, type(None)), "typing.Optional[float]")
OPT_INT = ((int, type(None)), "typing.Optional[int]")
MAYBE_STR = ((str, NotGiven), f"typing.Union[str, {NOT_GIVEN_NAME}]")
MAYBE_FLOAT = ((float, NotGiven), f"typing.Union[float, {NOT_GIVEN_NAME}]")
MAYBE_BOOL = ((bool, NotGiven), f"typing.Union[bool, {NOT_GIVEN_NAME}]")
MAYBE_OPT_FLOAT = ((float, type(None), NotGiven), f"typing.Union[float, NoneType, {NOT_GIVEN_NAME}]")


def validate_type(value: Any, name: str, expected: tuple) -> None:
    types, shown = expected
    if type(value) in types or (isinstance(value, int) and float in types) or (
            isinstance(value, bool) and (int in types or float in types)):
        return
    raise TypeError(f"Parameter '{name}' is of type '{type(value)}', but expected '{shown}'.")


def typechecked(**annotations: tuple) -> Callable:
    """Check the arguments given against their annotations (upstream's @typechecked)."""
    def wrap(function: Callable) -> Callable:
        names = list(inspect.signature(function).parameters)

        @wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            for name, value in [*zip(names, args), *kwargs.items()]:
                if name in annotations:
                    validate_type(value, name, annotations[name])
            return function(*args, **kwargs)
        return checked
    return wrap


def validate_range(value: Any, name: str, low: float | None, high: float | None) -> None:
    if low is not None and value < low:
        raise ValueError(f"Parameter '{name}' is smaller than its valid range minimum of {low}.")
    if high is not None and value > high:
        raise ValueError(f"Parameter '{name}' is larger than its valid range maximum of {high}.")


def validate_type_range(value: Any, name: str, expected: tuple, low: float, high: float) -> None:
    validate_type(value, name, expected)
    if isinstance(value, (float, int)):
        validate_range(value, name, low, high)


def validate_timestamp(value: Any, name: str, expected: tuple) -> None:
    validate_type_range(value, name, expected, 315529200.0, 2524604400.0)  # 1980-01-01 .. 2050-01-01


def validate_latitude(value: Any, name: str, expected: tuple) -> None:
    validate_type_range(value, name, expected, -90.0, 90.0)


def validate_longitude(value: Any, name: str, expected: tuple) -> None:
    validate_type_range(value, name, expected, -180.0, 180.0)


def validate_phone_number(phone_number: Any) -> None:
    if phone_number is not NOT_GIVEN:
        import phonenumbers

        phonenumbers.parse(phone_number)


# ---- search filters over a snapshot's rows
def exact(rows: list[dict], column: str, value: Any) -> list[dict]:
    return [r for r in rows if r[column] is not None and r[column] == value]


def at_least(rows: list[dict], column: str, value: Any) -> list[dict]:
    return [r for r in rows if r[column] is not None and r[column] >= value]


def at_most(rows: list[dict], column: str, value: Any) -> list[dict]:
    return [r for r in rows if r[column] is not None and r[column] <= value]


def fuzzy(rows: list[dict], column: str, value: Any, threshold: int = 90) -> list[dict]:
    """rapidfuzz's process.extract as upstream calls it (WRatio, default_process, at most 5, best first)."""
    matches = process.extract(query=value, choices=[r[column] for r in rows], processor=utils.default_process,
                              scorer=fuzz.WRatio, score_cutoff=threshold)
    return [rows[m[-1]] for m in matches]


def filter_rows(rows: list[dict], criteria: list[tuple[str, Any, Callable]]) -> list[dict]:
    if all(value is NOT_GIVEN for _, value, _ in criteria):
        raise ValueError("No search criteria are given. At least one search criteria should be provided among "
                         f"{tuple(name for name, _, _ in criteria)}")
    for column, value, method in criteria:
        if value is not NOT_GIVEN:
            rows = method(rows, column, value)
    return [dict(r) for r in rows]


def one_row(rows: list[dict], column: str, value: Any, label: str) -> dict:
    found = [r for r in rows if r[column] == value]
    if not found:
        raise NoDataError(f"No db entry matching {label}={value!r} found")
    if len(found) > 1:
        from gym.episodes.toolsandbox.world import DuplicateError

        raise DuplicateError(f"More than 1 entry with {label}={value!r} found")
    return dict(found[0])
