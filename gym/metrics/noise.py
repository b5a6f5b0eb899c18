"""Noise floors: how far apart two runs of the same model land by chance (task=noise).

From a run with repeats (K rollouts of each of T tasks), per benchmark:

* flip rate: the chance that two rollouts of one task disagree (0/1 rewards: 2c(n−c)/(n(n−1)) per task,
  averaged over tasks); τ²-bench users report 43–64% of tasks flipping between identical trials;
* the within-task variance σ²_within (gym.metrics.repeats), the sampling part of the spread;
* the noise floor: two runs of the same model on the same T tasks with K repeats each differ only by
  sampling, so their pass@1 difference has variance 2·σ²_within/(K·T); a difference below
  1.96·√(2·σ²_within/(K·T)) is not significant at 95%. Reported at the run's K and at K = 1;
* the judge's part, when the run used several judges (judges=[...]): the same trajectory graded by k
  judges, its variance across judges per item (mean over items), the spread that would remain with the
  agent and user held fixed.

The user simulator's part (one agent seed, k user seeds) and the agent's part (k agent seeds, one user)
need runs made with the other side held fixed: give such runs as `noise.runs` (label -> rollouts) and
each gets its own floor beside the main one.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

Z975 = 1.959963984540054
METHOD = ("noise floor = 1.96·sqrt(2·within-task variance / (repeats·tasks)): the pass@1 difference two runs of "
          "the same model on the same tasks reach 1 time in 20 by sampling alone")


def flip_rate(task, reward, n_tasks: int) -> float | None:
    """Chance that two rollouts of one task disagree, averaged over tasks with two or more (0/1 rewards)."""
    import numpy as np

    n = np.bincount(task, minlength=n_tasks).astype(float)
    c = np.bincount(task, weights=(reward >= 0.5).astype(float), minlength=n_tasks)
    use = n >= 2
    if not use.any():
        return None
    return float((2 * c[use] * (n[use] - c[use]) / (n[use] * (n[use] - 1))).mean())


def group_noise(group: "pd.DataFrame") -> dict[str, Any]:
    """The noise block of one (benchmark, model) group."""
    from gym.metrics.estimators import TaskArrays
    from gym.metrics.repeats import components

    arrays = TaskArrays(group)
    out: dict[str, Any] = {"benchmark": str(group["benchmark"].iloc[0]), "model": str(group["model"].iloc[0]),
                           "tasks": arrays.n_tasks, "rollouts": int(arrays.reward.size)}
    parts = components(arrays.task_codes, arrays.reward, arrays.n_tasks)
    if parts is None:
        out["why_not"] = "needs two or more scored rollouts of a task (num_repeats >= 2)"
        return out
    within, between, n = parts
    k = float(n.mean())
    rate = flip_rate(arrays.task_codes, arrays.reward, arrays.n_tasks)

    def floor(repeats: float) -> float:
        return round(100 * Z975 * math.sqrt(2 * within / (repeats * arrays.n_tasks)), 4)

    out.update(repeats_per_task=round(k, 3), flip_rate_percent=None if rate is None else round(100 * rate, 4),
               within_task_variance=round(within, 6), between_task_variance=round(between, 6),
               noise_floor=floor(k), noise_floor_one_repeat=floor(1.0), method=METHOD)
    return out


def judge_noise(rows: list[dict]) -> dict[str, Any] | None:
    """The judges' part, from rows graded by a panel: variance of the verdicts across judges per item."""
    import numpy as np

    shares = []
    for row in rows:
        votes = (row.get("verifier") or {}).get("judges") if row.get("status") == "ok" else None
        if isinstance(votes, list) and len(votes) >= 2:
            shares.append(np.var([1.0 if v.get("verdict") == "correct" else 0.0 for v in votes], ddof=1))
    if not shares:
        return None
    return {"items": len(shares), "judge_variance": round(float(np.mean(shares)), 6),
            "items_with_disagreement_percent": round(100.0 * float(np.mean(np.asarray(shares) > 0)), 4)}


def noise_text(result: dict[str, Any]) -> str:
    from gym.metrics.table import format_table

    rows = []
    for label, entry in result["benchmarks"].items():
        if "why_not" in entry:
            rows.append([label, entry["tasks"], "-", "-", "-", "-", entry["why_not"]])
            continue
        judge = entry.get("judges")
        rows.append([label, entry["tasks"], f"{entry['repeats_per_task']:g}",
                     "-" if entry["flip_rate_percent"] is None else f"{entry['flip_rate_percent']:.1f}%",
                     f"±{entry['noise_floor']:.2f}", f"±{entry['noise_floor_one_repeat']:.2f}",
                     "-" if not judge else f"judge variance {judge['judge_variance']:.4f} "
                                           f"({judge['items_with_disagreement_percent']:.1f}% of items split)"])
    table = format_table(["run", "tasks", "repeats", "flip rate", "noise floor", "at 1 repeat", "judges"], rows)
    return table + f"\nnoise floor: {METHOD}\n"
