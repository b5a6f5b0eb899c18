"""Episode databases that share the parsed copy until written (copy on write), and their hash.

A database of thousands of records costs tens of milliseconds to deep-copy and to hash, on every
episode. An episode's table is a `Table`: a dict whose records stay the parsed copy's own until the
episode fetches one by key (`table[key]`, `table.get(key)`), which first swaps in a private deep copy;
a record stored by key is the episode's own. Tools change only records they fetched by key (reading by
iteration is fine), which the parity tests and a test that replays every task and then compares the
parsed copy with the file hold. The hash is upstream's (sha256 of the sorted-key JSON), assembled from
each record's JSON text, cached for records still shared with the parsed copy.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from gym.episodes.tau2.records import fresh_copy

_texts: dict[int, tuple[Any, str]] = {}  # id(shared record) -> (record, its JSON text)
_lock = threading.Lock()


class Table(dict):
    """One table of an episode's database (copy on write; see the module docstring)."""

    __slots__ = ("owned", "shared")

    def __init__(self, records: dict, shared: bool = False):
        super().__init__(records)
        self.owned: set = set()  # keys whose record is this episode's own copy
        self.shared = shared  # records not owned are the long-lived parsed copy's (their JSON is cached)

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        if key not in self.owned:
            value = fresh_copy(value)
            dict.__setitem__(self, key, value)
            self.owned.add(key)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self.owned.add(key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]


def episode_db(db: dict | None, shared: bool) -> dict | None:
    """A database for one episode over `db` (the parsed copy when `shared`)."""
    if db is None:
        return None
    tables = {name: Table(table, shared) if isinstance(table, dict) else fresh_copy(table) for name, table in db.items()}
    return tables if type(db) is dict else type(db)(tables)  # a domain's own database type (telecom's Phone) kept


def _record_text(record: Any, cache: bool) -> str:
    if not cache:
        return json.dumps(record, sort_keys=True, default=str)
    hit = _texts.get(id(record))
    if hit is not None and hit[0] is record:
        return hit[1]
    text = json.dumps(record, sort_keys=True, default=str)
    with _lock:
        _texts[id(record)] = (record, text)
    return text


def table_hash(db: dict | None) -> str | None:
    """sha256 of json.dumps(db, sort_keys=True, default=str), without dumping shared records again."""
    if db is None:
        return None
    digest = hashlib.sha256(b"{")
    for number, name in enumerate(sorted(db)):
        table = db[name]
        if not isinstance(table, dict):  # a list table (telecom's) is small: dumped whole
            digest.update(((", " if number else "") + json.dumps(name) + ": "
                           + json.dumps(table, sort_keys=True, default=str)).encode())
            continue
        digest.update(((", " if number else "") + json.dumps(name) + ": {").encode())
        for count, key in enumerate(sorted(table)):
            record = dict.__getitem__(table, key)
            cache = isinstance(table, Table) and table.shared and key not in table.owned
            digest.update(((", " if count else "") + json.dumps(key) + ": " + _record_text(record, cache)).encode())
        digest.update(b"}")
    digest.update(b"}")
    return digest.hexdigest()
