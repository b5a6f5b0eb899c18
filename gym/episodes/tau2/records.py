"""τ²-bench database conventions, re-stated for plain JSON dicts.

Upstream keeps each domain's database as pydantic models. gym keeps plain dicts and reproduces the three
things the models decide that are visible in scores and tool outputs:
* a record's fields, their order and their defaults (`normalize` with a `Shape`), because tool outputs
  are JSON dumps of records and the database hash covers every field;
* the tool-output text (`render`): strings as they are; anything else JSON-dumped, where a record is
  dumped as it stands while bare numbers and booleans outside records become strings, as upstream's
  `Environment.to_json_str` does;
* the database hash (`db_hash`): sha256 of the JSON with sorted keys (`default=str`).
Initial data is merged into a database recursively (dicts merge, anything else replaces), as upstream's
`update_pydantic_model_with_dict` does before re-validating.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable

REQUIRED = object()  # a field without a default


class Record(dict):
    """A database record: dumped as it stands in tool outputs (a model's dump in upstream's terms)."""


Convert = Callable[[Any, str], Any]


@dataclass(frozen=True)
class Shape:
    """A record type: its fields in declaration order, each (name, default or REQUIRED[, convert]).

    `make` is what constructing upstream's model does: defaults filled, numbers declared float made
    float, nested records made to their shapes. Assigning to a field later converts nothing, as in
    upstream (its models do not validate assignment)."""

    name: str
    fields: tuple[tuple, ...]

    def make(self, data: dict, where: str = "") -> Record:
        if not isinstance(data, dict):
            raise ValueError(f"{where}: {self.name} must be an object, got {type(data).__name__}")
        unknown = set(data) - {spec[0] for spec in self.fields}
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {sorted(unknown)} for {self.name}")
        out = Record()
        for spec in self.fields:
            name, default = spec[0], spec[1]
            convert = spec[2] if len(spec) > 2 else None
            if name in data:
                value = data[name]
                out[name] = convert(value, f"{where}.{name}") if convert is not None and value is not None else value
            elif default is REQUIRED:
                raise ValueError(f"{where}: {self.name} lacks the field '{name}'")
            else:
                out[name] = copy.deepcopy(default)
        return out

    def __call__(self, value: Any, where: str) -> Record:
        return self.make(value, where)


def to_float(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: expected a number, got {value!r}")
    return float(value)


def dict_of(convert: Convert) -> Convert:
    return lambda value, where: {key: convert(item, f"{where}.{key}") for key, item in value.items()}


def list_of(convert: Convert) -> Convert:
    return lambda value, where: [convert(item, f"{where}[{i}]") for i, item in enumerate(value)]


def one_of(field: str, shapes: dict[str, "Shape"]) -> Convert:
    """A tagged union: the shape named by the record's `field` (upstream's pydantic Union)."""
    def convert(value: Any, where: str) -> Record:
        tag = value.get(field) if isinstance(value, dict) else None
        if tag not in shapes:
            raise ValueError(f"{where}: {field}={tag!r} is not one of {', '.join(shapes)}")
        return shapes[tag].make(value, where)
    return convert


def normalize(data: dict, tables: dict[str, Shape], where: str) -> dict:
    """A database dict with every record of every table made to its shape (tables in declared order)."""
    unknown = set(data) - set(tables)
    if unknown:
        raise ValueError(f"{where}: unknown table(s) {sorted(unknown)}")
    return {table: {key: shape.make(record, f"{where} {table}.{key}")
                    for key, record in (data.get(table) or {}).items()}
            for table, shape in tables.items()}


def merge(base: Any, update: Any) -> Any:
    """`update` merged into a copy of `base`: dicts recursively, anything else replaced."""
    if isinstance(base, dict) and isinstance(update, dict):
        out = dict(base)
        for key, value in update.items():
            out[key] = merge(base[key], value) if key in base else copy.deepcopy(value)
        return out
    return copy.deepcopy(update)


def _plain(value: Any) -> Any:
    if isinstance(value, Record) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    raise ValueError(f"unsupported tool output type {type(value).__name__}")


def render(value: Any) -> str:
    """The text a tool output becomes (upstream's to_json_str)."""
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value), default=str)


def fresh_copy(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, Records, lists, scalars), several times faster than
    copy.deepcopy, which a database of thousands of records pays on every episode."""
    if isinstance(value, dict):
        return type(value)((key, fresh_copy(item)) for key, item in value.items())
    if isinstance(value, list):
        return [fresh_copy(item) for item in value]
    return value


def db_hash(db: dict | None) -> str | None:
    if db is None:
        return None
    return hashlib.sha256(json.dumps(db, sort_keys=True, default=str).encode()).hexdigest()
