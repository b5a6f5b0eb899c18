"""How much of pass@1's spread is sampling within a task and how much is tasks differing, and what more
repeats would buy (Miller 2024, "Adding Error Bars to Evals", section 3).

With T tasks and K repeats each, the variance of pass@1 (the mean over tasks of each task's mean reward)
is (σ²_between + σ²_within / K) / T. σ²_within is the pooled variance of rewards around their task's
mean (one-way ANOVA's within-group mean square); σ²_between is the variance of the tasks' true pass rates,
estimated as var(task means) − σ²_within · mean(1/n_i), floored at 0. More repeats shrink only the second
term: the standard error can never go below σ_between / √T however many repeats are run, and that floor
is what `se_infinite_repeats` reports.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

METHOD = ("one-way ANOVA over tasks: within = pooled variance of rewards around their task's mean, between = "
          "var(task means) - within·mean(1/n); SE at K repeats = sqrt((between + within/K)/T)")


def components(task: "np.ndarray", reward: "np.ndarray", n_tasks: int) -> tuple[float, float, "np.ndarray"] | None:
    """(σ²_within, σ²_between, rollouts per task), or None without two tasks and a task with two rollouts."""
    import numpy as np

    n = np.bincount(task, minlength=n_tasks).astype(float)
    if n_tasks < 2 or n.max() < 2 or (n == 0).any():
        return None
    means = np.bincount(task, weights=reward, minlength=n_tasks) / n
    within_ss = float(((reward - means[task]) ** 2).sum())
    within = within_ss / (n.sum() - n_tasks)
    between = max(0.0, float(means.var(ddof=1)) - within * float((1.0 / n).mean()))
    return within, between, n


def variance_split(task: "np.ndarray", reward: "np.ndarray", n_tasks: int) -> dict[str, Any] | None:
    """The metrics.json `repeats` block of an entry (None for one rollout per task)."""
    parts = components(task, reward, n_tasks)
    if parts is None:
        return None
    within, between, n = parts
    k = float(n.mean())

    def se(repeats: float) -> float:
        return round(100.0 * math.sqrt((between + within / repeats) / n_tasks), 4)

    total = between + within / k
    return {
        "repeats_per_task": round(k, 3), "within_task_variance": round(within, 6),
        "between_task_variance": round(between, 6),
        "share_within": round((within / k) / total, 4) if total > 0 else None,
        "se": se(k), "se_if_repeats": {str(int(m * k)): se(m * k) for m in (2, 4)},
        "se_infinite_repeats": round(100.0 * math.sqrt(between / n_tasks), 4), "method": METHOD,
    }


def note(label: str, split: dict[str, Any]) -> str:
    """One footnote line: the split and what doubling the repeats would do."""
    k = split["repeats_per_task"]
    share = split["share_within"]
    doubled = next(iter(split["se_if_repeats"].items()))
    what = "-" if share is None else f"{100 * share:.0f}%"
    return (f"note: {label}: repeats: {what} of pass@1's variance is sampling within tasks ({k:g} repeat(s) a task); "
            f"SE {split['se']:.2f} -> {doubled[1]:.2f} at {doubled[0]} repeats, never below "
            f"{split['se_infinite_repeats']:.2f} (more tasks narrow it further)\n")
