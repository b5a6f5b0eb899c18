"""Metric functions over a rollout frame (see gym.rollouts for its columns). Scale: percent (0-100).

Definitions (all per (benchmark, model) group; `infra_error` and `verifier_error` rows are left out of
every denominator and only counted; a `model_error` rollout scores 0):

* per-task values first, then the mean over tasks, so every metric is a mean over TASKS and its
  95% CI is a t-interval over tasks (mean ± t(0.975, T-1) · sd / √T of the per-task values).
  With the same number of rollouts per task, pass@1 equals the plain mean over rollouts.
* pass@k: the expected maximum reward over a uniformly random k-subset of a task's n scored
  rollouts. For 0/1 rewards with c correct this is exactly the unbiased 1 − C(n−c, k)/C(n, k);
  for continuous rewards it is the same estimator applied to the reward values.
* k values: 1, 2, 4, 8, ... up to the smallest n over the group's tasks, plus that n itself, so
  every k is averaged over the same tasks; tasks with fewer rollouts than the largest n are
  reported as `partial_tasks` and they cap k.
* majority@k: per task, among its first k scored rollouts (by rollout_index) the most frequent
  non-null extracted answer (compared after stripping whitespace) wins and the task scores the mean
  reward of the rollouts that gave it. Ties are not broken with the rewards (that would peek at the
  gold answer and bias the metric upwards): the task scores the expected value of a uniformly random
  pick among the tied answers, i.e. the mean of their mean rewards. A task with no answer scores 0.
* pass@1[avg-of-k]: per task the mean reward of its first k rollouts, averaged over tasks.
* no_answer: share of `ok` rollouts with a null extracted answer (per task, then over tasks).
* scores.<name> (secondary scores a verifier reports, e.g. ifeval's prompt_loose): per task the mean
  over its scored rollouts that carry the score (a `model_error` rollout scores 0), then over tasks;
  pooled scores (instruction_strict/loose) weigh each rollout by its instruction count
  (gym.rollout_scores.pooled_task_values).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from gym.rollout import SCORED, STATUSES

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

SCALE = "percent"
CI_METHOD = "t-interval over tasks: mean of per-task values ± t(0.975, T-1)·sd/√T, 95%"
PASS_AT_K_METHOD = ("expected max reward over random k-subsets of a task's rollouts "
                    "(= unbiased 1-C(n-c,k)/C(n,k) for 0/1 rewards)")
MAJORITY_RULE = ("most frequent non-null extracted answer among the first k rollouts scores its mean reward; "
                 "ties score the mean over the tied answers (a uniformly random pick, never the rewards); "
                 "no answer = 0")

# Two-sided 95% critical values of Student's t for 1..30 degrees of freedom.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
         2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
         2.052, 2.048, 2.045, 2.042)
_Z975 = 1.959963984540054


def t_critical(dof: int) -> float:
    """t(0.975, dof): table up to 30, then the Cornish-Fisher expansion (error < 1e-4)."""
    if dof < 1:
        return math.nan
    if dof <= len(_T975):
        return _T975[dof - 1]
    z = _Z975
    return z + (z**3 + z) / (4 * dof) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * dof**2)


def mean_ci(values: Any) -> dict[str, float | None]:
    """{"value", "ci_low", "ci_high"} in percent for per-task values in [0, 1] (NaNs skipped)."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        return {"value": None, "ci_low": None, "ci_high": None}
    mean = float(arr.mean())
    if arr.size < 2:
        return {"value": _pct(mean), "ci_low": None, "ci_high": None}
    half = t_critical(arr.size - 1) * float(arr.std(ddof=1)) / math.sqrt(arr.size)
    return {"value": _pct(mean), "ci_low": _pct(max(0.0, mean - half)), "ci_high": _pct(min(1.0, mean + half))}


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
    starts = np.concatenate(([0], np.cumsum(n)[:-1]))
    j = np.arange(task.size) - starts[t_sorted] + 1  # 1-based ascending rank
    n_row = n[t_sorted]
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

    text = pd.Series(answers, copy=False).astype("object")
    stripped = text.where(text.isna(), text.astype(str).str.strip())
    codes, _ = pd.factorize(stripped, sort=True, use_na_sentinel=True)
    return codes.astype(np.int64)


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


class TaskArrays:
    """Scored rows of one group turned into per-task codes, ranks and answers."""

    def __init__(self, group: "pd.DataFrame"):
        import numpy as np
        import pandas as pd

        scored = group[group["status"].isin(SCORED)]
        self.task_codes, uniq = pd.factorize(scored["task_index"].to_numpy(), sort=True)
        self.task_index = np.asarray(uniq, dtype=np.int64)
        self.n_tasks = len(uniq)
        self.reward = scored["reward"].to_numpy(dtype=float)
        self.rank = rank_within(self.task_codes, scored["rollout_index"].to_numpy())
        self.codes = answer_codes(scored["extracted_answer"])
        self.n = np.bincount(self.task_codes, minlength=self.n_tasks)

    def per_task(self, ks: Sequence[int]) -> dict[str, "np.ndarray"]:
        return {
            "pass@k": pass_at_k_per_task(self.task_codes, self.reward, self.n_tasks, ks),
            "majority@k": majority_at_k_per_task(self.task_codes, self.rank, self.codes, self.reward, self.n_tasks, ks),
            "pass@1[avg-of-k]": avg_of_k_per_task(self.task_codes, self.rank, self.reward, self.n_tasks, ks),
        }


