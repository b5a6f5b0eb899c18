"""Argument checks with the messages upstream's pydantic models give.

τ²'s tools build pydantic models from the arguments a model sends (a flight's number and date, a
passenger, a payment, a whole reservation); a bad value answers "Error: <pydantic's message>". gym keeps
plain dicts, so it re-states the few lax-mode rules those models use (str, int, float, Literal, a
required field) and prints the message in pydantic's layout: "N validation error(s) for <Model>", then
per field its location, the message, [type=..., input_value=..., input_type=...] and the docs link of
the pydantic release upstream pins.
"""

from __future__ import annotations

import re
from typing import Any

PYDANTIC_DOCS = "https://errors.pydantic.dev/2.14/v/"  # the pydantic minor version upstream's lock file resolves
_INT_TEXT = re.compile(r"^\s*[+-]?\d+\s*$")
_FLOAT_TEXT = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")


class Invalid(Exception):
    """One field's failure: (message, pydantic error type)."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.message, self.kind = message, kind


def _as_str(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise Invalid("Input should be a valid string", "string_type")


def _as_int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise Invalid("Input should be a valid integer, got a number with a fractional part", "int_from_float")
    if isinstance(value, str):
        if _INT_TEXT.match(value):
            return int(value)
        raise Invalid("Input should be a valid integer, unable to parse string as an integer", "int_parsing")
    raise Invalid("Input should be a valid integer", "int_type")


def _as_float(value: Any) -> float:
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        if _FLOAT_TEXT.match(value):
            return float(value)
        raise Invalid("Input should be a valid number, unable to parse string as a number", "float_parsing")
    raise Invalid("Input should be a valid number", "float_type")


def literal(*allowed: str):
    """A Literal[...] field: the value must be one of `allowed`."""
    quoted = [repr(item) for item in allowed]
    text = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]

    def check(value: Any) -> str:
        if value in allowed and isinstance(value, str):
            return value
        raise Invalid(f"Input should be {text}", "literal_error")
    return check


KINDS = {"str": _as_str, "int": _as_int, "float": _as_float}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 50 else text[:25] + "..." + text[-24:]


def _line(field: str, message: str, kind: str, value: Any) -> str:
    return (f"{field}\n  {message} [type={kind}, input_value={_shown(value)}, input_type={type(value).__name__}]\n"
            f"    For further information visit {PYDANTIC_DOCS}{kind}")


def build(model: str, fields: tuple, data: Any) -> dict:
    """`data` checked against `fields` ((name, kind or check[, default]) in declaration order): the
    converted values (unknown keys dropped, as pydantic's default does), or ValueError with its message."""
    if not isinstance(data, dict):
        raise ValueError(f"1 validation error for {model}\n" + _line(model, "Input should be a valid dictionary",
                                                                    "dict_type", data))
    out, errors = {}, []
    for spec in fields:
        name, kind = spec[0], spec[1]
        if name not in data:
            if len(spec) > 2:
                out[name] = spec[2]
                continue
            errors.append(_line(name, "Field required", "missing", data))
            continue
        check = KINDS[kind] if isinstance(kind, str) else kind
        try:
            out[name] = check(data[name])
        except Invalid as exc:
            errors.append(_line(name, exc.message, exc.kind, data[name]))
    if errors:
        count = f"{len(errors)} validation error{'s' if len(errors) > 1 else ''}"
        raise ValueError(f"{count} for {model}\n" + "\n".join(errors))
    return out
