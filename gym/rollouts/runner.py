"""Running a collect's rollouts on a pool of worker threads, each landed rollout appended and flushed.

Work goes out in groups (one task's rollouts that one request with `n` may carry, gym.model.calls).
When a group's rollouts cannot go out as one request (the server stopped honouring `n`, or each rollout
has its own seed), its members come back unasked and go out again one per group, so they spread over
the workers instead of running one after another on one.
"""

from __future__ import annotations

import queue
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from gym.model.calls import Member, ModelCalls
from gym.model.client import BUDGET_ERROR

LIMIT_FLAGS = ("cut_at_max_tokens", "out_of_time", "empty", "no_answer")
WorkItem = tuple[int, int, "int | None", str]  # (task_index, rollout_index, seed, key)
# (task_index, (member, completion, from_cache) triples) -> rollout rows
MakeRows = Callable[[int, list], list[dict[str, Any]]]


@dataclass
class Tally:
    """What the landed rollouts add up to: statuses, limit flags, rewards."""
    counts: Counter = field(default_factory=Counter)
    limits: Counter = field(default_factory=Counter)  # cut at max_tokens / out of time, empty and answerless replies
    reward_sum: float = 0.0
    ran: int = 0
    seconds: float = 0.0

    def add(self, rollouts: list[dict[str, Any]]) -> None:
        for rollout in rollouts:
            self.counts[rollout["status"]] += 1
            self.limits.update(limit_flags(rollout))
            self.reward_sum += rollout["reward"] or 0.0
        self.ran += len(rollouts)

    @property
    def scored(self) -> int:
        return self.counts["ok"] + self.counts["model_error"]

    @property
    def accuracy(self) -> float | None:
        return round(100 * self.reward_sum / self.scored, 2) if self.scored else None

    def postfix(self) -> dict[str, Any]:
        return {"acc": f"{100 * self.reward_sum / self.scored:.1f}%" if self.scored else "-",
                "model_err": self.counts["model_error"], "infra_err": self.counts["infra_error"],
                "verifier_err": self.counts["verifier_error"]}


def limit_flags(rollout: dict[str, Any]) -> list[str]:
    flags = []
    if rollout["finish_reason"] == "length":
        flags.append("cut_at_max_tokens")
    if rollout["status"] == "infra_error" and str(rollout.get("error") or "").startswith(BUDGET_ERROR):
        flags.append("out_of_time")
    if rollout["status"] == "ok":
        if not (rollout.get("response") or "").strip() and not rollout.get("tool_calls"):
            flags.append("empty")
        elif rollout.get("extracted_answer") is None:
            flags.append("no_answer")
    return flags


class RolloutPool:
    """Runs work on `workers` threads. Work is pulled from `feed` (one list per task) only while fewer than
    `window` groups are queued or running, so what waits in memory stays bounded whatever the run's size."""

    def __init__(self, calls: ModelCalls, messages_of: Callable[[int], list[dict]], make_rows: MakeRows,
                 workers: int, offers_of: Callable[[int], dict | None] | None = None):
        self.calls = calls
        self.messages_of = messages_of
        self.offers_of = offers_of  # a tool-calling task's {tools, tool_choice}, sent with its requests
        self.make_rows = make_rows
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rollout")
        self.window = 2 * workers
        self.landed: queue.SimpleQueue = queue.SimpleQueue()
        self.outstanding = 0

    def run(self, feed: Iterator[list[WorkItem]], write: Callable[[dict[str, Any]], None], bar: Any, tally: Tally,
            on_landed: Callable[[list[dict[str, Any]]], list[WorkItem]]) -> None:
        """Until the feed is empty and every group has landed; `write(rollout)` appends a landed row (the rollouts
        file's, before anything else is done with it); `on_landed(rollouts)` returns more work (an adaptive
        run's next round)."""
        started = time.perf_counter()
        try:
            while self._fill(feed) or self.outstanding:
                try:
                    future = self.landed.get(timeout=1.0)
                except queue.Empty:
                    continue
                self.outstanding -= 1
                rollouts, unasked = future.result()
                self._submit(unasked)
                for rollout in rollouts:
                    write(rollout)
                tally.add(rollouts)
                bar.update(len(rollouts))
                bar.set_postfix(**tally.postfix(), refresh=False)
                more = on_landed(rollouts) if rollouts else []
                if more:  # adaptive: next rollouts go out as the last land
                    bar.total += len(more)
                    self._submit(self.calls.groups(more))
        except BaseException:
            # What finished is on disk; queued rollouts are dropped and requests in flight not waited for.
            stop = getattr(self.calls, "stop", None)  # episodes in containers: remove them now
            if stop is not None:
                stop()
            self.pool.shutdown(wait=False, cancel_futures=True)
            raise
        self.pool.shutdown()
        tally.seconds += time.perf_counter() - started

    def _fill(self, feed: Iterator[list[WorkItem]]) -> bool:
        """Submit the feed's next tasks up to the window; False once it is empty."""
        while self.outstanding < self.window:
            work = next(feed, None)
            if work is None:
                return False
            self._submit(self.calls.groups(work))
        return True

    def _submit(self, groups: list[tuple[int, list[Member]]]) -> None:
        for group in groups:
            self.pool.submit(self._one, group).add_done_callback(self.landed.put)
        self.outstanding += len(groups)

    def _one(self, group: tuple[int, list[Member]]) -> tuple[list[dict[str, Any]], list[tuple[int, list[Member]]]]:
        """The rows of a group's answered rollouts, and the members left to go out one per group."""
        task_index, members = group
        offered = self.offers_of(task_index) if self.offers_of is not None else None
        answered, unasked = self.calls.complete_spread(self.messages_of(task_index), members, offered)
        rows = self.make_rows(task_index, answered) if answered else []
        return rows, [(task_index, [member]) for member in unasked]
