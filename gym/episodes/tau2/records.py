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
from typing import Any

REQUIRED = object()  # a field without a default


class Record(dict):
    """A database record: dumped as it stands in tool outputs (a model's dump in upstream's terms)."""


@dataclass(frozen=True)
class Shape:
    """A record type: its fields in declaration order with their defaults (REQUIRED when none)."""

    name: str
    fields: tuple[tuple[str, Any], ...]

    def make(self, data: dict, where: str) -> Record:
        unknown = set(data) - {name for name, _ in self.fields}
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {sorted(unknown)} for {self.name}")
        out = Record()
        for name, default in self.fields:
            if name in data:
                out[name] = data[name]
            elif default is REQUIRED:
                raise ValueError(f"{where}: {self.name} lacks the field '{name}'")
            else:
                out[name] = copy.deepcopy(default)
        return out


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


def db_hash(db: dict | None) -> str | None:
    if db is None:
        return None
    return hashlib.sha256(json.dumps(db, sort_keys=True, default=str).encode()).hexdigest()
