"""A paired comparison of two runs (B - A per benchmark both have): what `task=aggregate compare=[A,B]`
writes to compare.json and the viewer's compare page shows."""

from __future__ import annotations

from typing import Any

from gym.core.errors import GymError


def compare(spec_a: Any, spec_b: Any, k: int | list[int] | None = None,
            target_delta: float | None = None) -> dict[str, Any]:
    """compare.json content: per benchmark both runs share, B − A with a paired bootstrap."""
    from gym.metrics.compute import COMPARE_TEST, SOLVED_RULE, compare_groups
    from gym.metrics.paired import MCNEMAR, POWER_METHOD
    from gym.metrics.estimators import SCALE
    from gym.rollouts.load import load_rollouts

    runs = [load_rollouts(spec_a), load_rollouts(spec_b)]
    by_bench: list[dict[str, Any]] = []
    for side, run in zip("AB", runs):
        groups = {}
        for bench, group in run.frame.groupby("benchmark", observed=True):
            models = sorted(group["model"].astype(str).unique())
            if len(models) > 1:
                raise GymError(f"compare: run {side} has several models for benchmark '{bench}' "
                               f"({', '.join(models)}); give one model's rollouts per side")
            groups[str(bench)] = group
        by_bench.append(groups)
    shared = sorted(set(by_bench[0]) & set(by_bench[1]))
    if not shared:
        raise GymError(f"compare: the two runs share no benchmark (A: {', '.join(sorted(by_bench[0]))}; "
                       f"B: {', '.join(sorted(by_bench[1]))})")
    return {
        "scale": SCALE, "difference": "B - A (percent points)", "test": COMPARE_TEST, "solved_rule": SOLVED_RULE,
        "paired_t": "paired t-interval: mean difference ± t(0.975, T-1)·sd(d)/√T (se, t_low, t_high)",
        "mcnemar_test": MCNEMAR, "power_method": POWER_METHOD,
        "a": runs[0].summary(), "b": runs[1].summary(),
        "unpaired_benchmarks": sorted(set(by_bench[0]) ^ set(by_bench[1])),
        "benchmarks": {bench: compare_groups(by_bench[0][bench], by_bench[1][bench], k, target_delta=target_delta)
                       for bench in shared},
    }
