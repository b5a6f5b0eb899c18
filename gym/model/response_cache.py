"""A response cache shared across runs and benchmarks (`cache.dir`): a rerun with the same settings
makes no model calls.

Replies are stored under the rollout's resume key (prepared data, prompt, sampling, model id,
rollout index, judge), so a reply is only reused for exactly the rollout it was generated for; any
change of prompt, sampling or model is a miss. Only replies a resume would keep are stored (`ok` and
`model_error`); `infra_error` is never cached.

Storage: one SQLite file `<dir>/responses.sqlite` in WAL mode. Several processes (a joblib sweep) and
threads may read and write it at once: SQLite's locking serialises the writers, each write is one
short transaction, and a writer that finds the database busy waits (busy_timeout) instead of failing.
A crash leaves at most the last uncommitted reply out, never a corrupt file.

Judge replies are cached too (CachedJudge), under a hash of everything the judge request holds (judge
model, API, sampling, seed, messages): a resumed or re-verified rollout whose judge prompt is unchanged
gets its verdict without a judge call. Only replies that can carry a verdict are kept (a refusal, an
empty or cut reply is asked again). They are counted apart from the policy's replies.

Size cap (`cache.max_mb`): when the stored replies exceed it, the least recently used ones are deleted
down to 90 % of the cap (checked on open and every `CHECK_EVERY` writes).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import sqlite3
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gym.model.client import Completion
from gym.core.errors import GymError
from gym.toolcalls import ToolCall

log = logging.getLogger("gym.cache")
CACHED_STATUSES = ("ok", "model_error")
CHECK_EVERY = 500  # writes between size checks
JUDGE_PREFIX = "judge:"  # keys of judge replies (policy replies are keyed by their rollout key)
_FIELDS = ("status", "text", "reasoning", "finish_reason", "usage", "error", "latency_s", "tool_calls", "tool_problems",
           "tokens")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    reply TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS responses_used ON responses (used);
"""


def open_cache(knobs: dict[str, Any] | None, stack: Any) -> "ResponseCache | None":
    """The cache the `cache` knobs' `dir` names (closed when `stack` exits), or None when caching is off."""
    knobs = knobs or {}
    if not knobs.get("dir"):
        return None
    cache = ResponseCache(knobs["dir"], knobs.get("max_mb", 10_000))
    stack.callback(cache.close)
    log.info("response cache: %s", cache.path)
    return cache


