"""Open sessions: one episode's state each, bounded in number and in idle time.

Ids are unguessable (`secrets.token_urlsafe`, 128 bits). Each session holds its own state (an
environment's `reset` deep-copies the domain's data for every episode), so two trainers' episodes of one
task never see each other's writes. At `max_sessions` a new one is refused (`SessionsFull`, a 429) rather
than an old one dropped; a session unused for `ttl` seconds is closed by the next sweep (each open runs
one, and a reaper thread runs one every few seconds), so a client that disappears mid-episode leaks
nothing. The store is an ordered dict by last use: a sweep pops from the old end only.

A client's `/close` is idempotent, as NeMo Gym's: its gymnasium_agent, told by `/reset` that the server
`supports_explicit_close`, closes every episode when it is done or fails (a model error, a cancelled
rollout), episodes the server closed already included (ended by their last `/step`, or expired); the ids
of the last `max_sessions` closed sessions are kept to answer those (`already_closed`) rather than 404.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from typing import Any, Callable

from gym.serve.catalog import RequestError


class SessionsFull(RequestError):
    def __init__(self, limit: int, ttl: float):
        super().__init__(f"too many open sessions (serve.max_sessions={limit}): close one with /close or /verify, "
                         f"or wait for idle ones to expire (serve.session_ttl={ttl:g}s)", 429)


class Sessions:
    def __init__(self, max_sessions: int, ttl: float, clock: Callable[[], float] = time.monotonic):
        self.max_sessions, self.ttl, self.clock = int(max_sessions), float(ttl), clock
        self._open: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        self._closed: OrderedDict[str, None] = OrderedDict()  # the last max_sessions closed ids, oldest first
        self._lock = threading.Lock()
        self.opened = self.closed = self.expired = self.refused = 0
        self._stop = threading.Event()

    def __len__(self) -> int:
        return len(self._open)

    def open(self, value: Any) -> str:
        with self._lock:
            gone = self._sweep()
            full = len(self._open) >= self.max_sessions
            if full:
                self.refused += 1
            else:
                sid = secrets.token_urlsafe(16)
                self._open[sid] = (self.clock(), value)
                self.opened += 1
        for old in gone:
            _release(old)
        if full:
            _release(value)  # refused: what the new session holds goes too
            raise SessionsFull(self.max_sessions, self.ttl)
        return sid

    def get(self, sid: Any, benchmark: str | None = None) -> Any:
        with self._lock:
            entry = self._open.get(sid) if isinstance(sid, str) else None
            if entry is None:
                raise RequestError(_unknown(sid), 404)
            self._open[sid] = (self.clock(), entry[1])
            self._open.move_to_end(sid)
            value = entry[1]
        if benchmark is not None and getattr(value, "benchmark", benchmark) != benchmark:
            raise RequestError(f"session {sid[:6]}... belongs to {value.benchmark}, not {benchmark}", 404)
        return value

    def close(self, sid: Any) -> Any:
        with self._lock:
            value = self._pop(sid)
        _release(value)
        return value

    def close_by_client(self, sid: Any) -> dict[str, bool]:
        """A client's /close: an open session closes; one closed already (its episode ended, it expired, or
        this client closed it) is said to be so; an id never opened here is a 404."""
        with self._lock:
            if isinstance(sid, str) and sid in self._closed:
                return {"closed": False, "already_closed": True}
            value = self._pop(sid)
        _release(value)
        return {"closed": True, "already_closed": False}

    def _pop(self, sid: Any) -> Any:
        entry = self._open.pop(sid, None) if isinstance(sid, str) else None
        if entry is None:
            raise RequestError(_unknown(sid), 404)
        self.closed += 1
        self._remember(sid)
        return entry[1]

    def _remember(self, sid: str) -> None:
        self._closed[sid] = None
        while len(self._closed) > max(1, self.max_sessions):
            self._closed.popitem(last=False)

    def sweep(self) -> int:
        with self._lock:
            gone = self._sweep()
        for value in gone:
            _release(value)
        return len(gone)

    def _sweep(self) -> list[Any]:
        """Expired sessions, dropped from the store (their resources are released by the caller, unlocked)."""
        gone, limit = [], self.clock() - self.ttl
        while self._open:
            sid, (used, value) = next(iter(self._open.items()))
            if used > limit:
                break
            del self._open[sid]
            self._remember(sid)
            gone.append(value)
        self.expired += len(gone)
        return gone

    def start_reaper(self, every: float | None = None) -> None:
        period = every if every is not None else max(0.05, min(5.0, self.ttl / 4))

        def reap() -> None:
            while not self._stop.wait(period):
                self.sweep()

        threading.Thread(target=reap, name="gym-serve-sessions", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def summary(self) -> dict[str, int]:
        return {"open": len(self._open), "max_sessions": self.max_sessions, "opened": self.opened,
                "closed": self.closed, "expired": self.expired, "refused": self.refused}


def _release(value: Any) -> None:
    """A closed or expired session gives back what it holds (a container task's container)."""
    release = getattr(value, "release", None)
    if callable(release):
        release()


def _unknown(sid: Any) -> str:
    if not sid:
        return "missing session: start one with /seed_session or /reset (its session_id, or the cookie it sets)"
    return f"unknown session {str(sid)[:6]}...: closed, expired or never opened"
