"""The estimators behind gym's metrics (definitions in gym.metrics.compute): t-intervals over tasks,
pass@k, majority@k and avg-of-k per task, secondary scores. Below both gym.metrics.compute and
gym.metrics.adaptive_estimates, which correct an adaptive run's entries with them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from gym.rollouts.row import SCORED

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

SCALE = "percent"
CI_METHOD = ("95% interval over tasks, its method chosen per metric (the metric's `method`: wilson, t, bounded "
             "or cluster; gym.metrics.intervals.METHODS)")
PASS_AT_K_METHOD = ("expected max reward over random k-subsets of a task's rollouts "
                    "(= unbiased 1-C(n-c,k)/C(n,k) for 0/1 rewards)")
MAJORITY_RULE = ("most frequent non-null extracted answer among the first k rollouts scores its mean reward; "
                 "ties score the mean over the tied answers (a uniformly random pick, never the rewards); "
                 "no answer = 0")


def mean_ci(values: Any, clusters: Any = None) -> dict[str, Any]:
    """{"value", "ci_low", "ci_high", "method", ...} in percent for per-task values in [0, 1] (NaNs skipped);
    the interval's method is chosen for the data (gym.metrics.intervals)."""
    from gym.metrics.intervals import interval

    return interval(values, clusters)


def metric_name(metric: str, k: int) -> str:
    """pass@k -> pass@4, majority@k -> majority@4, pass@1[avg-of-k] -> pass@1[avg-of-4]."""
    return f"pass@1[avg-of-{k}]" if metric == "pass@1[avg-of-k]" else f"{metric[:-1]}{k}"


def _pct(x: float) -> float:
    return round(100.0 * x, 4)


def k_values(max_n: int, k: int | Sequence[int] | None = None) -> list[int]:
    """Powers of two up to `max_n` (or up to `k` when given) plus the cap itself; a list is taken as is."""
    if max_n < 1:
        return []
    if k is not None and not isinstance(k, int):
        return sorted({int(v) for v in k if 1 <= int(v) <= max_n})
    cap = max_n if k is None else max(1, min(int(k), max_n))
    ks, v = [], 1
    while v <= cap:
        ks.append(v)
        v *= 2
    if ks[-1] != cap:
        ks.append(cap)
    return ks


# ---------------------------------------------------------------------------------------------
# Per-task arrays. `task` holds codes 0..n_tasks-1 of scored rows; everything is vectorised.


def rank_within(task: "np.ndarray", order_key: "np.ndarray") -> "np.ndarray":
    """0-based position of each row inside its task when sorted by `order_key` (stable)."""
    import numpy as np

    order = np.lexsort((order_key, task))
    counts = np.bincount(task)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.empty(task.size, dtype=np.int64)
    rank[order] = np.arange(task.size) - starts[task[order]]
    return rank


def pass_at_k_per_task(task: "np.ndarray", reward: "np.ndarray", n_tasks: int, ks: Iterable[int]) -> "np.ndarray":
    """(n_tasks, len(ks)) expected max reward over k-subsets; NaN where a task has fewer than k rollouts."""
    import numpy as np

    ks = list(ks)
    n = np.bincount(task, minlength=n_tasks)
    out = np.full((n_tasks, len(ks)), np.nan)
    if task.size == 0:
        return out
    order = np.lexsort((reward, task))  # ascending reward inside each task
    t_sorted, r_sorted = task[order], reward[order]
    del order
    starts = np.concatenate(([0], np.cumsum(n)[:-1]))
    j = (np.arange(task.size) - starts[t_sorted] + 1).astype(np.int32)  # 1-based ascending rank
    n_row = n[t_sorted].astype(np.int32)
    log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, int(n.max()) + 1)))))

    def log_comb(a: "np.ndarray", b: int) -> "np.ndarray":
        return log_fact[a] - log_fact[b] - log_fact[a - b]

    for col, k in enumerate(ks):
        if k > n.max():
            continue  # no task has k rollouts: the column stays NaN
        # P(row j is the max of a random k-subset) = C(j-1, k-1) / C(n, k), zero when j < k.
        usable = (j >= k) & (n_row >= k)
        weight = np.zeros(task.size)
        weight[usable] = np.exp(log_comb(j[usable] - 1, k - 1) - log_comb(n_row[usable], k))
        sums = np.bincount(t_sorted, weights=weight * r_sorted, minlength=n_tasks)
        out[:, col] = np.where(n >= k, np.minimum(sums, 1.0), np.nan)
    return out


