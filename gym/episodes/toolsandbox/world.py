"""ToolSandbox's world: the message log and the databases with their whole history (upstream's ExecutionContext).

Every message of the conversation (system, user, agent, execution environment) is a row of the SANDBOX
table, numbered by `sandbox_message_index`. The other databases (SETTING, CONTACT, MESSAGING, REMINDER)
keep one snapshot per index at which they changed: a tool run while answering message k writes the
snapshot k+1, the index of the answer it produces, so the state at any point of the conversation can be
read back (the milestones are matched against those snapshots). Rows are plain dicts over the columns
of SCHEMAS; a snapshot is read as the most recent one at or before the index asked for.
"""

from __future__ import annotations

import bisect
import copy
import uuid
from dataclasses import dataclass, field

SANDBOX, SETTING, CONTACT, MESSAGING, REMINDER = "SANDBOX", "SETTING", "CONTACT", "MESSAGING", "REMINDER"
NAMESPACES = (SANDBOX, SETTING, CONTACT, MESSAGING, REMINDER)
SYSTEM, USER, AGENT, EXECUTION_ENVIRONMENT = "SYSTEM", "USER", "AGENT", "EXECUTION_ENVIRONMENT"

# Column -> kind (str | bool | float | int | list): upstream's polars schemas, sandbox_message_index aside.
SCHEMAS: dict[str, dict[str, str]] = {
    SANDBOX: {"sender": "enum", "recipient": "enum", "content": "str", "openai_tool_call_id": "str",
              "openai_function_name": "str", "conversation_active": "bool", "tool_call_exception": "str",
              "tool_trace": "list", "visible_to": "list"},
    SETTING: {"device_id": "str", "cellular": "bool", "wifi": "bool", "location_service": "bool",
              "low_battery_mode": "bool", "latitude": "float", "longitude": "float"},
    CONTACT: {"person_id": "str", "name": "str", "phone_number": "str", "relationship": "str", "is_self": "bool"},
    MESSAGING: {"message_id": "str", "sender_person_id": "str", "sender_phone_number": "str",
                "recipient_person_id": "str", "recipient_phone_number": "str", "content": "str",
                "creation_timestamp": "float"},
    REMINDER: {"reminder_id": "str", "content": "str", "creation_timestamp": "float",
               "reminder_timestamp": "float", "latitude": "float", "longitude": "float"},
}


class NoDataError(Exception):
    """No row matched (upstream raises polars.exceptions.NoDataError)."""


class DuplicateError(Exception):
    """A second self contact or a duplicate id (polars.exceptions.DuplicateError upstream)."""


def full_row(namespace: str, row: dict) -> dict:
    return {column: row.get(column) for column in SCHEMAS[namespace]}


@dataclass
class World:
    """One scenario's world; `now` is the frozen clock every tool reads (the scenario file's)."""

    now: float
    messages: list[dict] = field(default_factory=list)
    snapshots: dict[str, list[tuple[int, list[dict]]]] = field(default_factory=dict)
    ids_made: int = 0

    @classmethod
    def start(cls, now: float, messages: list[dict], databases: dict[str, list[dict]]) -> "World":
        world = cls(now=now)
        world.messages = [dict(full_row(SANDBOX, m), sandbox_message_index=i) for i, m in enumerate(messages)]
        world.snapshots = {ns: [(0, [full_row(ns, r) for r in databases.get(ns, [])])]
                           for ns in NAMESPACES if ns != SANDBOX}
        return world

    def copy(self) -> "World":
        return copy.deepcopy(self)

    # ---- reading
    @property
    def max_index(self) -> int:
        return len(self.messages) - 1

    def _position(self, namespace: str, index: int) -> int:
        indices = [i for i, _ in self.snapshots[namespace]]
        return max(bisect.bisect(indices, index) - 1, 0)

    def rows(self, namespace: str, index: int | None = None) -> list[dict]:
        """The snapshot at `index` (the latest, index None): the most recent one no later than it."""
        if index is None:
            index = self.max_index + 1
        if namespace == SANDBOX:
            if not self.messages:
                return []
            position = min(max(index, 0), self.max_index)
            return [{k: v for k, v in self.messages[position].items() if k != "sandbox_message_index"}]
        return self.snapshots[namespace][self._position(namespace, index)][1]

    def snapshot_index(self, namespace: str, index: int) -> int:
        """Which snapshot `rows(namespace, index)` reads (a cache key: equal keys, equal rows)."""
        if namespace == SANDBOX:
            return min(max(index, 0), self.max_index)
        return self.snapshots[namespace][self._position(namespace, index)][0]

    @property
    def first_user_index(self) -> int:
        """The first message the user sent that is not a few-shot example (the starting world state)."""
        for m in self.messages:
            if m["sender"] == USER and m.get("visible_to") != [USER]:
                return m["sandbox_message_index"]
        return -1

    # ---- writing (by tools, while message max_index is being answered)
    def _current(self, namespace: str) -> list[dict]:
        target = self.max_index + 1
        history = self.snapshots[namespace]
        if history[-1][0] != target:
            history.append((target, copy.deepcopy(history[self._position(namespace, target - 1)][1])))
        return history[-1][1]

    def add(self, namespace: str, rows: list[dict]) -> None:
        for row in rows:
            if all(row.get(c) is None for c in SCHEMAS[namespace]):
                raise ValueError("Cannot add row with all None values. All None values are reserved for headguard")
        self._current(namespace).extend(full_row(namespace, r) for r in copy.deepcopy(rows))

    def remove(self, namespace: str, column: str, value) -> None:
        current = self._current(namespace)
        kept = [r for r in current if r.get(column) != value]
        if len(kept) == len(current):  # upstream prints its polars predicate (30 characters, then an address)
            predicate = f'[([(col("{column}")) == (String'[:30]
            raise NoDataError(f"No db entry matching predicate=<Expr ['{predicate}…'] at 0x{id(self):X}> found")
        current[:] = kept

    def replace(self, namespace: str, rows: list[dict]) -> None:
        self._current(namespace)[:] = [full_row(namespace, r) for r in rows]

    def add_message(self, **fields) -> dict:
        """Append a SANDBOX row; conversation_active carries over when not given, as upstream."""
        row = full_row(SANDBOX, fields)
        if row["conversation_active"] is None:
            row["conversation_active"] = self.messages[-1]["conversation_active"] if self.messages else True
        if row["visible_to"] is None:
            row["visible_to"] = [row["sender"], row["recipient"]]
        row["sandbox_message_index"] = len(self.messages)
        self.messages.append(row)
        return row

    def new_id(self) -> str:
        """A fresh id for a contact, message or reminder: deterministic per world (upstream draws uuid4)."""
        self.ids_made += 1
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"toolsandbox-id-{self.ids_made}"))
