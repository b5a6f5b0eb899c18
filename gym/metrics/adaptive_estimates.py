"""Unbiased metrics from adaptive runs (rows carrying an `adaptive` rule, see gym.rollouts.adaptive).

Why the usual estimators do not do: a task's number of rollouts depends on its rewards, so its plain
mean reward is biased (a task that starts with failures stops early and keeps its low mean) and so is
the usual pass@k estimator over all its rollouts.

Estimators used for an adaptive group (per task, then the usual mean and t-interval over tasks):
* pass@1: E[first reward | where the path stopped]. The first reward is an unbiased estimate of the
  task's pass rate; conditioning it on the sufficient statistic (successes s, rollouts m at the stop)
  keeps it unbiased and cuts its variance (Rao-Blackwell; Girshick, Mosteller & Savage 1946). Every
  0/1 path that reaches (s, m) without stopping earlier is equally likely, so the estimate is
  (such paths starting with a success) / (all such paths), counted by dynamic programming.
* pass@k for k <= min_repeats: 1 − (such paths whose first k rewards are all failures) / (all), the
  same construction for (1 − p)^k.
* majority@k and pass@1[avg-of-k] (k <= min_repeats) use each task's first k rollouts, which every
  task has whatever the rule did: unbiased as they are. Secondary scores: mean over the first
  min_repeats rollouts of each task, for the same reason.
* pass@k, majority@k, avg-of-k for k > min_repeats: NOT estimable without bias from adaptive data
  (tasks that stopped early have no k-th rollout and which tasks those are depends on their rewards):
  aggregate lists them under `not_estimable` instead of printing a number.
* Rewards strictly between 0 and 1 (no path counting): pass@1 is the mean of the first min_repeats
  rewards per task (unbiased, wider interval).
* A task whose rollouts end before the rule decided (an interrupted run) is estimated at the last
  checkpoint it completed: stopping there was forced by the interruption, not by its rewards.

Token and latency figures are means over the rollouts actually run (what the run cost).
compare=[A,B] pairs the same per-task estimates, with k capped at min_repeats.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from gym.metrics.estimators import TaskArrays, mean_ci, score_metrics
from gym.rollouts.adaptive import AdaptiveRule, rule_from_spec

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

METHOD = ("adaptive run: pass@1 and pass@k (k <= min_repeats) by the Rao-Blackwellised first-rollout estimator "
          "over the stopping rule's paths; majority@k, avg-of-k and secondary scores from each task's first "
          "min_repeats rollouts")


@lru_cache(maxsize=None)
def _paths(spec: str, start_s: int, start_m: int, end_m: int) -> tuple[int, ...]:
    """Number of 0/1 paths from (start_s successes, start_m rollouts) to each s at end_m that the rule does
    not stop at any checkpoint before end_m (the total s counts from rollout 0)."""
    rule = rule_from_spec(spec)
    points = set(rule.checkpoints())
    counts = [0] * (end_m + 1)
    counts[start_s] = 1
    for m in range(start_m, end_m):
        if m in points:
            counts = [0 if c and rule.stops(s, m) else c for s, c in enumerate(counts)]
        counts = [counts[s] + (counts[s - 1] if s else 0) for s in range(end_m + 1)]
    return tuple(counts)


def estimate(spec: str, successes: int, m: int, k: int = 1) -> float:
    """Unbiased estimate of pass@k (k = 1: the pass rate) for a task stopped at (successes, m)."""
    total = _paths(spec, 0, 0, m)[successes]
    if total == 0:
        raise ValueError(f"({successes}, {m}) is not reachable under {spec}")
    if k == 1:
        return _paths(spec, 1, 1, m)[successes] / total if successes else 0.0
    all_fail = _paths(spec, 0, k, m)[successes] if successes <= m - k else 0
    return 1.0 - all_fail / total


def evaluation_point(rule: AdaptiveRule, rewards: list[float]) -> int | None:
    """Where to read a task off: its stop, else the last checkpoint its prefix completed (None: none)."""
    stop = rule.stop_point(rewards)
    if stop is not None:
        return stop
    reached = [p for p in rule.checkpoints() if p <= len(rewards)]
    return reached[-1] if reached else None


def per_task(rule: AdaptiveRule, prefixes: list[list[float]], ks: list[int]) -> "np.ndarray":
    """(tasks, len(ks)) unbiased pass@k per task; NaN where a task has no usable prefix or k > min_repeats."""
    import numpy as np

    spec = rule.spec()
    out = np.full((len(prefixes), len(ks)), np.nan)
    for row, rewards in enumerate(prefixes):
        point = evaluation_point(rule, rewards)
        if point is None:
            continue
        head = rewards[:point]
        binary = all(r in (0.0, 1.0) for r in head)
        for col, k in enumerate(ks):
            if k > rule.min_repeats:
                continue
            if binary:
                out[row, col] = estimate(spec, int(sum(head)), point, k)
            elif k == 1:
                out[row, col] = float(np.mean(rewards[: rule.min_repeats]))
    return out


def rule_of(group: "pd.DataFrame") -> AdaptiveRule | None:
    """The group's adaptive rule, or None for a fixed run (one rule per group, else the first)."""
    if "adaptive" not in group.columns:
        return None
    specs = group["adaptive"].dropna().unique()
    return rule_from_spec(str(specs[0])) if len(specs) else None


