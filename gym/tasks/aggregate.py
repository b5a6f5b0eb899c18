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
from gym.core.typed import knobs_of
from gym.metrics.compare import compare
from gym.metrics.options import AGGREGATE_KNOBS, aggregate_options, metrics_options
from gym.metrics.paired import mcnemar_line, power_line
from gym.metrics.output import metrics_table, write_metrics
from gym.metrics.table import format_table

log = logging.getLogger("gym.aggregate")


def aggregate(spec: Any, k: int | list[int] | None = None, cluster_by: str | None = None) -> tuple[dict[str, Any], Any]:
    """(metrics.json content, the loaded RolloutSet) for a rollouts spec."""
    from gym.metrics.output import metrics_for

    return metrics_for(spec, k, cluster_by)


def _se(metric: dict[str, Any]) -> str:
    return "-" if metric.get("se") is None else f"{metric['se']:.2f}"


def _t_interval(metric: dict[str, Any]) -> str:
    return "-" if metric.get("t_low") is None else f"[{metric['t_low']:+.2f}, {metric['t_high']:+.2f}]"


def compare_text(result: dict[str, Any], max_tasks: int = 20) -> str:
    parts = []
    for bench, entry in result["benchmarks"].items():
        parts.append(f"{bench}: A={entry['model_a']} B={entry['model_b']}, {entry['paired_tasks']} paired tasks "
                     f"(only in A: {entry['only_in_a']}, only in B: {entry['only_in_b']})")
        rows = [[name, f"{m['a']:.2f}", f"{m['b']:.2f}", f"{m['diff']:+.2f}", _se(m),
                 f"[{m['ci_low']:+.2f}, {m['ci_high']:+.2f}]", _t_interval(m), f"{m['p_value']:.4f}"]
                for name, m in entry["metrics"].items()]
        parts.append(format_table(["metric", "A", "B", "B-A", "SE", "95% CI (bootstrap)", "95% CI (paired t)", "p"],
                                  rows))
        if entry.get("mcnemar"):
            parts.append(mcnemar_line(entry["mcnemar"]))
        if entry.get("power"):
            parts.append(power_line(bench, entry["power"]))
        for label, tasks in (("solved in A only", entry["flipped"]["solved_in_a_only"]),
                             ("solved in B only", entry["flipped"]["solved_in_b_only"])):
            shown = ", ".join(map(str, tasks[:max_tasks])) + (" ..." if len(tasks) > max_tasks else "")
            parts.append(f"{label}: {len(tasks)} task(s)" + (f": {shown}" if tasks else ""))
        parts.append("")
    parts.append(f"scale: percent; test: {result['test']}; {result['solved_rule']}")
    return "\n".join(parts)


def run(cfg: DictConfig) -> dict[str, Any]:
    knobs = knobs_of(cfg, AGGREGATE_KNOBS)
    k, output = aggregate_options(knobs)
    options = metrics_options(knobs)
    out_dir = run_dir(cfg)
    pair = to_plain(cfg.get("compare"))
    has_rollouts = not OmegaConf.is_missing(cfg, "rollouts") and cfg.get("rollouts") is not None
    if pair is not None:
        if has_rollouts:
            raise GymError("give either rollouts=<spec> or compare=[A,B], not both")
        if not isinstance(pair, list) or len(pair) != 2:
            raise GymError(f"compare must be a list of two rollout specs [A, B], got {pair!r}")
        result = compare(pair[0], pair[1], k, options.target_delta)
        path = out_dir / "compare.json"
        write_json_atomic(path, result)
        print(json.dumps(result, indent=2) if output == "json" else compare_text(result), flush=True)
        log.info("wrote %s", path)
        return {"compare": str(path), "benchmarks": sorted(result["benchmarks"])}
    if not has_rollouts:
        raise GymError("rollouts=<file|glob|run dir|sweep dir> is required (or compare=[A,B])")
    from gym.rollouts.shards import check_shards

    check_shards(to_plain(cfg.rollouts), bool(cfg.get("allow_partial")))
    metrics, _ = aggregate(to_plain(cfg.rollouts), k, options.cluster_by)
    write_metrics(out_dir, metrics)
    print(json.dumps(metrics, indent=2) if output == "json" else metrics_table(metrics), flush=True)
    log.info("wrote %s and metrics.csv", out_dir / "metrics.json")
    return {"metrics": str(out_dir / "metrics.json"),
            "pass@1": {label: entry["pass@1"]["value"] for label, entry in metrics["benchmarks"].items()}}
