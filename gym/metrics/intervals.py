"""95% intervals for a mean over tasks, with the method chosen for the data and named in the output.

Every metric is a mean of per-task values in [0, 1] (a task's repeats are averaged first, so the task is
the unit of sampling and its repeats are clustered draws, never independent samples). The method:

* ``wilson``: every per-task value is 0 or 1 (one 0/1 rollout per task, or pass@k of 0/1 rewards): the
  Wilson score interval for a proportion over tasks. It never has zero width, even at 3 of 3.
* ``t``: otherwise, Student's t over tasks: mean ± t(0.975, T−1)·sd/√T.
* ``bounded``: the per-task values are not 0/1 but all equal (say 1.0 after 4 repeats on each of 3
  tasks): the t interval would have zero width, so the interval is Wilson's over T tasks, valid for
  any mean of values in [0, 1] (their variance is at most p(1−p)).
* ``cluster``: tasks share a cluster (a passage, a repository, a domain: `metrics.cluster_by` or the
  benchmark's `cluster_by`): a cluster-robust (CR1) standard error of the mean (statsmodels' number), with
  t(0.975, G−1) over G clusters; the design effect (clustered variance / the variance if tasks were
  independent) says how much the sharing costs. A zero clustered variance falls back to ``bounded``
  over G clusters.

Wilson's interval, Student's t quantile and the CR1 variance of a mean are closed forms here: importing
scipy.stats or statsmodels would cost every aggregate 1-4 s and statsmodels' OLS 0.35 s a metric at 100,000
tasks; tests pin each one to statsmodels, scipy and Inspect AI on the same numbers.
"""

from __future__ import annotations

import math
from typing import Any

METHODS = {
    "wilson": "Wilson score interval over tasks (per-task values are 0/1)",
    "t": "Student-t over tasks: mean ± t(0.975, T-1)·sd/√T of per-task values (repeats averaged within "
         "their task: the task is the unit)",
    "bounded": "per-task values all equal: Wilson interval over tasks for a mean of values in [0, 1] "
               "(a t-interval would have zero width)",
    "cluster": "cluster-robust (CR1) standard error over the clusters, Student-t with G-1 degrees of freedom",
}
SMALL_N = 30  # fewer tasks than this: the interval is wide and the figure is flagged as imprecise
LEVEL = 0.95


def _pct(x: float) -> float:
    return round(100.0 * x, 4)


# t(0.975, dof) for 1..30 degrees of freedom (scipy.stats.t.ppf, 6 decimals); above, the Cornish-Fisher
# expansion to 1/dof^4 (within 3e-8 of scipy from 31 on). Both are pinned to scipy in the tests: importing
# scipy.stats or statsmodels costs aggregate 1-4 s, more than every estimator here together.
_T975 = (12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
         2.200985, 2.178813, 2.160369, 2.144787, 2.13145, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
         2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.04523, 2.042272)
Z975 = 1.959963984540054


def t_critical(dof: float) -> float:
    """t(0.975, dof) (NaN below 1 degree of freedom)."""
    if dof < 1:
        return math.nan
    if dof <= len(_T975) and float(dof).is_integer():
        return _T975[int(dof) - 1]
    z, v = Z975, float(dof)
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4))


