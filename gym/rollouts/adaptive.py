"""Adaptive repeats (`adaptive.enabled=true`): sample a task only until its difficulty bucket is known.

Rounds: every task gets `min_repeats` rollouts; then, at each checkpoint min_repeats, min_repeats +
step, ..., max_repeats, a task whose bucket is still undecided gets `step` more. There is no barrier
between rounds: a task's next rollouts are sent as soon as its previous ones are in. The rule decides on
the pass rate the task WOULD show after max_repeats rollouts (the number a fixed run reports), so an
adaptive run aims at the same buckets as a fixed run of max_repeats:

    after m rollouts with s successes, the pass rate p has the posterior Beta(s + ½, m − s + ½)
    (Jeffreys prior); the remaining max_repeats − m rewards are then Beta-binomial, which gives a
    distribution of the final pass rate (s + X) / max_repeats. The task stops when one bucket holds at
    least `confidence` of it, i.e. the central credible interval of the final pass rate lies in one
    bucket; it always stops at max_repeats.

Error control over rounds: the stop is a posterior statement about the state reached, so checking at
every round does not inflate it (no optional-stopping penalty, unlike repeated frequentist tests):
for tasks drawn from the prior, P(wrong bucket) <= 1 − confidence whatever the number of rounds.

Buckets (split_extremes=false, the default): hard (pass rate <= hard_max, unsolved included),
medium, easy (>= easy_min, solved included): an all-fail or all-pass task stops after 6 of 32.
With `split_extremes=true` the rule also tells unsolved (0) from hard and solved (1) from easy, as
task=profile does; that needs about 30 of 32 rollouts for those tasks (0/32 and 1/32 look alike
until the end), so it saves far less. An adaptive run's profile labels each task with the bucket the
rule decided: with split_extremes=false `hard_or_unsolved`, `medium` or `easy_or_solved` (a task that
passed 6 of 6 was never shown to be solved: a pass rate of 0.9 does that half the time), with
split_extremes=true the five names of task=profile; a task the rule has not decided yet is `undecided`.

The decision depends only on (s, m) at checkpoints, so replaying it over a task's rollouts in
rollout_index order gives the same stop on resume, after kill -9, and in aggregate. Rewards in
between 0 and 1 (ifbench) enter as fractional successes.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

from gym.core.errors import GymError

PRIOR = 0.5  # Jeffreys prior Beta(1/2, 1/2)
SPEC_PREFIX = "bucket-v1"
BUCKET_LABELS = ("unsolved", "hard", "medium", "easy", "solved")  # bucket_of's numbering, as task=profile names them
MERGED_LABELS = ("hard_or_unsolved", "medium", "easy_or_solved")  # what split_extremes=false decides
UNDECIDED = "undecided"


@dataclass(frozen=True)
class AdaptiveRule:
    min_repeats: int = 4
    max_repeats: int = 32
    step: int = 2
    confidence: float = 0.95
    hard_max: float = 0.25
    easy_min: float = 0.75
    split_extremes: bool = False
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if not 1 <= self.min_repeats <= self.max_repeats:
            raise GymError(f"adaptive: need 1 <= min_repeats ({self.min_repeats}) <= max_repeats ({self.max_repeats})")
        if self.step < 1:
            raise GymError(f"adaptive.step={self.step} must be at least 1")
        if not 0.5 <= self.confidence < 1:
            raise GymError(f"adaptive.confidence={self.confidence} must be within [0.5, 1)")
        if not 0 < self.hard_max <= self.easy_min < 1:
            raise GymError(f"adaptive: need 0 < hard_max ({self.hard_max}) <= easy_min ({self.easy_min}) < 1")

    # -- identity: each adaptive rollout row carries the rule, so aggregate can replay it -----------
    def spec(self) -> str:
        return (f"{SPEC_PREFIX} min={self.min_repeats} max={self.max_repeats} step={self.step} "
                f"conf={self.confidence:g} hard={self.hard_max:g} easy={self.easy_min:g} "
                f"extremes={int(self.split_extremes)}")

    @classmethod
    def parse(cls, spec: str) -> "AdaptiveRule":
        parts = spec.split()
        if not parts or parts[0] != SPEC_PREFIX:
            raise GymError(f"unknown adaptive rule {spec!r} (written by another gym version?)")
        values = dict(part.split("=", 1) for part in parts[1:])
        try:
            return cls(int(values["min"]), int(values["max"]), int(values["step"]), float(values["conf"]),
                       float(values["hard"]), float(values["easy"]), values["extremes"] == "1")
        except (KeyError, ValueError):
            raise GymError(f"malformed adaptive rule {spec!r}") from None

    @classmethod
    def from_config(cls, knobs: Any, num_repeats: int) -> "AdaptiveRule":
        max_repeats = knobs.get("max_repeats") or num_repeats
        return cls(int(knobs.get("min_repeats", 4)), int(max_repeats), int(knobs.get("step", 2)),
                   float(knobs.get("confidence", 0.95)), float(knobs.get("hard_max", 0.25)),
                   float(knobs.get("easy_min", 0.75)), bool(knobs.get("split_extremes", False)))

    # -- the rule ----------------------------------------------------------------------------------
    def checkpoints(self) -> list[int]:
        points = list(range(self.min_repeats, self.max_repeats, self.step))
        return points + [self.max_repeats]

    def bucket_of(self, successes: float, n: int) -> int:
        """0 unsolved, 1 hard, 2 medium, 3 easy, 4 solved (with split_extremes=false: 1, 2, 3)."""
        rate = successes / n
        if rate <= 0 and self.split_extremes:
            return 0
        if rate >= 1 and self.split_extremes:
            return 4
        return 1 if rate <= self.hard_max else 3 if rate >= self.easy_min else 2

    def final_buckets(self, successes: float, m: int) -> list[float]:
        """P(bucket of the pass rate after max_repeats) given s successes in m, as a list of 5."""
        key = ("p", round(successes, 9), m)
        if key not in self._cache:
            n, remaining = self.max_repeats, self.max_repeats - m
            a, b = successes + PRIOR, m - successes + PRIOR
            probs = [0.0] * 5
            base = _log_beta(a, b)
            for x in range(remaining + 1):
                log_p = (math.lgamma(remaining + 1) - math.lgamma(x + 1) - math.lgamma(remaining - x + 1)
                         + _log_beta(x + a, remaining - x + b) - base)
                probs[self.bucket_of(successes + x, n)] += math.exp(log_p)
            self._cache[key] = probs
        return self._cache[key]

    def stops(self, successes: float, m: int) -> bool:
        if m >= self.max_repeats:
            return True
        return max(self.final_buckets(successes, m)) >= self.confidence

    def wanted(self, rewards: Sequence[float]) -> int:
        """Rollouts this task needs in all, given the rewards of its first rollouts (index order)."""
        total, seen = 0.0, 0
        for point in self.checkpoints():
            if point > len(rewards):
                return point
            total += sum(rewards[seen:point])
            seen = point
            if self.stops(total, point):
                return point
        return self.max_repeats

    def stop_point(self, rewards: Sequence[float]) -> int | None:
        """Where the rule stopped on these rewards; None if they end before it decided."""
        wanted = self.wanted(rewards)
        return wanted if wanted <= len(rewards) else None

    def decided_label(self, rewards: Sequence[float]) -> str:
        """The bucket the rule stopped on for these rewards, by name (see the module docstring): at
        max_repeats the fixed run's bucket, before it the one holding `confidence` of the posterior."""
        stop = self.stop_point(rewards)
        if stop is None:
            return UNDECIDED
        successes = sum(rewards[:stop])
        if stop >= self.max_repeats:
            bucket = self.bucket_of(successes, self.max_repeats)
        else:
            probs = self.final_buckets(successes, stop)
            bucket = max(range(len(probs)), key=probs.__getitem__)
        return BUCKET_LABELS[bucket] if self.split_extremes else MERGED_LABELS[bucket - 1]


