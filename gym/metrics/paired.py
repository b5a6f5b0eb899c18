"""Paired statistics of two runs on the same tasks (compare=[A,B]): the difference's standard error and
t-interval, McNemar's test on solved/unsolved per task, and the power statement (Miller 2024, sections 4
and 5).

* Paired difference: d_i = B_i − A_i per shared task; SE = sd(d)/√T; 95% interval mean ± t(0.975, T−1)·SE.
  Pairing removes the tasks' own difficulty from the comparison, so it is far narrower than two separate
  intervals whenever A and B agree on which tasks are hard.
* McNemar's test: the tasks solved by exactly one run (b: A only, c: B only); exact binomial test of b vs c
  when b + c < 25, else the χ² test with continuity correction (statsmodels' mcnemar).
* Power (statsmodels' TTestPower, two-sided α = 0.05, 80% power): the minimal detectable difference
  (MDD) is the smallest true difference this many tasks would detect 4 times in 5; for a `target_delta`
  the tasks needed at the observed sd(d), and, when the runs have repeats, the repeats per task needed at
  this many tasks (the within-task part of the difference's variance shrinks with repeats, the
  between-task part does not).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

ALPHA, POWER = 0.05, 0.80
MCNEMAR = ("McNemar's test on solved/unsolved per task (exact binomial when fewer than 25 tasks flip, else "
           "chi-squared with continuity correction)")
POWER_METHOD = "paired t-test power (statsmodels TTestPower), two-sided alpha 0.05, 80% power"


def paired_t(diffs: "np.ndarray") -> dict[str, Any]:
    """{"se", "t_low", "t_high"} in percent points for per-task differences in [−1, 1]."""
    import numpy as np

    from gym.metrics.intervals import t_critical

    d = np.asarray(diffs, dtype=float)
    if d.size < 2:
        return {"se": None, "t_low": None, "t_high": None}
    se = float(d.std(ddof=1)) / math.sqrt(d.size)
    half = t_critical(d.size - 1) * se
    mean = float(d.mean())
    return {"se": round(100 * se, 4), "t_low": round(100 * (mean - half), 4), "t_high": round(100 * (mean + half), 4)}


def mcnemar(solved_a: "np.ndarray", solved_b: "np.ndarray") -> dict[str, Any]:
    """McNemar's test on two runs' solved flags over the same tasks."""
    import numpy as np
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    a, b = np.asarray(solved_a, bool), np.asarray(solved_b, bool)
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    flips = table[0][1] + table[1][0]
    if flips == 0:
        return {"a_only": 0, "b_only": 0, "p_value": 1.0, "exact": True}
    exact = flips < 25
    result = sm_mcnemar(table, exact=exact, correction=True)
    return {"a_only": table[0][1], "b_only": table[1][0], "p_value": round(float(result.pvalue), 6), "exact": exact}


def mcnemar_line(test: dict[str, Any]) -> str:
    """McNemar's test as a person reads it (the CLI's compare table and the viewer's compare page)."""
    return (f"McNemar: solved by A only {test['a_only']}, by B only {test['b_only']}: "
            f"p = {test['p_value']:.4f} ({'exact binomial' if test['exact'] else 'chi-squared'})")


def _power():
    from statsmodels.stats.power import TTestPower

    return TTestPower()


def minimal_detectable(sd: float, tasks: int) -> float | None:
    """Smallest true mean difference (same unit as sd) a paired t-test over `tasks` detects at 80% power."""
    if tasks < 2 or not sd > 0:
        return None
    effect = _power().solve_power(nobs=tasks, alpha=ALPHA, power=POWER, alternative="two-sided")
    return float(effect) * sd


def tasks_needed(sd: float, delta: float) -> int | None:
    """Paired tasks a t-test needs to detect `delta` at 80% power (None when sd is 0)."""
    if not sd > 0:
        return None
    nobs = _power().solve_power(effect_size=delta / sd, alpha=ALPHA, power=POWER, alternative="two-sided")
    return int(math.ceil(float(nobs)))


def repeats_needed(within: float, between: float, tasks: int, delta: float) -> int | None:
    """Repeats per task so that (between + within/K)/T reaches the variance that detects `delta` at 80% power
    over `tasks` tasks; None when no number of repeats is enough (the between-task part alone is too large)."""
    from scipy.stats import norm

    z = norm.ppf(1 - ALPHA / 2) + norm.ppf(POWER)
    target = (delta / z) ** 2 * tasks  # allowed between + within/K
    if target <= between:
        return None
    return max(1, int(math.ceil(within / (target - between)))) if within > 0 else 1


def power_statement(values_a: "np.ndarray", values_b: "np.ndarray", task_a: Any, task_b: Any,
                    target_delta: float | None) -> dict[str, Any]:
    """The power block of one benchmark's comparison of pass@1 (percent points). `task_a`/`task_b` are
    (task codes, rewards, n_tasks) of each run's rollouts on the shared tasks, for the repeats part."""
    import numpy as np

    from gym.metrics.repeats import components

    d = np.asarray(values_b, float) - np.asarray(values_a, float)
    sd = float(d.std(ddof=1)) if d.size > 1 else 0.0
    mdd = minimal_detectable(sd, d.size)
    out: dict[str, Any] = {"method": POWER_METHOD, "tasks": int(d.size), "sd_of_differences": round(100 * sd, 4),
                           "minimal_detectable_difference": None if mdd is None else round(100 * mdd, 4)}
    if target_delta is None:
        return out
    delta = target_delta / 100.0
    out["target_delta"] = target_delta
    out["tasks_needed"] = tasks_needed(sd, delta)
    parts = [components(*side) for side in (task_a, task_b)]
    if all(p is not None for p in parts):
        within = parts[0][0] + parts[1][0]
        # between-task variance of the difference: var(d) less the within parts at the repeats run
        between = max(0.0, sd**2 - sum(p[0] * float((1.0 / p[2]).mean()) for p in parts))
        out["repeats_needed"] = repeats_needed(within, between, int(d.size), delta)
        out["repeats_now"] = round(float(min(p[2].mean() for p in parts)), 3)
    return out


def power_line(bench: str, power: dict[str, Any]) -> str:
    """The power statement as a person reads it."""
    mdd = power.get("minimal_detectable_difference")
    if mdd is None:
        text = f"{bench}: power: no spread in the per-task differences over {power['tasks']} task(s): no statement"
    else:
        text = (f"{bench}: power: with {power['tasks']} paired tasks, a true difference of {mdd:.2f} points is the "
                f"smallest this comparison detects at 80% power (alpha 0.05)")
    if "target_delta" in power:
        need = power.get("tasks_needed")
        text += (f"; to detect {power['target_delta']:g} points: " +
                 (f"{need} tasks" if need is not None else "no estimate (no spread)"))
        if "repeats_needed" in power:
            reps = power["repeats_needed"]
            text += (f", or {reps} repeats a task on these {power['tasks']} tasks" if reps is not None else
                     f"; no number of repeats on these {power['tasks']} tasks is enough (more tasks are)")
    return text
