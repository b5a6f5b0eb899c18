"""How many requests collect keeps in flight: a fixed number, or `concurrency=auto` (AIMD).

`auto` starts from a safe value and adapts like TCP congestion control:
  * slow start: until the first sign of overload, +1 per clean reply (the limit doubles per round trip);
  * additive increase: +1 after a full window of clean replies (as many as the current limit), i.e.
    about +1 per round trip while the endpoint keeps up; within 10 % of the limit where the endpoint
    last pushed back, +1 only every 8 windows, so the run stays just below it instead of probing it;
  * multiplicative decrease: × `decrease` on a 429 or 503 (the endpoint says it is overloaded), or when
    the smoothed latency climbs above `latency_tolerance` × the best latency seen, counted as at least
    50 ms (requests queue up inside the server); at most once per window, so one burst of rejections
    is one signal;
  * never below 1, never above `model.max_concurrency`.
The limit gates each HTTP attempt (a request waiting out a Retry-After holds no slot). The summary
reports the concurrency the run settled on: the time-weighted mean limit over the second half of the
run, with the peak and the number of decreases.
"""

from __future__ import annotations

import threading
import time
from typing import Any


OVERLOAD_STATUS = {429, 503}
LATENCY_FLOOR = 0.05  # seconds: latency is judged against max(best seen, this)


class AdaptiveLimit:
    """An AIMD limit on requests in flight; `acquire()` before an HTTP attempt, `release()` after."""

    def __init__(self, cap: int, start: int = 4, decrease: float = 0.75, latency_tolerance: float = 2.0):
        self.cap = max(1, int(cap))
        self.limit = float(min(start, self.cap))
        self.decrease = decrease
        self.latency_tolerance = latency_tolerance
        self.in_flight = 0
        self.peak = int(self.limit)
        self.decreases = 0
        self.overloads = 0
        self._clean = 0  # clean replies since the last change
        self._ceiling: float | None = None  # the limit at the last overload
        self.latency_cuts = 0
        self._epoch = 0  # bumped at each decrease: replies to requests sent before it are not new signals
        self._best_latency: float | None = None
        self._smoothed: float | None = None
        self._cond = threading.Condition()
        self._started = time.monotonic()
        self._history: list[tuple[float, float]] = [(self._started, self.limit)]  # (time, limit) at each change

    def acquire(self) -> int:
        """Wait for a free slot; returns the epoch to hand back to release()."""
        with self._cond:
            while self.in_flight >= int(self.limit):
                self._cond.wait()
            self.in_flight += 1
            return self._epoch

    def release(self, epoch: int, status: int | None, latency: float | None) -> None:
        """One attempt ended: `status` is the HTTP status (None for a transport failure)."""
        with self._cond:
            self.in_flight -= 1
            if status in OVERLOAD_STATUS:
                self.overloads += 1
                if epoch == self._epoch:
                    self._ceiling = self.limit
                self._cut(epoch)
            elif status is not None and status < 500 and latency is not None:
                self._observe_latency(epoch, latency)
            free = int(self.limit) - self.in_flight
            if free > 0:
                self._cond.notify(free)  # wake only as many waiting threads as there are slots

    def _observe_latency(self, epoch: int, latency: float) -> None:
        self._best_latency = latency if self._best_latency is None else min(self._best_latency, latency)
        self._smoothed = latency if self._smoothed is None else 0.9 * self._smoothed + 0.1 * latency
        # Below 50 ms, the client's own scheduling jitter (threads, GIL, a busy box) swamps server queueing.
        floor = max(self._best_latency, LATENCY_FLOOR)
        if self._smoothed > self.latency_tolerance * floor and self.limit > 1:
            if epoch == self._epoch:
                self.latency_cuts += 1
                self._cut(epoch)
                self._smoothed = floor  # judge the new limit afresh
            return
        self._clean += 1
        if not self.decreases and self.limit < self.cap:  # slow start
            self._set(min(self.cap, self.limit + 1))
        elif self._clean >= int(self.limit) * self._windows() and self.limit < self.cap:
            self._clean = 0
            self._set(min(self.cap, self.limit + 1))

    def _windows(self) -> int:
        """Clean windows per +1: 1, or 8 close below the last overload point."""
        return 8 if self._ceiling is not None and self.limit + 1 > 0.9 * self._ceiling else 1

    def _cut(self, epoch: int) -> None:
        if epoch != self._epoch:
            return  # sent before the last decrease: part of the same congestion event
        self._epoch += 1
        self._clean = 0
        self.decreases += 1
        self._set(max(1.0, self.limit * self.decrease))

    def _set(self, limit: float) -> None:
        self.limit = limit
        self.peak = max(self.peak, int(limit))
        self._history.append((time.monotonic(), limit))

    def settled(self) -> int:
        """Time-weighted mean limit over the second half of the run so far, as a whole count of requests."""
        with self._cond:
            now = time.monotonic()
            history = list(self._history)
        start = self._started + (now - self._started) / 2
        total = weight = 0.0
        for (t0, limit), (t1, _) in zip(history, history[1:] + [(now, 0.0)]):
            lo, hi = max(t0, start), min(t1, now)
            if hi > lo:
                total += int(limit) * (hi - lo)
                weight += hi - lo
        return round(total / weight) if weight else int(self.limit)

    def summary(self) -> dict[str, Any]:
        return {"mode": "auto", "settled": self.settled(), "final": int(self.limit), "peak": self.peak,
                "max": self.cap, "decreases": self.decreases, "latency_decreases": self.latency_cuts,
                "overload_replies": self.overloads}
