"""pass^k: the chance that all k of k independent tries at a task succeed (τ-bench's reliability metric).

For a task with n scored tries of which c succeed, pass^k = C(c, k) / C(n, k): the chance that a
uniformly drawn k-subset of its tries holds successes only; the benchmark's pass^k is the mean over
tasks, for every k up to the smallest number of tries any task has. A try succeeds when its reward is
within 1e-6 of 1, as τ²-bench counts it. pass@k is the opposite question (at least one of k succeeds),
so pass^1 = pass@1 and pass^k falls with k while pass@k rises.
"""

from __future__ import annotations

from typing import Iterable

SUCCESS_TOLERANCE = 1e-6
METHOD = ("pass^k per task = C(c,k)/C(n,k) (c = rewards within 1e-6 of 1 among n scored tries), mean over tasks; "
          "k up to the smallest per-task count")


def pass_hat_k_per_task(task: "np.ndarray", reward: "np.ndarray", n_tasks: int, ks: Iterable[int]) -> "np.ndarray":
    """(n_tasks, len(ks)) pass^k per task; NaN where a task has fewer than k tries."""
    import numpy as np

    ks = list(ks)
    task = np.asarray(task, dtype=np.int64)
    success = (np.asarray(reward, dtype=float) >= 1.0 - SUCCESS_TOLERANCE).astype(np.int64)
    n = np.bincount(task, minlength=n_tasks)
    c = np.bincount(task, weights=success, minlength=n_tasks).astype(np.int64)
    out = np.full((n_tasks, len(ks)), np.nan)
    if task.size == 0:
        return out
    log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, int(n.max()) + 1)))))
    for col, k in enumerate(ks):
        has = n >= k
        enough = has & (c >= k)
        value = np.zeros(n_tasks)
        # log C(c,k) - log C(n,k) = log c! - log (c-k)! - log n! + log (n-k)!
        value[enough] = np.exp(log_fact[c[enough]] - log_fact[c[enough] - k]
                               - log_fact[n[enough]] + log_fact[n[enough] - k])
        out[:, col] = np.where(has, value, np.nan)
    return out


def pass_hat_k_from_counts(n: "np.ndarray", c: "np.ndarray", k: int) -> "np.ndarray":
    """Per task C(c, k) / C(n, k) from each task's tries `n` and successes `c`; NaN where n < k."""
    import numpy as np

    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    out = np.full(n.shape, np.nan)
    has = n >= k
    out[has] = 0.0
    enough = has & (c >= k)
    if enough.any():
        top = int(n.max())
        log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, top + 1)))))
        out[enough] = np.exp(log_fact[c[enough]] - log_fact[c[enough] - k] - log_fact[n[enough]] + log_fact[n[enough] - k])
    return out


def pass_hat_k(rewards_by_task: dict, ks: Iterable[int] | None = None) -> dict[int, float]:
    """{k: pass^k} from {task: [rewards]} (a convenience for small inputs and tests)."""
    import numpy as np

    tasks = list(rewards_by_task)
    codes = np.concatenate([[i] * len(rewards_by_task[t]) for i, t in enumerate(tasks)]).astype(np.int64)
    rewards = np.concatenate([list(map(float, rewards_by_task[t])) for t in tasks])
    smallest = min(len(rewards_by_task[t]) for t in tasks)
    ks = list(ks) if ks is not None else list(range(1, smallest + 1))
    table = pass_hat_k_per_task(codes, rewards, len(tasks), ks)
    return {k: float(np.nanmean(table[:, col])) for col, k in enumerate(ks)}