def prefixes(group: "pd.DataFrame", task_index: "np.ndarray") -> list[list[float]]:
    """Per task (in `task_index` order): rewards of its consecutive scored rollouts from index 0."""
    scored = group[group["status"].isin(("ok", "model_error"))]
    by_task: dict[int, dict[int, float]] = {}
    for task, rollout, reward in zip(scored["task_index"], scored["rollout_index"], scored["reward"]):
        by_task.setdefault(int(task), {})[int(rollout)] = float(reward)
    out = []
    for task in task_index:
        got, rewards = by_task.get(int(task), {}), []
        while len(rewards) in got:
            rewards.append(got[len(rewards)])
        out.append(rewards)
    return out


def correct_entry(entry: dict[str, Any], group: "pd.DataFrame", task_index: "np.ndarray",
                  clusters: "np.ndarray | None" = None) -> None:
    """Replace a metrics.json entry's biased figures by the estimators above (in place). `clusters` (a code
    per task, in `task_index` order: metrics.cluster_by or the benchmark's key) keeps their intervals
    cluster-robust, as a fixed run's are: the per-task estimates are as correlated within a cluster as the
    plain means."""
    rule = rule_of(group)
    if rule is None:
        return
    ks = [int(k) for k in entry.get("k_values") or []]
    table = per_task(rule, prefixes(group, task_index), sorted({1, *ks}))
    cols = {k: col for col, k in enumerate(sorted({1, *ks}))}
    entry["pass@1"] = mean_ci(table[:, cols[1]], clusters)
    entry["k_values"] = [k for k in ks if k <= rule.min_repeats]
    if "pass@k" in entry:
        entry["pass@k"] = {str(k): mean_ci(table[:, cols[k]], clusters) for k in ks if k <= rule.min_repeats}
    for family in ("majority@k", "pass@1[avg-of-k]"):
        if family in entry:
            entry[family] = {key: value for key, value in entry[family].items() if int(key) <= rule.min_repeats}
    if entry.get("scores"):
        head = group[group["rollout_index"] < rule.min_repeats]
        arrays = TaskArrays(head)
        entry["scores"] = score_metrics(head, arrays, _aligned(clusters, task_index, arrays.task_index))
    if entry.get("clustering"):
        entry["clustering"]["design_effect"] = entry["pass@1"].get("design_effect")
    entry["adaptive"] = {"rule": rule.spec(), "estimator": METHOD, "not_estimable": {
        f"pass@k, majority@k, pass@1[avg-of-k] for k > {rule.min_repeats}":
            "tasks stopped early have no k-th rollout, and which tasks stopped depends on their rewards"}}


def _aligned(clusters: "np.ndarray | None", task_index: "np.ndarray", wanted: "np.ndarray") -> "np.ndarray | None":
    """The cluster codes of `wanted` tasks, from codes given in `task_index` order."""
    if clusters is None:
        return None
    import numpy as np

    return clusters[np.searchsorted(task_index, wanted)]  # task_index is sorted (TaskArrays factorizes sorted)


def correct_profile(prof: "pd.DataFrame", group: "pd.DataFrame") -> None:
    """Per-task profile rows of an adaptive group (in place): a task is complete when the rule decided
    it (expected_rollouts = where it stopped); its bucket is the one the rule decided (bucket_rule names
    the rule); pass@k columns hold the unbiased estimates for k <= min_repeats and are dropped (NaN)
    above, where no unbiased estimate exists."""
    import numpy as np

    rule = rule_of(group)
    if rule is None:
        return
    rewards = prefixes(group, prof["task_index"].to_numpy())
    prof["expected_rollouts"] = np.array([rule.wanted(r) for r in rewards], dtype=np.int64)
    prof["complete"] = np.array([rule.stop_point(r) is not None for r in rewards])
    prof["bucket"] = np.array([rule.decided_label(r) for r in rewards], dtype=object)
    prof["bucket_rule"] = rule.spec()
    ks = sorted(int(c[5:]) for c in prof.columns if c.startswith("pass@"))
    table = per_task(rule, rewards, ks)
    for col, k in enumerate(ks):
        prof[f"pass@{k}"] = 100.0 * table[:, col]


def estimable_k(max_k: int, *groups: "pd.DataFrame") -> int:
    """The largest k a comparison may use: capped at min_repeats for adaptive groups."""
    for group in groups:
        rule = rule_of(group)
        if rule is not None:
            max_k = min(max_k, rule.min_repeats)
    return max_k


def adaptive_per_task(arrays: Any, group: "pd.DataFrame", ks: list[int]) -> dict[str, "np.ndarray"]:
    """TaskArrays.per_task, with pass@k replaced by the unbiased estimates for an adaptive group."""
    per = arrays.per_task(ks)
    rule = rule_of(group)
    if rule is not None:
        per["pass@k"] = per_task(rule, prefixes(group, arrays.task_index), ks)
    return per
