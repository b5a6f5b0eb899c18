"""Which rollouts a collect run owes, task by task, with state only for the tasks in flight.

Tasks are streamed from the prepared file: `task_rows` yields the run's tasks (the first `limit` of the
file, then this shard's share: task_index % n == i for `shard=i/n`); a task is opened when the run has
room for it (its prompt rendered, its rollout keys made, what a resumed file already holds skipped)
and closed when its last rollout has landed, so memory holds the tasks in flight, not the run.
task_index is the task's place in the file whatever the shard, so a shard's rollouts are the very rows
the unsharded run would write.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from gym.core.errors import TaskNotSent
from gym.core.io import iter_jsonl
from gym.rollouts.adaptive import Rounds
from gym.rollouts.row import FINAL, rollout_key
from gym.rollouts.runner import WorkItem
from gym.rollouts.settings import CollectSettings

log = logging.getLogger("gym.collect")


def task_rows(path: Path, limit: int | None, shard: tuple[int, int] | None) -> Iterator[tuple[int, int, dict]]:
    """(task_index, line, row) of the run's tasks, streamed."""
    for task_index, (line, row) in enumerate(iter_jsonl(path)):
        if limit is not None and task_index >= limit:
            return
        if shard is None or task_index % shard[1] == shard[0]:
            yield task_index, line, row


@dataclass
class LiveTask:
    index: int
    row: dict
    prompt: list[dict]
    subsets: dict | None
    offer: dict | None  # a tool-calling task's {tools, tool_choice}
    keys: dict[int, tuple[int | None, str]] = field(default_factory=dict)
    final: set[int] = field(default_factory=set)  # rollout indices with a final row
    in_flight: int = 0


class Plan:
    """Opens tasks as the run has room, makes their rollout keys, closes them when done."""

    def __init__(self, settings: CollectSettings, model: str, api: str, judge_model: str | None, data_sha: str,
                 prompt_of: Callable[[dict, int], list[dict]],
                 offer_of: Callable[[dict, list[dict]], tuple[list[dict], dict | None]],
                 subsets_of: Callable[[dict], dict | None],
                 request_identity: Callable[[int], tuple[dict[str, Any], int | None]],
                 rows_by_prompt: dict[int, dict]):
        self.settings, self.model, self.api, self.judge_model = settings, model, api, judge_model
        self.data_sha, self.prompt_of, self.offer_of, self.subsets_of = data_sha, prompt_of, offer_of, subsets_of
        self.request_identity = request_identity  # rollout_index -> (sampling in the key, seed)
        self.rows_by_prompt = rows_by_prompt  # id(a live task's prompt) -> its row
        self.done: Any = {}
        if settings.paths.resuming:  # done_keys reads with numpy: a fresh run never loads it
            from gym.rollouts.done_keys import read_done

            self.done = read_done(settings.paths.rollouts)
            log.info("resuming %s: %d rollouts already in it", settings.paths.rollouts, len(self.done))
        self.rounds = Rounds(settings.adaptive) if settings.adaptive is not None else None
        self.live: dict[int, LiveTask] = {}
        self.total = self.skipped = self.unscorable = 0
        self.done_scored, self.done_reward = 0, 0.0  # rollouts a resume found final, and their rewards
        self.not_sent: Counter = Counter()  # tasks this run cannot pose, by reason (solo mode without a ticket)
        self.stops: Counter = Counter()  # adaptive: tasks by the number of rollouts they stopped at

    def open(self, task_index: int, line: int, row: dict) -> list[WorkItem]:
        """The task's rollouts still owed (its first round, for an adaptive run); [] closes it at once."""
        if row.get("unscorable"):  # prepare kept and reported it; no answer to it could be scored: none is asked
            self.unscorable += 1
            return []
        try:
            prompt, offer = self.offer_of(row, self.prompt_of(row, line))
        except TaskNotSent as exc:
            self.not_sent[str(exc)] += 1
            return []
        task = self.live[task_index] = LiveTask(task_index, row, prompt, self.subsets_of(row), offer)
        self.rows_by_prompt[id(prompt)] = row
        for rollout_index in range(self.settings.limits.repeats):
            status, reward = self.done.get(self.key_of(task_index, rollout_index)[1], ("", None))
            if status in FINAL:
                task.final.add(rollout_index)
                self.done_scored, self.done_reward = self.done_scored + 1, self.done_reward + (reward or 0.0)
            if self.rounds is not None:
                self.rounds.record(task_index, rollout_index, status, reward)
        target = self.rounds.target(task_index) if self.rounds is not None else self.settings.limits.repeats
        work = self.task_work(task_index, target)
        self.skipped += target - len(work)
        if not work:
            self.close(task_index)
        elif self.rounds is not None:
            self.rounds.sent(work)
        task.in_flight = len(work)
        return work

    def key_of(self, task_index: int, rollout_index: int) -> tuple[int | None, str]:
        task = self.live[task_index]
        if rollout_index not in task.keys:
            sent, seed = self.request_identity(rollout_index)
            task.keys[rollout_index] = seed, rollout_key(self.data_sha, task_index, task.prompt, {**sent, "seed": seed},
                                                         self.model, self.api, rollout_index, self.judge_model)
        return task.keys[rollout_index]

    def task_work(self, task_index: int, target: int | None = None) -> list[WorkItem]:
        """The rollouts of a task not done yet, up to its target (the rule's, for an adaptive run)."""
        target = self.rounds.target(task_index) if target is None else target
        final = self.live[task_index].final
        return [(task_index, i, *self.key_of(task_index, i)) for i in range(target) if i not in final]

    def landed(self, rollouts: list[dict[str, Any]]) -> list[WorkItem]:
        """Record landed rollouts; returns an adaptive run's next work and closes the tasks that are done."""
        touched = set()
        for rollout in rollouts:
            task = self.live[rollout["task_index"]]
            task.in_flight -= 1
            if rollout["status"] in FINAL:
                task.final.add(rollout["rollout_index"])
            touched.add(task.index)
        more = self.rounds.landed(rollouts, self.task_work) if self.rounds is not None else []
        for item in more:
            self.live[item[0]].in_flight += 1
        for task_index in touched:
            if not self.live[task_index].in_flight:
                self.close(task_index)
        return more

    def close(self, task_index: int) -> None:
        target = self.settings.limits.repeats
        if self.rounds is not None:
            target = self.rounds.target(task_index)
            self.stops[target] += 1
            self.rounds.forget(task_index)
        self.total += target
        self.rows_by_prompt.pop(id(self.live.pop(task_index).prompt), None)

