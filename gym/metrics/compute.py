"""Metric functions over a rollout frame (see gym.rollouts.load for its columns). Scale: percent (0-100).

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
  (gym.rollouts.scores.pooled_task_values).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from gym.metrics.estimators import (CI_METHOD, MAJORITY_RULE, PASS_AT_K_METHOD, SCALE, TaskArrays, _pct, k_values,
                                    mean_ci, metric_name, pass_at_k_per_task, score_metrics)
from gym.rollouts.row import SCORED, STATUSES

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

def _stats(series: "pd.Series", names: tuple[str, str, str]) -> dict[str, float | None]:
    values = series.dropna()
    if values.empty:
        return {name: None for name in names}
    return {names[0]: round(float(values.mean()), 4), names[1]: round(float(values.median()), 4),
            names[2]: round(float(values.quantile(0.95)), 4)}


def group_metrics(group: "pd.DataFrame", k: int | Sequence[int] | None = None,
                  labels: "np.ndarray | None" = None, cluster_key: str | None = None) -> dict[str, Any]:
    """The metrics.json entry of one (benchmark, model) group; `labels` (a cluster label per row of the
    group, named by `cluster_key`) makes every interval cluster-robust."""
    import numpy as np
    import pandas as pd

    status = group["status"]
    counts = {name: int((status == name).sum()) for name in STATUSES}
    arrays = TaskArrays(group)
    clusters = None
    if labels is not None:
        from gym.metrics.intervals import task_clusters

        clusters = task_clusters(labels[status.isin(SCORED).to_numpy()], arrays.task_codes, arrays.n_tasks)
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
    entry["pass@1"] = mean_ci(pass1, clusters)
    for name, table in per_task.items():
        entry[name] = {str(kv): mean_ci(table[:, col], clusters) for col, kv in enumerate(ks)}
    if clusters is not None:  # one cluster: nothing to cluster by, the intervals stay over tasks
        entry["clustering"] = {"by": cluster_key, "clusters": int(np.unique(clusters).size),
                               "design_effect": entry["pass@1"].get("design_effect")}
    from gym.metrics.repeats import variance_split

    adaptive = "adaptive" in group.columns and group["adaptive"].notna().any()  # rounds of adaptive repeats
    split = None if adaptive else variance_split(arrays.task_codes, arrays.reward, arrays.n_tasks)
    if split is not None:  # (an adaptive run's repeats depend on the rewards: no unbiased split)
        entry["repeats"] = split
    ok = (status == "ok").to_numpy()  # columns are taken one at a time: no copy of the ok rows' frame
    if ok.any():
        ok_codes, _ = pd.factorize(group["task_index"].to_numpy()[ok])
        missing = group["extracted_answer"].isna().to_numpy()[ok].astype(float)
        per_task_missing = np.bincount(ok_codes, weights=missing) / np.bincount(ok_codes)
        entry["no_answer"] = mean_ci(per_task_missing)
    else:
        entry["no_answer"] = mean_ci([])
    entry["tokens"] = {"prompt": _stats(group["prompt_tokens"][ok], ("mean", "median", "p95")),
                       "completion": _stats(group["completion_tokens"][ok], ("mean", "median", "p95"))}
    entry["latency_s"] = _stats(group["latency_s"][ok], ("mean", "p50", "p95"))
    entry["scores"] = score_metrics(group, arrays, clusters)
    if adaptive:
        from gym.metrics.adaptive_estimates import correct_entry

        correct_entry(entry, group, arrays.task_index, clusters)
    return entry


def compute_metrics(frame: "pd.DataFrame", k: int | Sequence[int] | None = None,
                    labels: "np.ndarray | None" = None, cluster_key: str | None = None) -> dict[str, Any]:
    """metrics.json content: {"scale", "ci_method", ..., "benchmarks": {label: entry}}.

    Labels are the benchmark name, or `benchmark@model` for a benchmark run with several models;
    every entry also carries its "benchmark" and "model".
    """
    benchmarks: dict[str, Any] = {}
    models = frame.groupby("benchmark", observed=True)["model"].nunique()
    groups = frame.groupby(["benchmark", "model"], observed=True, sort=True).indices
    for bench, model in sorted(groups):
        label = str(bench) if models[bench] <= 1 else f"{bench}@{model}"
        group = frame if len(groups) == 1 else frame.iloc[groups[bench, model]]  # one group: the frame, not a copy
        rows = None if labels is None else (labels if len(groups) == 1 else labels[groups[bench, model]])
        benchmarks[label] = group_metrics(group, k, rows, cluster_key)
    from gym.metrics.intervals import METHODS

    return {"scale": SCALE, "ci_method": CI_METHOD, "ci_methods": METHODS, "pass_at_k_method": PASS_AT_K_METHOD,
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
                   n_boot: int = 5000, seed: int = 0, target_delta: float | None = None) -> dict[str, Any]:
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
    from gym.metrics.adaptive_estimates import adaptive_per_task, estimable_k

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
    from gym.metrics.paired import mcnemar, paired_t, power_statement

    out["metrics"] = {
        name: {"a": _pct(values_a[:, i].mean()), "b": _pct(values_b[:, i].mean()),
               "diff": _pct(values_b[:, i].mean() - values_a[:, i].mean()),
               "ci_low": _pct(low[i]), "ci_high": _pct(high[i]), "p_value": round(float(p[i]), 6),
               **paired_t(values_b[:, i] - values_a[:, i])}
        for i, name in enumerate(names)
    }
    solved_a, solved_b = values_a[:, 0] >= 0.5, values_b[:, 0] >= 0.5
    out["mcnemar"] = mcnemar(solved_a, solved_b)
    out["power"] = power_statement(values_a[:, 0], values_b[:, 0], _shared_rollouts(arrays_a, pos_a),
                                   _shared_rollouts(arrays_b, pos_b), target_delta)
    out["flipped"] = {"solved_in_a_only": [int(t) for t in common[solved_a & ~solved_b]],
                      "solved_in_b_only": [int(t) for t in common[solved_b & ~solved_a]]}
    return out


def _shared_rollouts(arrays: TaskArrays, positions: "np.ndarray") -> tuple["np.ndarray", "np.ndarray", int]:
    """(task codes 0..P-1, rewards, P) of a run's scored rollouts on the shared tasks (at `positions`)."""
    import numpy as np

    recode = np.full(arrays.n_tasks, -1, dtype=np.int64)
    recode[positions] = np.arange(positions.size)
    codes = recode[arrays.task_codes]
    keep = codes >= 0
    return codes[keep], arrays.reward[keep], int(positions.size)
