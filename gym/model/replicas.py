"""Several replicas of one model (`model.base_url=[http://node1:8000/v1,http://node2:8000/v1]`).

Each request attempt goes to the least-loaded replica (fewest requests in flight for its share of the
concurrency; ties go to the one used least). A replica whose requests fail `fail_after` times in a row
(connection errors, timeouts, 5xx) is set aside and tried again after a cool-down that doubles each
time it fails again (up to `max_cooldown`); its work goes to the others meanwhile, and a failed attempt
that another replica can take is sent there at once. When every replica is set aside, the one due back
first is tried. Which replica answered is not part of a rollout's identity (gym.rollouts.row): replicas
serve the same model.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("gym.model.replicas")


@dataclass
class Replica:
    base_url: str
    in_flight: int = 0
    requests: int = 0
    errors: int = 0
    latency_s: float = 0.0  # summed over answered attempts
    answered: int = 0
    failures_in_a_row: int = 0
    set_aside: int = 0  # times it was set aside
    back_at: float = 0.0  # monotonic time it may be tried again (0: in service)
    cooldown: float = 0.0
    limiter: Any = None  # concurrency=auto: this replica's own gym.model.concurrency.AdaptiveLimit
    last_error: str | None = field(default=None, repr=False)

    def summary(self) -> dict[str, Any]:
        out = {"base_url": self.base_url, "requests": self.requests, "errors": self.errors,
               "mean_latency_s": round(self.latency_s / self.answered, 4) if self.answered else None,
               "set_aside": self.set_aside}
        if self.limiter is not None:
            out["concurrency"] = self.limiter.summary()
        return out


class ReplicaPool:
    def __init__(self, base_urls: list[str], fail_after: int = 3, cooldown: float = 5.0, max_cooldown: float = 120.0,
                 clock: Any = time.monotonic):
        if not base_urls:
            raise ValueError("a replica pool needs at least one base_url")
        self.replicas = [Replica(url) for url in base_urls]
        self.fail_after, self.first_cooldown, self.max_cooldown = fail_after, cooldown, max_cooldown
        self._clock = clock
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.replicas)

    def acquire(self) -> Replica:
        """The replica for the next attempt, counted in flight until `release`."""
        now = self._clock()
        with self._lock:
            ready = [r for r in self.replicas if r.back_at <= now]
            if ready:
                replica = min(ready, key=lambda r: (r.in_flight / _share(r), r.requests))
            else:  # all set aside: the one due back first gets this attempt
                replica = min(self.replicas, key=lambda r: r.back_at)
            replica.in_flight += 1
            replica.requests += 1
            return replica

    def release(self, replica: Replica, failed: bool, latency_s: float = 0.0, error: str | None = None) -> bool:
        """Record an attempt's outcome; True when another replica is in service to take a failed attempt."""
        with self._lock:
            replica.in_flight -= 1
            if not failed:
                replica.failures_in_a_row, replica.back_at, replica.cooldown = 0, 0.0, 0.0
                replica.answered += 1
                replica.latency_s += latency_s
                return False
            replica.errors += 1
            replica.failures_in_a_row += 1
            replica.last_error = error
            if replica.failures_in_a_row >= self.fail_after and replica.back_at <= self._clock():
                self._set_aside(replica)
                log.warning("replica %s set aside for %gs after %d failures in a row (latest: %s)", replica.base_url,
                            replica.cooldown, replica.failures_in_a_row, (error or "")[:160])
            now = self._clock()
            return any(r is not replica and r.back_at <= now for r in self.replicas)

    def set_aside(self, replica: Replica, error: str) -> None:
        """Take a replica out of service now (it did not answer at start); tried again after its cool-down."""
        with self._lock:
            replica.last_error = error
            self._set_aside(replica)

    def _set_aside(self, replica: Replica) -> None:
        replica.cooldown = min(self.max_cooldown, replica.cooldown * 2 or self.first_cooldown)
        replica.back_at = self._clock() + replica.cooldown
        replica.set_aside += 1

    def summary(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.summary() for r in self.replicas]


def _share(replica: Replica) -> float:
    """How many requests in flight a replica takes: its concurrency=auto limit, else an equal share."""
    return float(replica.limiter.limit) if replica.limiter is not None else 1.0


def replica_lines(replicas: list[dict[str, Any]]) -> list[str]:
    """Summary lines: per replica, requests, errors, mean latency and times set aside."""
    if len(replicas) < 2:
        return []
    parts = []
    for r in replicas:
        latency = "-" if r["mean_latency_s"] is None else f"{r['mean_latency_s']:.3f}s"
        aside = f", set aside {r['set_aside']}x" if r["set_aside"] else ""
        parts.append(f"{r['base_url']} {r['requests']} requests, {r['errors']} errors, {latency}{aside}")
    return ["replicas: " + "; ".join(parts)]