def avg_of_k_per_task(task: "np.ndarray", rank: "np.ndarray", reward: "np.ndarray", n_tasks: int,
                      ks: Iterable[int]) -> "np.ndarray":
    """(n_tasks, len(ks)) mean reward of each task's first k rollouts; NaN with fewer than k."""
    import numpy as np

    ks = list(ks)
    n = np.bincount(task, minlength=n_tasks)
    out = np.full((n_tasks, len(ks)), np.nan)
    for col, k in enumerate(ks):
        first = rank < k
        sums = np.bincount(task[first], weights=reward[first], minlength=n_tasks)
        out[:, col] = np.where(n >= k, sums / k, np.nan)
    return out


def answer_codes(answers: "pd.Series") -> "np.ndarray":
    """Integer code per answer, -1 for null; codes follow lexicographic order of the stripped text."""
    import numpy as np
    import pandas as pd

    # The distinct texts first (no Python string per row), then their stripped forms ranked.
    raw, distinct = pd.factorize(pd.Series(answers, copy=False), use_na_sentinel=True)
    ranked, _ = pd.factorize(pd.Series(distinct, dtype=object).astype(str).str.strip(), sort=True)
    return np.append(ranked, -1).astype(np.int32)[raw]  # a null (-1) picks the appended -1


def majority_at_k_per_task(task: "np.ndarray", rank: "np.ndarray", codes: "np.ndarray", reward: "np.ndarray",
                           n_tasks: int, ks: Iterable[int]) -> "np.ndarray":
    """(n_tasks, len(ks)) majority-vote score (rule in the module docstring); NaN with fewer than k."""
    import numpy as np

    ks = list(ks)
    n = np.bincount(task, minlength=n_tasks)
    out = np.full((n_tasks, len(ks)), np.nan)
    n_codes = int(codes.max()) + 1 if codes.size and codes.max() >= 0 else 1
    for col, k in enumerate(ks):
        use = (rank < k) & (codes >= 0)
        pair = task[use].astype(np.int64) * n_codes + codes[use]
        uniq, inverse, count = np.unique(pair, return_inverse=True, return_counts=True)
        mean = np.bincount(inverse, weights=reward[use], minlength=uniq.size) / count
        pair_task = uniq // n_codes
        # The most frequent answers of each task (several when tied) share the vote equally.
        top_count = np.zeros(n_tasks, dtype=np.int64)
        np.maximum.at(top_count, pair_task, count)
        top = count == top_count[pair_task]
        tied = np.bincount(pair_task[top], minlength=n_tasks)
        total = np.bincount(pair_task[top], weights=mean[top], minlength=n_tasks)
        score = np.divide(total, tied, out=np.zeros(n_tasks), where=tied > 0)
        out[:, col] = np.where(n >= k, score, np.nan)
    return out


# ---------------------------------------------------------------------------------------------
# One group


_ROWS_AT_A_TIME = 1 << 20