def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


class Rounds:
    """Per-task rewards by rollout index, and how many rollouts each task wants next; kept only for the
    tasks in flight (`forget` drops a finished one)."""

    def __init__(self, rule: AdaptiveRule):
        self.rule = rule
        self.rewards: dict[int, dict[int, float]] = {}
        self.in_flight: dict[int, int] = {}
        self.stalled: set[int] = set()  # tasks with an infra_error this run: undecidable until a resume
        self.extensions = 0

    def record(self, task_index: int, rollout_index: int, status: str, reward: float | None) -> None:
        if status in ("ok", "model_error"):
            self.rewards.setdefault(task_index, {})[rollout_index] = float(reward or 0.0)

    def prefix(self, task_index: int) -> list[float]:
        got, out = self.rewards.get(task_index, {}), []
        while len(out) in got:
            out.append(got[len(out)])
        return out

    def target(self, task_index: int) -> int:
        return self.rule.wanted(self.prefix(task_index))

    def sent(self, work: Sequence[tuple]) -> None:
        for item in work:
            self.in_flight[item[0]] = self.in_flight.get(item[0], 0) + 1

    def landed(self, rollouts: Sequence[dict], task_work: Any) -> list:
        """Record finished rollouts; returns the next work of each task that has nothing left in flight
        (`task_work(task)` lists a task's missing rollouts up to the rule's current target)."""
        tasks = set()
        for rollout in rollouts:
            task = rollout["task_index"]
            self.in_flight[task] -= 1
            self.record(task, rollout["rollout_index"], rollout["status"], rollout["reward"])
            if rollout["status"] not in ("ok", "model_error"):
                self.stalled.add(task)
            tasks.add(task)
        more = []
        for task in sorted(tasks):
            if not self.in_flight[task] and task not in self.stalled:
                more += task_work(task)
        if more:
            self.extensions += 1
        self.sent(more)
        return more

    def forget(self, task_index: int) -> None:
        for table in (self.rewards, self.in_flight):
            table.pop(task_index, None)
        self.stalled.discard(task_index)

    def summary(self, stops: Counter) -> dict[str, Any]:
        """`stops`: how many tasks stopped at each number of rollouts."""
        wanted = sum(target * count for target, count in stops.items())
        fixed = sum(stops.values()) * self.rule.max_repeats
        return {"rule": self.rule.spec(), "rollouts_wanted": wanted,
                "fixed_run_rollouts": fixed, "saving": round(fixed / max(1, wanted), 3),
                "tasks_by_stop": {str(target): stops[target] for target in sorted(stops)}}


@lru_cache(maxsize=256)
def rule_from_spec(spec: str) -> AdaptiveRule:
    return AdaptiveRule.parse(spec)
