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
need runs made with the other side held fixed: task=noise plays them itself for a benchmark
(`benchmark=<name>` without `rollouts`: collect with `episode.hold=agent`, then `episode.hold=user`),
or takes such runs as `noise.runs` (label -> rollouts); each gets its own floor beside the main one.
`parts` puts each side's within-task variance beside the one with both varying: the share of the
sampling spread that side alone makes. With one judge, the main run's trajectories are judged again
`noise.judge_repeats` times (task=reverify with judge seeds seed, seed + 1, ...): the judge's part.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

Z975 = 1.959963984540054
MAIN = "agent_and_user"  # the replay where both sides' seeds vary, as in any run with repeats
SIDES = (("user", "user_seeds", "the simulated user's seed varies, the agent's is held"),
         ("agent", "agent_seeds", "the agent's seed varies, the user's is held"))
REPLAYS = (MAIN, *(label for _, label, _ in SIDES))  # the sub-folders task=noise benchmark=<name> plays into
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


def rejudge_noise(runs: list[dict[str, float]]) -> dict[str, Any] | None:
    """The judge's part from the same trajectories judged k times ({key: reward} per judging): the variance
    of each item's reward across the judgings (mean over items scored every time)."""
    import numpy as np

    keys = sorted(set.intersection(*(set(run) for run in runs))) if len(runs) >= 2 else []
    if not keys:
        return None
    shares = np.var(np.array([[run[key] for run in runs] for key in keys]), axis=1, ddof=1)
    return {"items": len(keys), "judgings": len(runs), "judge_variance": round(float(shares.mean()), 6),
            "items_with_disagreement_percent": round(100.0 * float((shares > 0).mean()), 4)}


def noise_parts(benchmarks: dict[str, Any], main: str) -> dict[str, Any]:
    """Each held-side replay of benchmark label `main` beside the run where both vary: its within-task
    variance, floor and share of the both-varying within-task variance."""
    both = benchmarks.get(main) or {}
    base = both.get("within_task_variance")
    parts: dict[str, Any] = {}
    for side, label, what in SIDES:
        entry = benchmarks.get(f"{label}: {main}") or {}
        if "within_task_variance" not in entry:
            continue
        within = entry["within_task_variance"]
        parts[side] = {"what": what, "within_task_variance": within, "flip_rate_percent": entry["flip_rate_percent"],
                       "noise_floor": entry["noise_floor"],
                       "share_of_both": round(within / base, 4) if base else None}
    if both.get("judges"):
        parts["judge"] = both["judges"]
    return parts


def parts_text(parts: dict[str, Any], prefix: str = "") -> str:
    lines = []
    for side, part in parts.items():
        if side == "judge":
            lines.append(f"judge: variance {part['judge_variance']:.4f} across judges or judgings of one trajectory; "
                         f"{part['items_with_disagreement_percent']:.1f}% of {part['items']} items split")
            continue
        share = "-" if part["share_of_both"] is None else f"{100 * part['share_of_both']:.0f}%"
        lines.append(f"{side}: {part['what']}: within-task variance {part['within_task_variance']:.4f} ({share} of "
                     f"the spread with both varying), noise floor ±{part['noise_floor']:.2f}")
    return "".join(f"{prefix}{line}\n" for line in lines)


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
    parts = "".join(parts_text(value, f"{label}: " if len(result["parts"]) > 1 else "")
                    for label, value in (result.get("parts") or {}).items() if value)
    return table + "\n" + parts + f"noise floor: {METHOD}\n"