def wilson(successes: float, n: float) -> tuple[float, float]:
    """Wilson score interval of a proportion, as fractions (statsmodels' proportion_confint(method="wilson")
    gives the same numbers; the tests pin it)."""
    p, z2 = successes / n, Z975 * Z975
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z975 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def cluster_se(values: Any, clusters: Any) -> tuple[float, int]:
    """(cluster-robust CR1 standard error of the mean, number of clusters): sqrt(G/(G−1) · Σ_g e_g²) / N with
    e_g the sum of a cluster's deviations from the mean; statsmodels' OLS on a constant with cov_type="cluster"
    gives the same number (pinned in the tests) but costs 0.35 s a metric at 100,000 tasks, this 5 ms."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    labels = np.asarray(clusters)
    if labels.dtype.kind not in "iu":  # names: coded once here (group_metrics hands in integer codes)
        labels = labels.astype(str)
    codes = np.unique(labels, return_inverse=True)[1].ravel()
    groups = int(codes.max()) + 1 if codes.size else 0
    if groups < 2:
        return math.nan, groups
    sums = np.bincount(codes, weights=arr - arr.mean(), minlength=groups)
    return float(math.sqrt(groups / (groups - 1) * float((sums**2).sum())) / arr.size), groups


def interval(values: Any, clusters: Any = None) -> dict[str, Any]:
    """{"value", "ci_low", "ci_high", "method", "n"} in percent for per-task values in [0, 1] (NaNs skipped);
    with `clusters` (a label per value) also "clusters", "design_effect". One value: no interval."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    keep = ~np.isnan(arr)
    arr = arr[keep]
    if arr.size == 0:
        return {"value": None, "ci_low": None, "ci_high": None}
    mean, n = float(arr.mean()), int(arr.size)
    out: dict[str, Any] = {"value": _pct(mean), "ci_low": None, "ci_high": None, "n": n}
    if n < 2:
        return out
    bounded = bool(((arr >= 0) & (arr <= 1)).all())
    if clusters is not None:
        labels = np.asarray(clusters)[keep]
        se, groups = cluster_se(arr, labels)
        if groups >= 2:
            iid_var = float(arr.var(ddof=1)) / n
            out.update(clusters=groups, design_effect=round(se**2 / iid_var, 4) if iid_var > 0 else None)
            if se > 0 or not bounded:
                return _span(out, mean, t_critical(groups - 1) * se, "cluster")
            return _wilson_span(out, mean, groups, "bounded")
    if bounded and np.isin(arr, (0.0, 1.0)).all():
        return _wilson_span(out, mean, n, "wilson")
    sd = float(arr.std(ddof=1))
    if sd == 0 and bounded:
        return _wilson_span(out, mean, n, "bounded")
    return _span(out, mean, t_critical(n - 1) * sd / math.sqrt(n), "t", clip=bounded)


def _span(out: dict[str, Any], mean: float, half: float, method: str, clip: bool = True) -> dict[str, Any]:
    low, high = mean - half, mean + half
    if clip:
        low, high = max(0.0, low), min(1.0, high)
    out.update(ci_low=_pct(low), ci_high=_pct(high), method=method)
    return out


def _wilson_span(out: dict[str, Any], mean: float, n: int, method: str) -> dict[str, Any]:
    low, high = wilson(mean * n, n)
    out.update(ci_low=_pct(low), ci_high=_pct(high), method=method)
    return out


def task_clusters(labels: "np.ndarray", task_codes: "np.ndarray", n_tasks: int) -> "np.ndarray":
    """A cluster code per task (its first row's label; a task without one is its own cluster)."""
    import numpy as np
    import pandas as pd

    per_task = np.full(n_tasks, None, dtype=object)
    first = np.unique(task_codes, return_index=True)
    per_task[first[0]] = labels[first[1]]
    codes, uniq = pd.factorize(pd.Series(per_task, dtype=object), use_na_sentinel=True)
    alone = codes < 0
    codes[alone] = len(uniq) + np.arange(int(alone.sum()))  # never equal to a real label's code
    return codes.astype(np.int64)


def methods_used(metrics: dict[str, Any]) -> list[str]:
    """The interval methods a metrics.json content uses, in METHODS order (walks every nested metric)."""
    seen: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "ci_low" in node and isinstance(node.get("method"), str):
                seen.add(node["method"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(metrics.get("benchmarks") or {})
    return [name for name in METHODS if name in seen]


def small_n_note(label: str, entry: dict[str, Any]) -> str:
    """A footnote when an entry has too few tasks for its interval to say much ("" otherwise)."""
    pass1 = entry.get("pass@1") or {}
    tasks = entry.get("tasks") or 0
    if not tasks or tasks >= SMALL_N or pass1.get("value") is None:
        return ""
    if pass1.get("ci_low") is None:
        return f"note: {label}: {tasks} task: no interval from one task; the figure says little\n"
    width = pass1["ci_high"] - pass1["ci_low"]
    return (f"note: {label}: only {tasks} tasks: the 95% interval spans {width:.1f} points; a difference smaller "
            f"than that between two such runs means nothing\n")
