"""sql: text-to-SQL graded by execution on the task's SQLite database (stdlib sqlite3).

The predicted query is the last ```sql ... ``` block of the reply (one holding at least one letter),
with `--` line comments and `/* */` block comments removed. The reference strips `--` comments with a
pattern that, lacking multi-line mode, swallows everything after the first `--` to the end of the block;
gym removes each comment up to its own line end only. A reply without such a block gives no answer
(reward 0; the reference runs "SELECT 1" in its place, which scores the same).

Both the predicted and the gold query (row field `gold_sql`, else `expected_answer`) run on `<db_root>/<db_id>/<db_id>.sqlite`,
opened read-only (`mode=ro`, `PRAGMA query_only`, and an authorizer refusing ATTACH, PRAGMA writes and
any write), each within `timeout` seconds (a progress handler interrupts it) and reading at most
`max_rows` rows. Reward 1 when the two result sets are equal as sets of rows (order and duplicates
ignored), as the BIRD evaluator compares them.

Option `compare`: "set" (BIRD) as above, or "columns" (Spider 2.0): every gold column, or only the row's
`condition_cols`, must equal some predicted column (numbers within 0.01, NULL as 0, row order ignored
when the row's `ignore_order` is true), extra predicted columns allowed, against any of the row's gold
result sets (`gold_result`: a list of result sets, as the benchmark ships them) or the gold query's rows.

A gold query that fails, times out or exceeds the row cap says nothing about the model: it raises
VerifierError (status verifier_error, excluded from scores), where the reference scores the model 0.
"""

from __future__ import annotations

import math
import re
import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.verifiers.base import FamilyStats, Verdict, Verifier, VerifierError, details_of

_SQL_BLOCK = re.compile(r"```sql(.*?[a-zA-Z].*?)```", re.DOTALL)
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)
_DENIED = {sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH, sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE,
           sqlite3.SQLITE_DELETE, sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_DROP_TABLE,
           sqlite3.SQLITE_ALTER_TABLE, sqlite3.SQLITE_CREATE_INDEX, sqlite3.SQLITE_DROP_INDEX,
           sqlite3.SQLITE_CREATE_VIEW, sqlite3.SQLITE_DROP_VIEW, sqlite3.SQLITE_CREATE_TRIGGER,
           sqlite3.SQLITE_CREATE_TEMP_TABLE, sqlite3.SQLITE_CREATE_TEMP_VIEW}


def extract_sql(text: str | None) -> str | None:
    """The last ```sql block without comments and with whitespace squashed; None when there is none."""
    blocks = _SQL_BLOCK.findall(text or "")
    if not blocks:
        return None
    sql = " ".join(_COMMENTS.sub(" ", blocks[-1]).split())
    sql = re.sub(r"^\*\*.*?\*\*", "", sql).strip()
    return sql or None


class QueryFailed(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind  # error | timeout | row_cap


def _authorize(action: int, *args: Any) -> int:
    if action in _DENIED:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and args[1] is not None:  # a PRAGMA that sets a value
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def run_query(db_path: Path, sql: str, timeout: float, max_rows: int) -> list[tuple]:
    """Rows of `sql` on a read-only connection; raises QueryFailed (error, timeout or row_cap)."""
    try:
        connection = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, check_same_thread=False)
    except sqlite3.Error as exc:
        raise GymError(f"cannot open SQLite database {db_path} ({exc}); re-run task=prepare") from None
    deadline = time.monotonic() + timeout
    try:
        connection.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
        connection.execute("PRAGMA query_only = ON")
        connection.set_authorizer(_authorize)
        connection.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
        cursor = connection.execute(sql)
        rows = cursor.fetchmany(max_rows + 1)
        if len(rows) > max_rows:
            raise QueryFailed("row_cap", f"more than {max_rows} rows")
        return rows
    except sqlite3.OperationalError as exc:
        if time.monotonic() > deadline:
            raise QueryFailed("timeout", f"took longer than {timeout:g}s") from None
        raise QueryFailed("error", str(exc)) from None
    except (sqlite3.Error, ValueError, OverflowError) as exc:  # ValueError: e.g. two statements at once
        raise QueryFailed("error", str(exc)) from None
    finally:
        connection.close()


COMPARES = ("set", "columns")


def _number(value: Any) -> Any:
    """CSV text to int or float where it reads as one; NULL and NaN to 0 (as the Spider 2.0 evaluator)."""
    if isinstance(value, str):
        for kind in (int, float):
            try:
                value = kind(value)
                break
            except ValueError:
                continue
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return 0
    return value


def _same_vector(gold: list, predicted: list, ignore_order: bool, tolerance: float = 1e-2) -> bool:
    if len(gold) != len(predicted):
        return False
    if ignore_order:
        key = lambda x: (x is None, str(x), isinstance(x, (int, float)))  # noqa: E731 - the evaluator's order
        gold, predicted = sorted(gold, key=key), sorted(predicted, key=key)
    for x, y in zip(gold, predicted):
        numbers = isinstance(x, (int, float)) and isinstance(y, (int, float))
        if not (math.isclose(float(x), float(y), abs_tol=tolerance) if numbers else x == y):
            return False
    return True