def _stats(series: "pd.Series", names: tuple[str, str, str]) -> dict[str, float | None]:
    values = series.dropna()
    if values.empty:
        return {name: None for name in names}
    return {names[0]: round(float(values.mean()), 4), names[1]: round(float(values.median()), 4),
            names[2]: round(float(values.quantile(0.95)), 4)}


def group_metrics(group: "pd.DataFrame", k: int | Sequence[int] | None = None) -> dict[str, Any]:
    """The metrics.json entry of one (benchmark, model) group."""
    import numpy as np
    import pandas as pd

    status = group["status"].astype(str)
    counts = {name: int((status == name).sum()) for name in STATUSES}
    arrays = TaskArrays(group)
    all_tasks = group["task_index"].nunique()
    entry: dict[str, Any] = {
        "benchmark": str(group["benchmark"].iloc[0]), "model": str(group["model"].iloc[0]),
        "tasks": arrays.n_tasks, "rollouts": int(len(group)), "scored_rollouts": int(arrays.reward.size),
        "counts": counts,
        "rollouts_per_task": {"min": int(arrays.n.min()) if arrays.n_tasks else 0,
                              "max": int(arrays.n.max()) if arrays.n_tasks else 0},
        "partial_tasks": int((arrays.n < arrays.n.max()).sum()) if arrays.n_tasks else 0,
        "unscored_tasks": int(all_tasks - arrays.n_tasks),
    }
    ks = k_values(entry["rollouts_per_task"]["min"], k)
    entry["k_values"] = ks
    per_task = arrays.per_task(ks)
    pass1 = per_task["pass@k"][:, 0] if ks and ks[0] == 1 else \
        pass_at_k_per_task(arrays.task_codes, arrays.reward, arrays.n_tasks, [1])[:, 0]  # k list without 1
    entry["pass@1"] = mean_ci(pass1)
    for name, table in per_task.items():
        entry[name] = {str(kv): mean_ci(table[:, col]) for col, kv in enumerate(ks)}
    ok = group[status == "ok"]
    if len(ok):
        ok_codes, _ = pd.factorize(ok["task_index"].to_numpy())
        missing = ok["extracted_answer"].isna().to_numpy(dtype=float)
        per_task_missing = np.bincount(ok_codes, weights=missing) / np.bincount(ok_codes)
        entry["no_answer"] = mean_ci(per_task_missing)
    else:
        entry["no_answer"] = mean_ci([])
    entry["tokens"] = {"prompt": _stats(ok["prompt_tokens"], ("mean", "median", "p95")),
                       "completion": _stats(ok["completion_tokens"], ("mean", "median", "p95"))}
    entry["latency_s"] = _stats(ok["latency_s"], ("mean", "p50", "p95"))
    entry["scores"] = score_metrics(group, arrays)
    if "adaptive" in group.columns and group["adaptive"].notna().any():  # rounds of adaptive repeats
        from gym.adaptive_estimates import correct_entry

        correct_entry(entry, group, arrays.task_index)
    return entry


def score_metrics(group: "pd.DataFrame", arrays: TaskArrays) -> dict[str, dict[str, float | None]]:
    """{name: mean_ci} of the group's secondary scores (rule in the module docstring)."""
    import numpy as np

    from gym.rollout_scores import POOLED, WEIGHTS, column, names_in, pooled_task_values

    names = [name for name in names_in(group.columns) if name not in WEIGHTS]
    if not names:
        return {}
    scored = group[group["status"].isin(SCORED)]  # the rows of `arrays`, in the same order
    model_error = (scored["status"] == "model_error").to_numpy()
    out = {}
    for name in names:
        values = scored[column(name)].to_numpy(dtype=float)
        if np.isnan(values).all():
            continue  # another benchmark's score
        values = np.where(model_error, 0.0, values)
        if column(POOLED.get(name, "")) in scored:  # instruction-level shares, pooled over instructions
            weights = scored[column(POOLED[name])].to_numpy(dtype=float)
            out[name] = mean_ci(pooled_task_values(values, weights, arrays.task_codes, arrays.n_tasks))
            continue
        has = ~np.isnan(values)
        sums = np.bincount(arrays.task_codes[has], weights=values[has], minlength=arrays.n_tasks)
        counts = np.bincount(arrays.task_codes[has], minlength=arrays.n_tasks)
        out[name] = mean_ci(np.divide(sums, counts, out=np.full(arrays.n_tasks, np.nan), where=counts > 0))
    return out


