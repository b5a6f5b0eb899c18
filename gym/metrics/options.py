"""The aggregate and profile knobs, checked before any file is read.

They take the knobs as plain values (the task's door reads them from its config: gym.core.typed.knobs_of
with AGGREGATE_KNOBS / PROFILE_KNOBS). task=e2e checks both before its first model call (a typo in
`aggregate.k` must not cost a run), and task=aggregate / task=profile read them here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from gym.core.errors import GymError
from gym.metrics.reward_profiles import BucketEdges, Selection


def check_k(value: Any) -> int | list[int] | None:
    """k: null, a positive integer, or a list of positive integers."""
    if value is None:
        return None
    values = value if isinstance(value, list) else [value]
    for item in values:
        if isinstance(item, bool) or not isinstance(item, int) or item < 1:
            raise GymError(f"k must be null, a positive integer or a list of them, got {value!r}")
    return values if isinstance(value, list) else value


def check_output(value: Any) -> str:
    if value not in ("table", "json"):
        raise GymError(f"format must be 'table' or 'json', got {value!r}")
    return value


AGGREGATE_KNOBS = ("k", "format", "metrics")
PROFILE_KNOBS = ("rollouts", "buckets", "select", "expected_repeats", "samples_per_bucket", "allow_partial", "plots",
                 "report", "prepared", "data")


def aggregate_options(knobs: Mapping[str, Any]) -> tuple[int | list[int] | None, str]:
    """(k, format) of task=aggregate."""
    return check_k(knobs.get("k")), check_output(knobs.get("format", "table"))


@dataclass(frozen=True)
class MetricsOptions:
    cluster_by: str | None = None  # a subsets column or top-level row field; None = the benchmark's declared key
    target_delta: float | None = None  # compare: the difference (percent points) to detect at 80% power


def metrics_options(knobs: Mapping[str, Any]) -> MetricsOptions:
    """The `metrics` node (global: e2e's aggregate step and task=aggregate read it alike)."""
    node = knobs.get("metrics") or {}
    cluster_by, delta = node.get("cluster_by"), node.get("target_delta")
    if cluster_by is not None and (not isinstance(cluster_by, str) or not cluster_by.strip()):
        raise GymError(f"metrics.cluster_by must be a row field name (e.g. subsets.domain), got {cluster_by!r}")
    if delta is not None:
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0 < delta <= 100:
            raise GymError(f"metrics.target_delta must be a difference in percent points in (0, 100], got {delta!r}")
        delta = float(delta)
    return MetricsOptions(cluster_by.strip() if cluster_by else None, delta)


def _flag(knobs: Mapping[str, Any], name: str, default: bool) -> bool:
    value = knobs.get(name, default)
    if not isinstance(value, bool):
        raise GymError(f"{name} must be true or false, got {value!r}")
    return value


def profile_options(knobs: Mapping[str, Any]) -> dict[str, Any]:
    """Every knob of task=profile (PROFILE_KNOBS) checked before any file is read."""
    if knobs.get("rollouts") is None:
        raise GymError("rollouts=<file|glob|run dir|sweep dir> is required")
    buckets = knobs.get("buckets") or {}
    unknown = set(buckets) - {"hard_max", "easy_min"}
    if unknown:
        raise GymError(f"buckets: unknown key(s) {', '.join(sorted(unknown))}; set buckets.hard_max / buckets.easy_min")
    select = knobs.get("select") or {}
    unknown = set(select) - {"min_pass_rate", "max_pass_rate", "buckets"}
    if unknown:
        raise GymError(f"select: unknown key(s) {', '.join(sorted(unknown))}; "
                       "use select.min_pass_rate, select.max_pass_rate, select.buckets")
    chosen = select.get("buckets")
    if isinstance(chosen, str):
        chosen = [chosen]
    expected = knobs.get("expected_repeats")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int) or expected < 1):
        raise GymError(f"expected_repeats must be null or a positive integer, got {expected!r}")
    samples = knobs.get("samples_per_bucket", 2)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise GymError(f"samples_per_bucket must be a non-negative integer, got {samples!r}")
    return {
        "rollouts": knobs["rollouts"],
        "edges": BucketEdges(**buckets),
        "selection": Selection(select.get("min_pass_rate"), select.get("max_pass_rate"),
                               tuple(chosen) if chosen is not None else None),
        "allow_partial": _flag(knobs, "allow_partial", False),
        "expected_repeats": expected,
        "plots": _flag(knobs, "plots", True),
        "report": _flag(knobs, "report", True),
        "samples_per_bucket": samples,
        "prepared": _prepared(knobs.get("prepared")),
        "data_root": Path(str(knobs["data"]["root"])) if knobs.get("data") is not None else None,
    }


def _prepared(value: Any) -> dict[str, Path] | Path:
    """`prepared=<path>` (one file for the one benchmark exported) or a benchmark -> path mapping."""
    if value is None:
        return {}
    if isinstance(value, str):
        return Path(value).expanduser()
    if isinstance(value, dict):
        return {str(k): Path(str(v)).expanduser() for k, v in value.items()}
    raise GymError(f"prepared must be a path or a mapping benchmark -> path, got {value!r}")
