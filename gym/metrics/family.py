"""Family-level metrics that are not means of per-rollout rewards (added by task=aggregate).

Which family a benchmark's rollouts belong to is read from their verifier details (`details.family`, set by
the families that have such metrics), so user benchmarks built on these families get the same numbers. The
family computes them itself (`Verifier.family_metrics` with the estimators here, gym.verifiers.base) and writes
its line of the aggregate table (`Verifier.summary_line`); each entry of metrics.json gains a `family_metrics`
object. Which figures a family reports is written beside its `family_metrics` (pairwise win rate, label
precision/recall or IMO-point MAE, translation corpus BLEU/chrF, long_context pass@1 per prompt size, sql
failure kinds, tool_call per-category accuracy and BFCL's figures, ioi's contest total, iheval's task-macro
scores, episode pass^k). A judge panel (judges=[...], details family `judge_panel`) adds the judges' agreement,
Cohen's κ per pair and Krippendorff's α (gym.metrics.agreement): a panel is a way of judging, not a family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from gym.metrics.estimators import mean_ci
from gym.rollouts.row import SCORED
from gym.verifiers import FAMILIES, Verifier, family_class
from gym.verifiers.base import details_of

if TYPE_CHECKING:  # pragma: no cover
    from gym.rollouts.load import RolloutSet

BOOTSTRAP_SAMPLES = 2000


def bootstrap_ci(values: list[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> dict[str, float | None]:
    """{"value", "ci_low", "ci_high"} in percent: the mean of per-task values in [0, 1], percentile bootstrap.

    A resample of T tasks is drawn as multinomial counts over the distinct per-task values, which has the
    same distribution as drawing T tasks with replacement and costs O(samples x distinct values)."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return {"value": None, "ci_low": None, "ci_high": None}
    mean = float(arr.mean())
    if arr.size < 2:
        return {"value": round(100 * mean, 4), "ci_low": None, "ci_high": None}
    distinct, counts = np.unique(arr, return_counts=True)
    if distinct.size == 1 and 0 <= mean <= 1:  # every resample is the same: never a zero-width interval
        from gym.metrics.intervals import interval

        return {key: value for key, value in interval(arr).items() if key in ("value", "ci_low", "ci_high", "method")}
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(arr.size, counts / arr.size, size=samples)
    means = draws @ distinct / arr.size
    low, high = np.percentile(means, [2.5, 97.5])
    return {"value": round(100 * mean, 4), "ci_low": round(100 * float(low), 4), "ci_high": round(100 * float(high), 4)}


def _per_task(rows: list[dict], key: Callable[[dict], Any] = lambda r: None) -> dict[Any, list[float]]:
    """{group: [per-task mean reward]} over scored rows (model_error scores 0)."""
    import pandas as pd

    if not rows:
        return {}
    groups = (key(r) for r in rows)
    frame = pd.DataFrame({"group": ["" if g is None else str(g) for g in groups],
                          "task": [r["task_index"] for r in rows],
                          "reward": [float(r.get("reward") or 0.0) for r in rows]})
    means = frame.groupby(["group", "task"], sort=True)["reward"].mean()
    return {(None if group == "" else group): list(values.to_numpy())
            for group, values in means.groupby(level="group", sort=True)}


class _Stats:
    """The estimators a family's `family_metrics` gets (gym.verifiers.base.FamilyStats)."""

    per_task = staticmethod(_per_task)
    bootstrap_ci = staticmethod(bootstrap_ci)
    mean_ci = staticmethod(mean_ci)


STATS = _Stats()
PANEL = "judge_panel"  # the details family of a judges=[...] run


def _family_of(name: Any) -> type[Verifier] | None:
    return family_class(name) if isinstance(name, str) and name in FAMILIES else None


def _metrics_of(family: Any) -> tuple[Callable[[list[dict]], dict[str, Any]], tuple[str, ...]] | None:
    """How a details family's metrics are computed from its rows, and which of them are headlines; None: it
    has none (a family without `family_metrics`, or no family at all)."""
    if family == PANEL:
        from gym.metrics.agreement import judge_panel

        return judge_panel, ()
    cls = _family_of(family)
    if cls is None or not cls.overrides("family_metrics"):
        return None
    return (lambda rows: cls.family_metrics(rows, STATS) or {}), cls.headlines


def add_family_metrics(metrics: dict[str, Any], rollouts: "RolloutSet") -> None:
    """Add `family_metrics` to each metrics.json entry whose rollouts come from a family that has them."""
    frame = rollouts.frame
    if frame.empty or not len(metrics.get("benchmarks", {})):
        return
    import numpy as np

    scored, places = frame["status"].isin(SCORED).to_numpy(), ["source", "ordinal", "key"]  # what raw_rows reads
    is_ok = (frame["status"] == "ok").to_numpy()
    for entry in metrics["benchmarks"].values():
        mask = scored & (frame["benchmark"] == entry["benchmark"]).to_numpy() & (frame["model"] == entry["model"]).to_numpy()
        ok = np.flatnonzero(mask & is_ok)
        if not len(ok):
            continue
        first_ok = ok[0]  # the earliest ok row by file and line: load_rollouts keeps rows in that order
        first = rollouts.raw_rows(frame.iloc[[first_ok]][places])[0] or {}
        family = details_of(first).get("family")
        maker = _metrics_of(family)
        if maker is None:
            continue
        compute, headlines = maker
        rows = [row for row in rollouts.raw_rows(frame.loc[mask, places]) if row is not None]
        entry["family_metrics"] = {"family": family, **compute(rows)}
        for key in headlines:  # beside pass@k (episode's pass^k), not a detail
            entry[key] = entry["family_metrics"].pop(key, None)
    _episode_macro(metrics)


def _episode_macro(metrics: dict[str, Any]) -> None:
    """Over several episode benchmarks (one per τ² domain), their pass^k macro average."""
    from gym.episodes.metrics import macro_average

    macro = macro_average([e for e in metrics["benchmarks"].values() if "pass^k" in e])
    if macro is not None:
        metrics["pass^k_macro_average"] = macro


def family_lines(metrics: dict[str, Any]) -> str:
    """One line per benchmark with family metrics, for the aggregate table."""
    lines = []
    for label_, entry in metrics["benchmarks"].items():
        fm = entry.get("family_metrics")
        if not fm:
            continue
        if fm["family"] == PANEL:
            from gym.metrics.agreement import panel_line

            text = panel_line(fm)
        else:
            text = family_class(fm["family"]).summary_line(entry)
        lines.append(f"{label_}: {text}\n")
    macro = metrics.get("pass^k_macro_average")
    if macro:
        lines.append(f"pass^k macro average over {macro['domains']} episode benchmarks: "
                     + ", ".join(f"pass^{k} {v:.2f}" for k, v in macro["pass^k"].items()) + "\n")
    return "".join(lines)
