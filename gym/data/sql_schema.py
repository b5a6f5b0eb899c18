"""The schema text shown to text-to-SQL models, read from the SQLite database itself."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from gym.core.errors import GymError


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    return "'" + str(value).replace("'", "''")[:200] + "'"


def schema_text(db_path: Path, sample_rows: int) -> str:
    """CREATE statements of every table, each followed by up to `sample_rows` INSERT examples."""
    connection = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    connection.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    try:
        parts = []
        tables = connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL "
                                    "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
        for name, create in tables:
            parts.append(create.strip() + ";")
            quoted = '"' + name.replace('"', '""') + '"'
            for row in connection.execute(f"SELECT * FROM {quoted} LIMIT ?", (sample_rows,)).fetchall():
                parts.append(f"INSERT INTO {quoted} VALUES ({', '.join(_literal(v) for v in row)});")
            parts.append("")
        return "\n".join(parts).strip()
    except sqlite3.Error as exc:
        raise GymError(f"{db_path}: unreadable SQLite database ({exc})") from None
    finally:
        connection.close()