def compute_metrics(frame: "pd.DataFrame", k: int | Sequence[int] | None = None) -> dict[str, Any]:
    """metrics.json content: {"scale", "ci_method", ..., "benchmarks": {label: entry}}.

    Labels are the benchmark name, or `benchmark@model` for a benchmark run with several models;
    every entry also carries its "benchmark" and "model".
    """
    benchmarks: dict[str, Any] = {}
    models = frame.groupby("benchmark", observed=True)["model"].nunique()
    for (bench, model), group in frame.groupby(["benchmark", "model"], observed=True, sort=True):
        label = str(bench) if models[bench] <= 1 else f"{bench}@{model}"
        benchmarks[label] = group_metrics(group, k)
    return {"scale": SCALE, "ci_method": CI_METHOD, "pass_at_k_method": PASS_AT_K_METHOD,
            "majority_rule": MAJORITY_RULE, "benchmarks": benchmarks}


# ---------------------------------------------------------------------------------------------
# Comparing two runs

COMPARE_TEST = "paired bootstrap over tasks (resampling tasks both runs have); two-sided p-value"
SOLVED_RULE = "a task is solved when its pass@1 (mean reward over its rollouts) is >= 50%"


def paired_bootstrap(diffs: "np.ndarray", n_boot: int = 5000, seed: int = 0) -> tuple["np.ndarray", ...]:
    """(ci_low, ci_high, p_value) per column of per-task differences (T, M), 95% percentile CI.

    p = 2·min(share of resampled means <= 0, share >= 0), with the +1 correction, capped at 1: the
    smallest p this can report is about 2/n_boot.
    """
    import numpy as np

    diffs = np.atleast_2d(np.asarray(diffs, dtype=float))
    n_tasks, n_metrics = diffs.shape
    rng = np.random.default_rng(seed)
    means = np.empty((n_boot, n_metrics))
    chunk = max(1, min(n_boot, 2_000_000 // max(1, n_tasks)))  # bound the index matrix's memory
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        idx = rng.integers(0, n_tasks, size=(size, n_tasks))
        means[start:start + size] = diffs[idx].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5], axis=0)
    below = (means <= 0).sum(axis=0)
    above = (means >= 0).sum(axis=0)
    p = np.minimum(1.0, 2.0 * (np.minimum(below, above) + 1) / (n_boot + 1))
    return low, high, p


def compare_groups(group_a: "pd.DataFrame", group_b: "pd.DataFrame", k: int | Sequence[int] | None = None,
                   n_boot: int = 5000, seed: int = 0) -> dict[str, Any]:
    """Paired comparison of two runs of one benchmark; differences are B − A, in percent points."""
    import numpy as np

    arrays_a, arrays_b = TaskArrays(group_a), TaskArrays(group_b)
    common, pos_a, pos_b = np.intersect1d(arrays_a.task_index, arrays_b.task_index, return_indices=True)
    out: dict[str, Any] = {
        "model_a": str(group_a["model"].iloc[0]), "model_b": str(group_b["model"].iloc[0]),
        "tasks_a": arrays_a.n_tasks, "tasks_b": arrays_b.n_tasks, "paired_tasks": int(common.size),
        "only_in_a": int(arrays_a.n_tasks - common.size), "only_in_b": int(arrays_b.n_tasks - common.size),
    }
    if common.size == 0:
        out.update(k_values=[], metrics={}, flipped={"solved_in_a_only": [], "solved_in_b_only": []})
        return out
    min_n = int(min(arrays_a.n[pos_a].min(), arrays_b.n[pos_b].min()))
    from gym.adaptive_estimates import adaptive_per_task, estimable_k

    min_n = estimable_k(min_n, group_a, group_b)  # adaptive runs: no unbiased figure above min_repeats
    ks = k_values(min_n, k)
    if 1 not in ks:
        ks = [1, *ks]
    per_a, per_b = adaptive_per_task(arrays_a, group_a, ks), adaptive_per_task(arrays_b, group_b, ks)
    names, cols_a, cols_b = [], [], []
    for metric in ("pass@k", "majority@k", "pass@1[avg-of-k]"):
        for col, kv in enumerate(ks):
            if metric == "pass@1[avg-of-k]" and kv == 1:
                continue  # identical to pass@1
            names.append(metric_name(metric, kv))
            cols_a.append(per_a[metric][pos_a, col])
            cols_b.append(per_b[metric][pos_b, col])
    values_a, values_b = np.column_stack(cols_a), np.column_stack(cols_b)
    low, high, p = paired_bootstrap(values_b - values_a, n_boot=n_boot, seed=seed)
    out["k_values"] = ks
    out["metrics"] = {
        name: {"a": _pct(values_a[:, i].mean()), "b": _pct(values_b[:, i].mean()),
               "diff": _pct(values_b[:, i].mean() - values_a[:, i].mean()),
               "ci_low": _pct(low[i]), "ci_high": _pct(high[i]), "p_value": round(float(p[i]), 6)}
        for i, name in enumerate(names)
    }
    solved_a, solved_b = values_a[:, 0] >= 0.5, values_b[:, 0] >= 0.5
    out["flipped"] = {"solved_in_a_only": [int(t) for t in common[solved_a & ~solved_b]],
                      "solved_in_b_only": [int(t) for t in common[solved_b & ~solved_a]]}
    return out
