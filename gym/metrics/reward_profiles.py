"""Per-task reward profiles, difficulty buckets and task selection (RL data curation).

A task's pass rate is its mean reward over its scored rollouts (`ok` + `model_error`), shown in
percent; thresholds and bucket edges are given as fractions of 1 (0.25 = a 25 % pass rate):

    unsolved: pass rate 0    hard: (0, hard_max]    medium: (hard_max, easy_min)
    easy: [easy_min, 1)      solved: 1

Completion: a task is complete when it has `expected_repeats` scored rollouts (default: the largest
number of rollouts any task of its benchmark/model got), partial with fewer, and missing with none
(only infra or verifier errors). Tasks that never appear in the rollouts are not known here and not counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from gym.core.errors import GymError
from gym.rollouts.row import STATUSES

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

BUCKETS = ("unsolved", "hard", "medium", "easy", "solved")
# An adaptive run labels what its rule decided (gym.rollouts.adaptive): with split_extremes=false three buckets;
# a task it has not decided yet is "undecided". All names, in the order tables show them:
ALL_BUCKETS = ("unsolved", "hard_or_unsolved", "hard", "medium", "easy", "easy_or_solved", "solved", "undecided")


@dataclass(frozen=True)
class BucketEdges:
    hard_max: float = 0.25
    easy_min: float = 0.75

    def __post_init__(self) -> None:
        for name in ("hard_max", "easy_min"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 1.0:
                raise GymError(f"buckets.{name} must be a number strictly between 0 and 1, got {value!r}")
        if self.hard_max > self.easy_min:
            raise GymError(f"buckets.hard_max ({self.hard_max}) must not exceed buckets.easy_min ({self.easy_min})")


@dataclass(frozen=True)
class Selection:
    min_pass_rate: float | None = None
    max_pass_rate: float | None = None
    buckets: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("min_pass_rate", "max_pass_rate"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise GymError(f"select.{name} must be in [0, 1] (a fraction: 0.25 = 25 % pass rate), got {value!r}")
        low, high = self.min_pass_rate, self.max_pass_rate
        if low is not None and high is not None and low > high:
            raise GymError(f"select.min_pass_rate ({self.min_pass_rate}) is above select.max_pass_rate "
                           f"({self.max_pass_rate}): nothing could be selected")
        if self.buckets is not None:
            from gym.core.errors import did_you_mean

            for name in self.buckets:
                if name not in ALL_BUCKETS:
                    raise GymError(f"select.buckets: unknown bucket '{name}'{did_you_mean(str(name), ALL_BUCKETS)}; "
                                   f"buckets: {', '.join(BUCKETS)} (an adaptive run with split_extremes=false: "
                                   "hard_or_unsolved, medium, easy_or_solved)")

    @property
    def active(self) -> bool:
        return self.min_pass_rate is not None or self.max_pass_rate is not None or self.buckets is not None

    def text(self) -> str:
        parts = []
        if self.min_pass_rate is not None:
            parts.append(f"mean reward >= {self.min_pass_rate}")
        if self.max_pass_rate is not None:
            parts.append(f"mean reward <= {self.max_pass_rate}")
        if self.buckets is not None:
            parts.append(f"bucket in {', '.join(self.buckets)}")
        return " and ".join(parts)

    def describe(self) -> dict[str, Any]:
        return {"min_pass_rate": self.min_pass_rate, "max_pass_rate": self.max_pass_rate,
                "buckets": list(self.buckets) if self.buckets is not None else None}


def assign_buckets(mean: Any, edges: BucketEdges) -> "Any":
    """Bucket name per mean reward (array in, object array out)."""
    import numpy as np

    mean = np.asarray(mean, dtype=float)
    conditions = [mean <= 0.0, mean <= edges.hard_max, mean < edges.easy_min, mean < 1.0]
    return np.select(conditions, list(BUCKETS[:4]), default=BUCKETS[4]).astype(object)


def bucket_names(profile: "pd.DataFrame") -> list[str]:
    """The bucket names these profile rows can carry, in table order: the five of a fixed run (and of an
    adaptive run with split_extremes=true), the three an adaptive rule with split_extremes=false decides,
    and `undecided` when some task is."""
    from gym.rollouts.adaptive import MERGED_LABELS, UNDECIDED, rule_from_spec

    rules = profile["bucket_rule"] if "bucket_rule" in profile else None
    specs = set(rules.dropna().unique()) if rules is not None else set()
    names = set(BUCKETS) if rules is None or rules.isna().any() or not specs else set()
    for spec in specs:
        names |= set(BUCKETS) if rule_from_spec(str(spec)).split_extremes else set(MERGED_LABELS)
    if (profile["bucket"] == UNDECIDED).any():
        names.add(UNDECIDED)
    return [name for name in ALL_BUCKETS if name in names]


def task_profile(frame: "pd.DataFrame", expected_repeats: int | None,
                 edges: BucketEdges) -> tuple["pd.DataFrame", list[dict[str, Any]]]:
    """(one row per task with at least one scored rollout, completion summary per benchmark/model)."""
    import numpy as np
    import pandas as pd

    from gym.metrics.estimators import k_values, pass_at_k_by_ranges

    from gym.episodes.passk import SUCCESS_TOLERANCE
    from gym.rollouts.row import SCORED

    parts, completion = [], []
    groups = frame.groupby(["benchmark", "model"], observed=True, sort=True).indices
    for bench, model in sorted(groups):
        group = frame if len(groups) == 1 else frame.iloc[groups[bench, model]]  # one group: the frame, not a copy
        attempted = group.groupby("task_index").size()
        expected = int(expected_repeats) if expected_repeats else int(attempted.max())
        status = group["status"]  # below, only the columns each step reads are taken out of the group
        scored = group.loc[status.isin(SCORED), ["task_index", "reward"]]
        stats = scored.groupby("task_index")["reward"].agg(["count", "mean", "std", "min", "max", "median"])
        infra = group.loc[status == "infra_error", "task_index"].value_counts(sort=False)
        unverified = group.loc[status == "verifier_error", "task_index"].value_counts(sort=False)
        ok = group.loc[status == "ok", ["task_index", "prompt_tokens", "completion_tokens"]].groupby("task_index").mean()
        prof = pd.DataFrame({
            "benchmark": str(bench), "model": str(model), "task_index": stats.index.to_numpy(np.int64),
            "rollouts": stats["count"].to_numpy(np.int64), "expected_rollouts": expected,
            "infra_errors": infra.reindex(stats.index, fill_value=0).to_numpy(np.int64),
            "verifier_errors": unverified.reindex(stats.index, fill_value=0).to_numpy(np.int64),
        })
        prof["complete"] = prof["rollouts"] >= expected
        for stat in ("mean", "std", "min", "max", "median"):
            prof[f"reward_{stat}"] = stats[stat].to_numpy(float)
        prof["pass_rate"] = 100.0 * prof["reward_mean"]
        success = (scored["reward"] >= 1.0 - SUCCESS_TOLERANCE).groupby(scored["task_index"]).sum()
        prof["successes"] = success.reindex(stats.index, fill_value=0).to_numpy(np.int64)  # for pass^k
        codes = pd.Index(stats.index).get_indexer(scored["task_index"].to_numpy())
        ks = k_values(expected)
        table = pass_at_k_by_ranges(codes, scored["reward"].to_numpy(float), len(stats), ks)
        for col, k in enumerate(ks):
            prof[f"pass@{k}"] = 100.0 * table[:, col]
        ok = ok.reindex(stats.index)
        prof["prompt_tokens_mean"] = ok["prompt_tokens"].to_numpy(float)
        prof["completion_tokens_mean"] = ok["completion_tokens"].to_numpy(float)
        prof["bucket"] = assign_buckets(prof["reward_mean"], edges)
        if "adaptive" in group.columns and group["adaptive"].notna().any():  # rounds of adaptive repeats
            from gym.metrics.adaptive_estimates import correct_profile

            correct_profile(prof, group)
        parts.append(prof)
        n_tasks, done = len(attempted), int(prof["rollouts"].sum())
        complete = int(prof["complete"].sum())
        expected_total = int(prof["expected_rollouts"].sum()) + expected * (n_tasks - len(prof))
        completion.append({
            "benchmark": str(bench), "model": str(model), "expected_repeats": expected,
            "expected_rollouts": expected_total, "completed_rollouts": done,
            "completion_pct": round(100.0 * done / max(1, expected_total), 4),
            "tasks": n_tasks, "complete_tasks": complete, "partial_tasks": len(prof) - complete,
            "missing_tasks": n_tasks - len(prof),
            "counts": {name: int((status == name).sum()) for name in STATUSES},
        })
    profile = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return profile, completion


def completion_totals(completion: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("expected_rollouts", "completed_rollouts", "tasks", "complete_tasks", "partial_tasks", "missing_tasks")
    total = {key: sum(entry[key] for entry in completion) for key in keys}
    total["completion_pct"] = round(100.0 * total["completed_rollouts"] / max(1, total["expected_rollouts"]), 4)
    return total


def _describe(values: "pd.Series") -> dict[str, float | None]:
    values = values.dropna()
    if values.empty:
        return {name: None for name in ("mean", "std", "min", "max", "median")}
    std = values.std(ddof=1) if len(values) > 1 else 0.0
    return {"mean": round(float(values.mean()), 4), "std": round(float(std), 4), "min": round(float(values.min()), 4),
            "max": round(float(values.max()), 4), "median": round(float(values.median()), 4)}


def aggregate_profile(profile: "pd.DataFrame") -> dict[str, Any]:
    """Tasks, pass-rate distribution (percent), pass@k with CIs, bucket counts, token means."""
    from gym.metrics.estimators import mean_ci

    pass_cols = sorted((c for c in profile.columns if c.startswith("pass@")), key=lambda c: int(c[5:]))
    counts = profile["bucket"].value_counts()
    return {
        "tasks": int(len(profile)),
        "complete_tasks": int(profile["complete"].sum()),
        "pass_rate": _describe(profile["pass_rate"]),
        # per-task pass@1 is the mean reward, except for adaptive runs (an unbiased estimate: gym.metrics.adaptive_estimates)
        "pass@1": mean_ci(profile["pass@1"] / 100.0 if "pass@1" in profile else profile["reward_mean"]),
        # Tasks with fewer than k rollouts (partial) have no pass@k: each k says how many tasks it covers.
        "pass@k": {c[5:]: {**mean_ci(profile[c] / 100.0), "tasks": int(profile[c].notna().sum())}
                   for c in pass_cols if profile[c].notna().any()},
        "pass^k": _pass_hat_k(profile, [int(c[5:]) for c in pass_cols]),
        "buckets": {name: int(counts.get(name, 0)) for name in bucket_names(profile)},
        "tokens": {"prompt_mean": _round(profile["prompt_tokens_mean"].mean()),
                   "completion_mean": _round(profile["completion_tokens_mean"].mean())},
    }


def _pass_hat_k(profile: "pd.DataFrame", ks: list[int]) -> dict[str, Any]:
    """pass^k (all k tries succeed: gym.episodes.passk) with its CI over tasks, for the k pass@k has;
    none for adaptive runs, whose tries per task follow the rewards."""
    from gym.episodes.passk import pass_hat_k_from_counts
    from gym.metrics.estimators import mean_ci

    if "successes" not in profile or ("bucket_rule" in profile and profile["bucket_rule"].notna().any()):
        return {}
    n, c = profile["rollouts"].to_numpy(), profile["successes"].to_numpy()
    return {str(k): mean_ci(pass_hat_k_from_counts(n, c, k)) for k in ks}


def _round(value: Any, digits: int = 4) -> float | None:
    import math

    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(float(value), digits)


def profile_records(profile: "pd.DataFrame") -> Iterable[dict[str, Any]]:
    """reward_profile.jsonl rows (one per task)."""
    pass_cols = sorted((c for c in profile.columns if c.startswith("pass@")), key=lambda c: int(c[5:]))
    for row in profile.to_dict("records"):
        yield {
            "benchmark": row["benchmark"], "model": row["model"], "task_index": int(row["task_index"]),
            "rollouts": int(row["rollouts"]), "expected_rollouts": int(row["expected_rollouts"]),
            "infra_errors": int(row["infra_errors"]), "verifier_errors": int(row["verifier_errors"]),
            "complete": bool(row["complete"]),
            "reward": {stat: _round(row[f"reward_{stat}"], 6) for stat in ("mean", "std", "min", "max", "median")},
            "pass_rate": _round(row["pass_rate"]),
            "pass@k": {c[5:]: _round(row[c]) for c in pass_cols if _round(row[c]) is not None},
            "tokens": {"prompt_mean": _round(row["prompt_tokens_mean"], 2),
                       "completion_mean": _round(row["completion_tokens_mean"], 2)},
            "bucket": row["bucket"],
            **({"bucket_decided_by": row["bucket_rule"]} if isinstance(row.get("bucket_rule"), str) else {}),
        }


def select_mask(profile: "pd.DataFrame", selection: Selection) -> "Any":
    import numpy as np

    mask = np.ones(len(profile), dtype=bool)
    mean = profile["reward_mean"].to_numpy(float)
    if selection.min_pass_rate is not None:
        mask &= mean >= selection.min_pass_rate
    if selection.max_pass_rate is not None:
        mask &= mean <= selection.max_pass_rate
    if selection.buckets is not None:
        mask &= profile["bucket"].isin(list(selection.buckets)).to_numpy()
    return mask


def prepared_rows(selected: "pd.DataFrame", prepared: dict[str, Path]) -> list[dict[str, Any]]:
    """The original prepared-input rows of the selected tasks, by benchmark then task_index.

    A task chosen for several models is exported once. The prepared file is the one the rollouts
    were collected from: task_index is its 0-based row order.
    """
    from gym.core.io import iter_jsonl

    rows: list[dict[str, Any]] = []
    for bench in sorted(selected["benchmark"].unique()):
        wanted = sorted(set(int(t) for t in selected.loc[selected["benchmark"] == bench, "task_index"]))
        path = prepared.get(bench)
        if path is None or not Path(path).is_file():
            raise GymError(f"prepared file for benchmark '{bench}' not found: {path} "
                           f"(pass prepared=<path> or +prepared.{bench}=<path> naming its prepared JSONL)")
        by_index = {}
        want = set(wanted)
        for position, (_, row) in enumerate(iter_jsonl(path)):
            if position in want:
                by_index[position] = row
        missing = [t for t in wanted if t not in by_index]
        if missing:
            raise GymError(f"{path}: has no row for task_index {missing[0]} ({len(missing)} selected task(s) out of "
                           "range); was it prepared again since the rollouts were collected?")
        rows.extend(by_index[t] for t in wanted)
    return rows


def sample_picks(frame: "pd.DataFrame", profile: "pd.DataFrame", per_bucket: int = 2, seed: int = 0) -> "pd.DataFrame":
    """A few (benchmark, model, task) per bucket, each with its first scored rollout's frame row."""
    import numpy as np
    import pandas as pd

    from gym.rollouts.row import SCORED

    if profile.empty:
        return frame.iloc[0:0].assign(bucket=[])
    rng = np.random.default_rng(seed)
    chosen = []
    for _, part in profile.groupby(["benchmark", "model", "bucket"], sort=True):
        take = rng.choice(len(part), size=min(per_bucket, len(part)), replace=False)
        chosen.append(part.iloc[np.sort(take)][["benchmark", "model", "task_index", "bucket"]])
    picks = pd.concat(chosen, ignore_index=True)
    rows = frame[frame["task_index"].isin(picks["task_index"].unique()) & frame["status"].isin(SCORED)]
    rows = rows.assign(benchmark=rows["benchmark"].astype(str), model=rows["model"].astype(str))
    rows = rows.sort_values("rollout_index", kind="stable").drop_duplicates(["benchmark", "model", "task_index"])
    return picks.merge(rows, on=["benchmark", "model", "task_index"], how="inner")