class ResponseCache:
    """get(key) -> Completion | None; put(key, completion). Thread-safe; safe across processes."""

    def __init__(self, directory: str | Path, max_mb: float = 10_000):
        self.path = Path(directory).expanduser() / "responses.sqlite"
        if max_mb is None or float(max_mb) <= 0:
            raise GymError(f"cache.max_mb={max_mb} must be a positive number of megabytes")
        self.max_bytes = int(float(max_mb) * 1024 * 1024)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = self._connect()
        except (OSError, sqlite3.Error) as exc:
            raise GymError(f"cache.dir: cannot open the response cache {self.path}: {exc}") from None
        self._lock = threading.Lock()
        self._writes = 0
        self.hits = self.misses = self.stored = self.evicted = 0
        self.judge_hits = self.judge_misses = 0
        self._enforce_cap()

    def _connect(self, patience: float = 60.0) -> sqlite3.Connection:
        """One connection shared by collect's threads behind a lock (SQLite serialises writes anyway).
        Processes opening one cache together (a sweep's jobs) may find the switch to WAL or the schema
        locked: SQLite answers that at once instead of waiting on the busy timeout, so it is tried again."""
        deadline = time.monotonic() + patience
        while True:
            db = sqlite3.connect(self.path, timeout=60, check_same_thread=False, isolation_level=None)
            try:
                db.execute("PRAGMA busy_timeout = 60000")
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a crash may drop the last writes, never corrupts
                db.executescript(_SCHEMA)
                return db
            except sqlite3.OperationalError as exc:
                db.close()
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(random.uniform(0.01, 0.1))

    def get(self, key: str) -> Completion | None:
        judge = key.startswith(JUDGE_PREFIX)
        with self._lock:
            row = self._run("SELECT reply FROM responses WHERE key = ?", (key,)).fetchone()
            if judge:
                self.judge_hits += row is not None
                self.judge_misses += row is None
            else:
                self.hits += row is not None
                self.misses += row is None
            if row is None:
                return None
            self._run("UPDATE responses SET used = ? WHERE key = ?", (time.time(), key))
        fields = json.loads(row[0])
        completion = Completion(**{name: fields.get(name) for name in _FIELDS}, attempts=0, from_cache=True)
        if completion.tool_calls is not None:
            completion.tool_calls = [ToolCall.from_row(call) for call in completion.tool_calls]
        return completion

    def put(self, key: str, completion: Completion) -> None:
        if completion.status not in CACHED_STATUSES:
            return
        fields = asdict(completion)
        if completion.tool_calls is not None:
            fields["tool_calls"] = [call.to_row() for call in completion.tool_calls]
        reply = json.dumps({name: fields[name] for name in _FIELDS}, ensure_ascii=False)
        with self._lock:
            self._run("INSERT OR REPLACE INTO responses (key, reply, bytes, used) VALUES (?, ?, ?, ?)",
                      (key, reply, len(reply.encode("utf-8")), time.time()))
            self.stored += 1
            self._writes += 1
            due = self._writes % CHECK_EVERY == 0
        if due:
            self._enforce_cap()

    def size_bytes(self) -> int:
        with self._lock:
            return int(self._run("SELECT COALESCE(SUM(bytes), 0) FROM responses").fetchone()[0])

    def _enforce_cap(self) -> None:
        total = self.size_bytes()
        if total <= self.max_bytes:
            return
        target = int(self.max_bytes * 0.9)
        with self._lock:
            removed = freed = 0
            self._run("BEGIN IMMEDIATE")
            try:
                for key, size in self._run("SELECT key, bytes FROM responses ORDER BY used").fetchall():
                    if total - freed <= target:
                        break
                    self._run("DELETE FROM responses WHERE key = ?", (key,))
                    freed += size
                    removed += 1
                self._run("COMMIT")
            except BaseException:
                self._run("ROLLBACK")
                raise
            self.evicted += removed
        log.info("response cache over %d MB: evicted %d least recently used replies", self.max_bytes >> 20, removed)

    def _run(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, args)
        except sqlite3.Error as exc:
            raise GymError(f"response cache {self.path}: {exc}") from None

    def summary(self) -> dict[str, Any]:
        return {"path": str(self.path), "hits": self.hits, "misses": self.misses, "stored": self.stored,
                "evicted": self.evicted, "judge_hits": self.judge_hits, "judge_misses": self.judge_misses}

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedJudge:
    """A judge client that answers from the cache when the same judge request was answered before."""

    def __init__(self, client: Any, cache: ResponseCache) -> None:
        self.client, self.cache = client, cache
        self.model = client.model

    def key(self, messages: list[dict[str, str]], seed: int | None) -> str:
        request = {"model": self.client.model, "api": self.client.api, "sampling": self.client.sampling,
                   "seed": seed, "messages": messages}
        digest = hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode("utf-8"))
        return JUDGE_PREFIX + digest.hexdigest()

    def complete(self, messages: list[dict[str, str]], seed: int | None = None) -> Completion:
        key = self.key(messages, seed)
        completion = self.cache.get(key)
        if completion is None:
            completion = self.client.complete(messages, seed=seed)
            if usable_judge_reply(completion):
                self.cache.put(key, completion)
        return completion


def usable_judge_reply(completion: Completion) -> bool:
    """Only a judge reply that can carry a verdict is kept: a refusal, an empty reply or one cut at
    max_tokens makes the rollout infra_error, which a resume must ask the judge again."""
    return completion.status == "ok" and bool((completion.text or "").strip()) and completion.finish_reason != "length"