def columns_match(gold: list[tuple], predicted: list[tuple], condition_cols: list[int] | None,
                  ignore_order: bool) -> bool:
    """Spider 2.0: every gold column (or only `condition_cols`) must equal some predicted column (values within
    0.01, NULL as 0, row order ignored when `ignore_order`); extra predicted columns are allowed."""
    if not gold or not predicted:
        return not gold and not predicted
    width = len(gold[0])
    columns = [i for i in (condition_cols or []) if isinstance(i, int) and 0 <= i < width] or list(range(width))
    gold_vectors = [[_number(row[i]) for row in gold] for i in columns]
    predicted_vectors = [[_number(row[j]) for row in predicted] for j in range(len(predicted[0]))]
    return all(any(_same_vector(g, p, ignore_order) for p in predicted_vectors) for g in gold_vectors)


class SQLVerifier(Verifier):
    family = "sql"
    OPTIONS = {"db_root": None, "timeout": 30.0, "max_rows": 100_000, "compare": "set"}

    @classmethod
    def mock_answer(cls, row: dict, prompt: str, final: str, correct: bool, opener: str) -> str | None:
        return f"{opener}\n\n```sql\n{final}\n```" if "```sql" in prompt else None

    @classmethod
    def family_metrics(cls, rows: list[dict], stats: FamilyStats) -> dict[str, Any]:
        """Counts of failure kinds (no_sql, error, timeout, row_cap, mismatch) and matches."""
        failures = Counter(details_of(r).get("failure") or "match" for r in rows if r["status"] == "ok")
        return {"outcomes": dict(sorted(failures.items()))}

    @classmethod
    def summary_line(cls, entry: dict[str, Any]) -> str:
        return "outcomes: " + ", ".join(f"{k} {v}" for k, v in entry["family_metrics"]["outcomes"].items())

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if not self.options["db_root"]:
            raise GymError("verifier 'sql': set option db_root to the folder holding <db_id>/<db_id>.sqlite")
        self.db_root = Path(str(self.options["db_root"])).expanduser()
        self.timeout = self.number_option("timeout", 0.001)
        self.max_rows = int(self.number_option("max_rows", 1, integer=True))
        self.compare = self.choice_option("compare", COMPARES)

    def db_path(self, row: dict) -> Path:
        db_id = str(row.get("db_id") or "")
        path = self.db_root / db_id / f"{db_id}.sqlite"
        if not db_id or "/" in db_id or not path.is_file():
            raise GymError(f"no SQLite database for db_id {db_id!r} at {path}; re-run task=prepare")
        return path

    def gold_sets(self, row: dict, path: Path, details: dict) -> list[list[tuple]]:
        """The gold result sets: the row's `gold_result` (a list of result sets) or the gold query's rows."""
        stored = row.get("gold_result")
        if isinstance(stored, list) and stored:
            return [[tuple(r) for r in result] for result in stored]
        gold_sql = str(row.get("gold_sql") or row.get("expected_answer") or "").strip()
        if not gold_sql:
            raise GymError("task row has neither gold_result nor gold_sql; re-run task=prepare for this benchmark")
        try:
            return [run_query(path, gold_sql, self.timeout, self.max_rows)]
        except QueryFailed as exc:
            raise VerifierError(f"gold SQL failed ({exc.kind}): {exc}", {**details, "gold_failure": exc.kind}) from None

    def verify(self, row: dict, response: str) -> Verdict:
        path = self.db_path(row)
        predicted = extract_sql(response)
        details: dict[str, Any] = {"family": "sql", "db_id": row.get("db_id"), "predicted_sql": predicted}
        if predicted is None:
            details["failure"] = "no_sql"
            return Verdict(0.0, None, details)
        gold_sets = self.gold_sets(row, path, details)
        try:
            predicted_rows = run_query(path, predicted, self.timeout, self.max_rows)
        except QueryFailed as exc:
            details.update(failure=exc.kind, error=str(exc))
            return Verdict(0.0, predicted, details)
        if self.compare == "set":
            match = any(set(predicted_rows) == set(gold) for gold in gold_sets)
        else:
            columns = row.get("condition_cols") or []
            per_set = columns if columns and all(isinstance(c, list) for c in columns) else [columns] * len(gold_sets)
            ignore_order = bool(row.get("ignore_order", True))
            match = any(columns_match(gold, predicted_rows, cols, ignore_order) for gold, cols in zip(gold_sets, per_set))
        details.update(failure=None if match else "mismatch", predicted_rows=len(predicted_rows),
                       gold_rows=[len(gold) for gold in gold_sets])
        return Verdict(1.0 if match else 0.0, predicted, details)