class TaskArrays:
    """Scored rows of one group turned into per-task codes, ranks and answers."""

    def __init__(self, group: "pd.DataFrame"):
        import numpy as np
        import pandas as pd

        # column by column: a copy of the scored rows' frame costs ~100 bytes a row at millions of rows
        scored = group["status"].isin(SCORED).to_numpy()
        codes, uniq = pd.factorize(group["task_index"].to_numpy()[scored], sort=True)
        self.task_codes = codes.astype(np.int32)  # 4 bytes a row: tens of megabytes less at ten million rows
        del codes
        self.task_index = np.asarray(uniq, dtype=np.int64)
        self.n_tasks = len(uniq)
        self.reward = group["reward"].to_numpy(dtype=float)[scored]
        self.rank = rank_within(self.task_codes, group["rollout_index"].to_numpy()[scored]).astype(np.int32)
        self.codes = answer_codes(group["extracted_answer"])[scored]
        self.n = np.bincount(self.task_codes, minlength=self.n_tasks)

    def per_task(self, ks: Sequence[int]) -> dict[str, "np.ndarray"]:
        """Per task and k; worked over ranges of tasks of about a million rows each, since each estimator
        holds several arrays as long as its rows."""
        import numpy as np

        out = {name: np.full((self.n_tasks, len(ks)), np.nan) for name in ("pass@k", "majority@k", "pass@1[avg-of-k]")}
        for low, high, rows in task_ranges(self.task_codes, self.n_tasks):
            task, reward, rank, n_tasks = self.task_codes[rows] - low, self.reward[rows], self.rank[rows], high - low
            out["pass@k"][low:high] = pass_at_k_per_task(task, reward, n_tasks, ks)
            out["majority@k"][low:high] = majority_at_k_per_task(task, rank, self.codes[rows], reward, n_tasks, ks)
            out["pass@1[avg-of-k]"][low:high] = avg_of_k_per_task(task, rank, reward, n_tasks, ks)
        return out


def task_ranges(task: "np.ndarray", n_tasks: int) -> Iterator[tuple[int, int, "np.ndarray"]]:
    """(low, high, rows of tasks low..high-1) over ranges of tasks of about _ROWS_AT_A_TIME rows each."""
    import numpy as np

    ends = np.cumsum(np.bincount(task, minlength=n_tasks))
    low = 0
    while low < n_tasks:
        high = max(low + 1, int(np.searchsorted(ends, (ends[low - 1] if low else 0) + _ROWS_AT_A_TIME, "right")))
        yield low, high, np.flatnonzero((task >= low) & (task < high))
        low = high


def pass_at_k_by_ranges(task: "np.ndarray", reward: "np.ndarray", n_tasks: int, ks: Sequence[int]) -> "np.ndarray":
    """pass_at_k_per_task worked over ranges of tasks (its arrays are as long as the rows)."""
    import numpy as np

    out = np.full((n_tasks, len(ks)), np.nan)
    for low, high, rows in task_ranges(task, n_tasks):
        out[low:high] = pass_at_k_per_task(task[rows] - low, reward[rows], high - low, ks)
    return out


def score_metrics(group: "pd.DataFrame", arrays: TaskArrays, clusters: Any = None) -> dict[str, dict[str, Any]]:
    """{name: mean_ci} of the group's secondary scores (rule in the module docstring)."""
    import numpy as np

    from gym.rollouts.scores import POOLED, WEIGHTS, column, names_in, pooled_task_values

    names = [name for name in names_in(group.columns) if name not in WEIGHTS]
    if not names:
        return {}
    # the rows of `arrays`, in the same order, with the score columns only
    scored = group.loc[group["status"].isin(SCORED), ["status", *(c for c in group.columns if c.startswith("scores."))]]
    model_error = (scored["status"] == "model_error").to_numpy()
    out = {}
    for name in names:
        values = scored[column(name)].to_numpy(dtype=float)
        if np.isnan(values).all():
            continue  # another benchmark's score
        values = np.where(model_error, 0.0, values)
        if column(POOLED.get(name, "")) in scored:  # instruction-level shares, pooled over instructions
            weights = scored[column(POOLED[name])].to_numpy(dtype=float)
            out[name] = mean_ci(pooled_task_values(values, weights, arrays.task_codes, arrays.n_tasks), clusters)
            continue
        has = ~np.isnan(values)
        sums = np.bincount(arrays.task_codes[has], weights=values[has], minlength=arrays.n_tasks)
        counts = np.bincount(arrays.task_codes[has], minlength=arrays.n_tasks)
        out[name] = mean_ci(np.divide(sums, counts, out=np.full(arrays.n_tasks, np.nan), where=counts > 0), clusters)
    return out
