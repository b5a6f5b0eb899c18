"""How the rollouts of one task are asked of the model: response cache first, then one request with
`n` = the number still missing (`model.n_per_request`), or one request each.

n per request (chat and completions APIs): the server samples the k answers from one shared prefill.
It falls back to one request per rollout, for the rest of the run, when the server refuses `n > 1`
(an HTTP 4xx for the n request that a single request of the same prompt does not get) or silently
returns fewer choices than asked. With a sampling seed set, each rollout keeps its own request: its
seed (seed + rollout_index) is part of its identity and one request carries one seed.
Without n, a task's repeats are queued one after another (task-major order), so a server's prefix
cache sees the same prompt back to back.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from typing import Any

from gym.model.client import Completion, ModelClient

log = logging.getLogger("gym.collect")

Member = tuple[int, "int | None", str]  # (rollout_index, seed, key)


class ModelCalls:
    def __init__(self, client: ModelClient, n_per_request: bool = False, cache: Any = None):
        self.client = client
        self.n_per_request = bool(n_per_request) and client.api in ("chat", "completions")
        self.cache = cache
        self.requests = 0
        self.n_requests = 0
        self._lock = threading.Lock()

    def groups(self, work: list[tuple[int, int, "int | None", str]]) -> list[tuple[int, list[Member]]]:
        """Work items (task, rollout, seed, key) grouped per task when one request may carry them all."""
        if not self.n_per_request and self.cache is None:
            return [(task, [(rollout, seed, key)]) for task, rollout, seed, key in work]
        grouped: dict[int, list[Member]] = {}
        for task, rollout, seed, key in work:
            grouped.setdefault(task, []).append((rollout, seed, key))
        if self.n_per_request:
            return list(grouped.items())
        return [(task, [member]) for task, members in grouped.items() for member in members]

    def complete(self, messages: list[dict], members: list[Member], offered: dict | None = None
                 ) -> list[tuple[Member, Completion, bool]]:
        """(member, completion, from_cache) for every member, in order; `offered` ({tools, tool_choice})
        goes with every request of a tool-calling task."""
        answered, unasked = self.complete_spread(messages, members, offered)
        for member in unasked:
            answered.append((member, self._ask_one(messages, member[1], offered), False))
            self._store(answered[-1:])
        order = {member[0]: i for i, member in enumerate(members)}
        return sorted(answered, key=lambda result: order[result[0][0]])

    def complete_spread(self, messages: list[dict], members: list[Member], offered: dict | None = None
                        ) -> tuple[list[tuple[Member, Completion, bool]], list[Member]]:
        """What the cache and one request with n answer, and the members left unasked when the group
        cannot go out as one request (n given up, or seeded rollouts): a pool of workers sends those
        one per worker instead of one after another. A single member is always asked."""
        out: dict[int, tuple[Member, Completion, bool]] = {}
        missing = []
        for member in members:
            hit = self.cache.get(member[2]) if self.cache is not None else None
            if hit is not None:
                out[member[0]] = (member, hit, True)
            else:
                missing.append(member)
        batchable = [m for m in missing if m[1] is None]
        if self.n_per_request and len(batchable) > 1:
            for member, completion in zip(batchable, self._ask_n(messages, batchable, offered)):
                if completion is not None:
                    out[member[0]] = (member, completion, False)
        if len(members) == 1 and missing and members[0][0] not in out:
            out[members[0][0]] = (members[0], self._ask_one(messages, members[0][1], offered), False)
        answered = [out[member[0]] for member in members if member[0] in out]
        self._store(answered)
        return answered, [member for member in missing if member[0] not in out]

    def _store(self, answered: list[tuple[Member, Completion, bool]]) -> None:
        if self.cache is not None:
            for member, completion, cached in answered:
                if not cached:
                    self.cache.put(member[2], completion)

    def _ask_one(self, messages: list[dict], seed: int | None, offered: dict | None = None) -> Completion:
        self._count(1)
        return self.client.complete(messages, seed=seed, **(offered or {}))

    def _ask_n(self, messages: list[dict], members: list[Member], offered: dict | None = None) -> list[Completion | None]:
        """One request for all members; None for the ones it did not answer (asked singly after)."""
        n = len(members)
        self._count(1, n=True)
        result = self.client.complete(messages, n=n, **(offered or {}))
        if result.status == "infra_error":
            return [replace(result) for _ in members]
        if result.status == "model_error":
            single = self._ask_one(messages, None, offered)
            if single.status == "ok":
                self._give_up_n(f"the server refused n={n} ({(result.error or '')[:120]})")
            return [single] + [None] * (n - 1)
        choices = result.choices or [result]
        if len(choices) < n:
            self._give_up_n(f"the server returned {len(choices)} choice(s) for n={n}")
        answered = [replace(choice, attempts=result.attempts, latency_s=result.latency_s, choices=None)
                    for choice in choices[:n]]
        return answered + [None] * (n - len(answered))

    def _give_up_n(self, why: str) -> None:
        with self._lock:
            if self.n_per_request:
                self.n_per_request = False
                log.warning("model.n_per_request: %s; one request per rollout from now on", why)

    def _count(self, requests: int, n: bool = False) -> None:
        with self._lock:
            self.requests += requests
            self.n_requests += int(n)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model_requests": self.requests, "n_per_request": self.n_per_request,
                               "requests_with_n": self.n_requests}
        if self.cache is not None:
            out["cache"] = self.cache.summary()
        return out


def model_time_lines(summary: dict[str, Any]) -> list[str]:
    """Summary lines on what the model was asked: requests, cache, adaptive repeats, concurrency=auto."""
    parts = [f"model requests {summary['model_requests']}"]
    if summary.get("requests_with_n"):
        parts.append(f"{summary['requests_with_n']} with n > 1")
    if summary.get("cache"):
        parts.append(f"cache hits {summary['cache']['hits']}")
        if summary["cache"].get("judge_hits") or summary["cache"].get("judge_misses"):
            parts.append(f"judge cache hits {summary['cache']['judge_hits']}")
    lines = ["; ".join(parts)]
    adaptive = summary.get("adaptive")
    if adaptive:
        lines.append(f"adaptive repeats: {adaptive['rollouts_wanted']} rollouts for {adaptive['fixed_run_rollouts']} "
                     f"in a fixed run ({adaptive['saving']}x fewer)")
    auto = summary.get("concurrency") or {}
    if auto.get("mode") == "auto":
        lines.append(f"concurrency=auto settled at {auto['settled']} in flight (peak {auto['peak']}, "
                     f"max {auto['max']}, {auto['decreases']} decreases)")
    return lines
