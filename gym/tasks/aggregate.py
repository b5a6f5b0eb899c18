"""task=aggregate: metrics with 95% CIs from rollout files, or a paired comparison of two runs.

Writes metrics.json / metrics.csv (or compare.json) in the run dir and prints a table (or JSON with
format=json). Every metric is in percent (0-100); see gym.metrics.compute for the definitions.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from omegaconf import DictConfig, OmegaConf

from gym.core.config import run_dir, to_plain
from gym.core.errors import GymError
from gym.core.io import write_json_atomic
from gym.metrics.options import aggregate_options
from gym.metrics.output import metrics_table, write_metrics
from gym.metrics.table import format_table

log = logging.getLogger("gym.aggregate")


def aggregate(spec: Any, k: int | list[int] | None = None) -> tuple[dict[str, Any], Any]:
    """(metrics.json content, the loaded RolloutSet) for a rollouts spec."""
    from gym.metrics.output import metrics_for

    return metrics_for(spec, k)


def compare(spec_a: Any, spec_b: Any, k: int | list[int] | None = None) -> dict[str, Any]:
    """compare.json content: per benchmark both runs share, B − A with a paired bootstrap."""
    from gym.metrics.compute import COMPARE_TEST, SOLVED_RULE, compare_groups
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
        "a": runs[0].summary(), "b": runs[1].summary(),
        "unpaired_benchmarks": sorted(set(by_bench[0]) ^ set(by_bench[1])),
        "benchmarks": {bench: compare_groups(by_bench[0][bench], by_bench[1][bench], k) for bench in shared},
    }


def compare_text(result: dict[str, Any], max_tasks: int = 20) -> str:
    parts = []
    for bench, entry in result["benchmarks"].items():
        parts.append(f"{bench}: A={entry['model_a']} B={entry['model_b']}, {entry['paired_tasks']} paired tasks "
                     f"(only in A: {entry['only_in_a']}, only in B: {entry['only_in_b']})")
        rows = [[name, f"{m['a']:.2f}", f"{m['b']:.2f}", f"{m['diff']:+.2f}",
                 f"[{m['ci_low']:+.2f}, {m['ci_high']:+.2f}]", f"{m['p_value']:.4f}"]
                for name, m in entry["metrics"].items()]
        parts.append(format_table(["metric", "A", "B", "B-A", "95% CI", "p"], rows))
        for label, tasks in (("solved in A only", entry["flipped"]["solved_in_a_only"]),
                             ("solved in B only", entry["flipped"]["solved_in_b_only"])):
            shown = ", ".join(map(str, tasks[:max_tasks])) + (" ..." if len(tasks) > max_tasks else "")
            parts.append(f"{label}: {len(tasks)} task(s)" + (f": {shown}" if tasks else ""))
        parts.append("")
    parts.append(f"scale: percent; test: {result['test']}; {result['solved_rule']}")
    return "\n".join(parts)


def run(cfg: DictConfig) -> dict[str, Any]:
    k, output = aggregate_options(cfg)
    out_dir = run_dir(cfg)
    pair = to_plain(cfg.get("compare"))
    has_rollouts = not OmegaConf.is_missing(cfg, "rollouts") and cfg.get("rollouts") is not None
    if pair is not None:
        if has_rollouts:
            raise GymError("give either rollouts=<spec> or compare=[A,B], not both")
        if not isinstance(pair, list) or len(pair) != 2:
            raise GymError(f"compare must be a list of two rollout specs [A, B], got {pair!r}")
        result = compare(pair[0], pair[1], k)
        path = out_dir / "compare.json"
        write_json_atomic(path, result)
        print(json.dumps(result, indent=2) if output == "json" else compare_text(result), flush=True)
        log.info("wrote %s", path)
        return {"compare": str(path), "benchmarks": sorted(result["benchmarks"])}
    if not has_rollouts:
        raise GymError("rollouts=<file|glob|run dir|sweep dir> is required (or compare=[A,B])")
    from gym.rollouts.shards import check_shards

    check_shards(to_plain(cfg.rollouts), bool(cfg.get("allow_partial")))
    metrics, _ = aggregate(to_plain(cfg.rollouts), k)
    write_metrics(out_dir, metrics)
    print(json.dumps(metrics, indent=2) if output == "json" else metrics_table(metrics), flush=True)
    log.info("wrote %s and metrics.csv", out_dir / "metrics.json")
    return {"metrics": str(out_dir / "metrics.json"),
            "pass@1": {label: entry["pass@1"]["value"] for label, entry in metrics["benchmarks"].items()}}
