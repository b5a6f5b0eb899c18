"""The banking_knowledge domain's database: tables of records with notes, queried and changed as upstream.

Upstream's TransactionalDB is a model of named tables, each {"data": {id: record}, "notes": str}; every
table exists (empty when db.json lacks it), and the whole model is what the DB check hashes. `BankDB`
is that dict plus what an episode keeps outside the hash, as upstream's toolkit keeps it in memory: the
agent tools unlocked so far and the read tools whose calls are logged (the task's gold calls). Record
ids are upstream's deterministic ids (sha256 prefixes of fixed seed strings); the day is fixed
(2025-11-14), as upstream fixes it for every scenario.
"""

from __future__ import annotations

import hashlib
import json
import operator
from typing import Any

from gym.core.errors import GymError

TABLES = ("users", "accounts", "debit_cards", "referrals", "credit_card_applications", "user_discoverable_tools",
          "user_discoverable_tool_calls", "verification_history", "credit_card_transaction_history",
          "cash_back_disputes", "bank_account_transaction_history", "credit_card_accounts",
          "agent_discoverable_tools", "task_config", "human_transfer_requests", "transaction_disputes",
          "credit_card_orders", "debit_card_orders", "credit_card_closure_reasons", "credit_card_account_flags",
          "credit_limit_increase_requests", "payment_history", "debit_card_disputes")
# the tables upstream's query tool knows, in its order (its error message lists them)
QUERYABLE = ("users", "accounts", "referrals", "credit_card_applications", "user_discoverable_tools",
             "user_discoverable_tool_calls", "agent_discoverable_tools", "task_config", "verification_history",
             "credit_card_transaction_history", "cash_back_disputes", "bank_account_transaction_history",
             "credit_card_accounts", "human_transfer_requests", "transaction_disputes", "credit_card_orders",
             "credit_card_closure_reasons", "credit_card_account_flags", "debit_cards", "debit_card_orders",
             "debit_card_disputes", "credit_limit_increase_requests", "payment_history")
TODAY = "11/14/2025"
NOW_ISO = "2025-11-14T03:40:00"


class BankDB(dict):
    """table name -> {"data", "notes"}; `unlocked` and `read_log` live beside the hashed tables."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.unlocked: set[str] = set()  # agent tools unlocked in this episode
        self.read_log: set[str] = set()  # read tools whose calls are logged (set per task)
        self.catalog: dict = {}  # side -> discoverable tool -> its description (from the domain file)
        self.kb: Any = None  # the knowledge base's index (gym.episodes.tau2.banking.kb)
        self.dense: Any = None  # its embeddings, in the alltools form (gym.episodes.tau2.banking.dense)


def normalize(data: dict, where: str) -> BankDB:
    unknown = sorted(set(data) - set(TABLES))
    if unknown:
        raise GymError(f"{where}: unknown banking tables {unknown} (gym knows {', '.join(TABLES)})")
    db = BankDB()
    for name in TABLES:
        table = data.get(name) or {}
        db[name] = {"data": dict(table.get("data") or {}), "notes": table.get("notes") or ""}
    return db


def table(db: dict, name: str) -> dict:
    """A table's records, the episode's own copy (see gym.episodes.tau2.cow)."""
    return db[name]["data"]


RECORD_NAMES = {"accounts": "Account", "debit_cards": "Debit card", "credit_card_accounts": "Credit card account"}


def find(db: dict, name: str, key: Any, what: str | None = None) -> tuple[dict | None, str | None]:
    """(the record `key` of table `name`, None), or (None, upstream's "Error: <what> '<key>' not found.")."""
    records = table(db, name)
    if key not in records:
        return None, f"Error: {what or RECORD_NAMES[name]} '{key}' not found."
    return records[key], None


def deterministic_id(seed: str, length: int = 16) -> str:
    return hashlib.sha256(seed.encode()).digest()[: length // 2].hex()


def add(db: dict, name: str, record_id: str, record: dict) -> bool:
    records = table(db, name)
    if record_id in records:
        return False
    records[record_id] = record
    return True


def update(db: dict, name: str, record_id: str, changes: dict) -> dict | None:
    records = table(db, name)
    if record_id not in records:
        return None
    records[record_id].update(changes)
    return records[record_id]


OPERATORS = {
    "eq": operator.eq, "ne": operator.ne, "gt": operator.gt, "gte": operator.ge, "lt": operator.lt,
    "lte": operator.le, "contains": lambda a, b: b in a if a is not None else False,
    "startswith": lambda a, b: str(a).startswith(str(b)) if a is not None else False,
    "endswith": lambda a, b: str(a).endswith(str(b)) if a is not None else False,
    "in": lambda a, b: a in b, "nin": lambda a, b: a not in b,
}


def _matches(record: dict, constraints: dict) -> bool:
    for key, expected in constraints.items():
        name, op = key.rsplit("__", 1) if "__" in key else (key, "eq")
        try:
            if not OPERATORS.get(op, operator.eq)(record.get(name), expected):
                return False
        except (TypeError, ValueError):
            return False
    return True


def query(db: dict, name: str, constraints: dict) -> list[tuple[str, dict]]:
    return [(key, record) for key, record in db[name]["data"].items() if _matches(record, constraints)]


def query_text(db: dict, name: str, constraints: str = "{}") -> str:
    """Upstream's query_database_tool: the matching records as numbered text, or why there are none."""
    if name not in QUERYABLE:
        return f"Error: Database '{name}' not found. Available: {list(QUERYABLE)}"
    try:
        wanted = json.loads(constraints) if constraints else {}
    except json.JSONDecodeError as exc:
        return f"Error: Invalid JSON: {exc}"
    try:
        found = query(db, name, wanted)
    except Exception as exc:  # a constraint that is not an object, as upstream reports it
        return f"Error querying database: {exc}"
    if not found:
        return f"No records found in '{name}'."
    lines = [f"Found {len(found)} record(s) in '{name}':\n"]
    for number, (key, record) in enumerate(found, 1):
        lines.append(f"{number}. Record ID: {key}")
        lines.extend(f"   {field}: {value}" for field, value in record.items())
        lines.append("")
    return "\n".join(lines)


def by_field(db: dict, name: str, field: str, value: str) -> str:
    """query_text with one equality constraint, spelled as upstream builds it (a JSON text by hand)."""
    return query_text(db, name, '{"%s": "%s"}' % (field, value))


def one_argument(name: str, parameter: str, arguments: dict) -> str:
    """The single argument of a tool that takes one, refused in Python's words as upstream's method would."""
    for unexpected in set(arguments) - {parameter}:
        raise TypeError(f"{name}() got an unexpected keyword argument '{unexpected}'")
    if parameter not in arguments:
        raise TypeError(f"{name}() missing 1 required positional argument: '{parameter}'")
    return arguments[parameter]
