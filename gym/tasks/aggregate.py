"""task=aggregate: metrics with 95% CIs from rollout files, or a paired comparison of two runs.

Writes metrics.json / metrics.csv (or compare.json) in the run dir and prints a table (or JSON with
output=json). Every metric is in percent (0-100); see gym.metrics for the definitions.
"""

from __future__ import annotations

import csv
import json
import logging
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from gym.config import run_dir, to_plain
from gym.errors import GymError
from gym.io import atomic_path, write_json_atomic
from gym.metrics import metric_name
from gym.table import format_table

log = logging.getLogger("gym.aggregate")


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
        raise GymError(f"output must be 'table' or 'json', got {value!r}")
    return value


def fmt_ci(metric: dict[str, Any] | None) -> str:
    if not metric or metric.get("value") is None:
        return "-"
    if metric.get("ci_low") is None:
        return f"{metric['value']:.2f}"
    return f"{metric['value']:.2f} [{metric['ci_low']:.2f}, {metric['ci_high']:.2f}]"


def _top(entry: dict[str, Any], family: str) -> tuple[str, dict[str, Any] | None]:
    ks = entry.get("k_values") or []
    if not ks:
        return family, None
    return metric_name(family, ks[-1]), entry[family][str(ks[-1])]


def metrics_table(metrics: dict[str, Any]) -> str:
    headers = ["benchmark", "model", "tasks", "rollouts", "pass@1 [95% CI]", "pass@k max", "majority@k max",
               "no-answer %", "infra errors"]
    rows = []
    for entry in metrics["benchmarks"].values():
        pass_name, pass_top = _top(entry, "pass@k")
        maj_name, maj_top = _top(entry, "majority@k")
        no_answer = entry["no_answer"]["value"]
        rows.append([entry["benchmark"], entry["model"], entry["tasks"], entry["rollouts"], fmt_ci(entry["pass@1"]),
                     f"{pass_name} {fmt_ci(pass_top)}", f"{maj_name} {fmt_ci(maj_top)}",
                     "-" if no_answer is None else f"{no_answer:.2f}", entry["counts"]["infra_error"]])
    notes = "".join(
        f"note: {label}: {e['partial_tasks']} task(s) have fewer scored rollouts than {e['rollouts_per_task']['max']}, "
        f"so k stops at {e['rollouts_per_task']['min']}\n"
        for label, e in metrics["benchmarks"].items() if e["partial_tasks"] and "adaptive" not in e)
    notes += "".join(adaptive_note(label, e["adaptive"]) for label, e in metrics["benchmarks"].items() if "adaptive" in e)
    notes += "".join(f"note: {label}: {e['unscored_tasks']} task(s) only have infra errors and are left out\n"
                     for label, e in metrics["benchmarks"].items() if e["unscored_tasks"])
    note = notes + f"scale: percent (0-100); CI: {metrics['ci_method']}"
    return format_table(headers, rows) + "\n" + scores_lines(metrics) + inputs_line(metrics.get("inputs") or {}) + note


def adaptive_note(label: str, adaptive: dict[str, Any]) -> str:
    """What an adaptive run's figures are, and which ones it cannot give."""
    missing = "; ".join(f"{name}: not estimable without bias ({why})" for name, why in adaptive["not_estimable"].items())
    return f"note: {label}: adaptive repeats ({adaptive['rule']}); {adaptive['estimator']}\nnote: {label}: {missing}\n"


def scores_lines(metrics: dict[str, Any]) -> str:
    """One line per benchmark with secondary scores, e.g. "ifeval: prompt_loose 72.10 [70.01, 74.19], ..."."""
    return "".join(f"{label}: " + ", ".join(f"{name} {fmt_ci(m)}" for name, m in e["scores"].items()) + "\n"
                   for label, e in metrics["benchmarks"].items() if e.get("scores"))


def inputs_line(inputs: dict[str, Any]) -> str:
    """What was read, and what the de-duplication did (empty when nothing to say)."""
    if not inputs:
        return ""
    line = f"read {inputs['rows_read']} row(s) from {len(inputs['files'])} file(s)"
    if inputs.get("duplicates_dropped"):
        line += (f"; {inputs['duplicates_dropped']} duplicate row(s) dropped by key, the last row wins "
                 f"({inputs['duplicates_reward_changed']} key(s) with different rewards)")
    if inputs.get("torn_lines_skipped"):
        line += f"; {inputs['torn_lines_skipped']} torn last line(s) skipped"
    return line + "\n"


def _entry_rows(entry: dict[str, Any]) -> list[tuple[str, Any, str, Any, Any]]:
    """(metric, value, unit, ci_low, ci_high) for one metrics.json entry."""
    out: list[tuple[str, Any, str, Any, Any]] = []
    for name in ("tasks", "rollouts", "scored_rollouts", "partial_tasks", "unscored_tasks"):
        out.append((name, entry[name], "count", None, None))
    out.extend((f"count/{status}", count, "count", None, None) for status, count in entry["counts"].items())
    with_ci = [("pass@1", entry["pass@1"])]
    for family in ("pass@k", "majority@k", "pass@1[avg-of-k]"):
        with_ci.extend((metric_name(family, int(k)), value) for k, value in entry[family].items())
    with_ci.append(("no_answer", entry["no_answer"]))
    with_ci.extend((f"scores/{name}", value) for name, value in (entry.get("scores") or {}).items())
    out.extend((name, m["value"], "percent", m["ci_low"], m["ci_high"]) for name, m in with_ci)
    for kind, stats in entry["tokens"].items():
        out.extend((f"tokens/{kind}/{stat}", value, "tokens", None, None) for stat, value in stats.items())
    out.extend((f"latency_s/{stat}", value, "seconds", None, None) for stat, value in entry["latency_s"].items())
    return out


def csv_rows(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per benchmark x model x metric."""
    return [{"benchmark": entry["benchmark"], "model": entry["model"], "metric": metric, "value": value,
             "ci_low": low, "ci_high": high, "unit": unit}
            for entry in metrics["benchmarks"].values()
            for metric, value, unit, low, high in _entry_rows(entry)]


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    fields = ["benchmark", "model", "metric", "value", "ci_low", "ci_high", "unit"]
    with atomic_path(path) as tmp:
        with tmp.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)


def aggregate(spec: Any, k: int | list[int] | None = None) -> tuple[dict[str, Any], Any]:
    """(metrics.json content, the loaded RolloutSet) for a rollouts spec."""
    from gym.metrics import compute_metrics
    from gym.rollouts import load_rollouts

    rollouts = load_rollouts(spec)
    log.info("read %d row(s) from %d file(s)", rollouts.rows_read, len(rollouts.files))
    metrics = compute_metrics(rollouts.frame, k)
    return {**metrics, "inputs": rollouts.summary()}, rollouts


def compare(spec_a: Any, spec_b: Any, k: int | list[int] | None = None) -> dict[str, Any]:
    """compare.json content: per benchmark both runs share, B − A with a paired bootstrap."""
    from gym.metrics import COMPARE_TEST, SCALE, SOLVED_RULE, compare_groups
    from gym.rollouts import load_rollouts

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
    k = check_k(to_plain(cfg.get("k")))
    output = check_output(cfg.get("output", "table"))
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
    metrics, _ = aggregate(to_plain(cfg.rollouts), k)
    write_json_atomic(out_dir / "metrics.json", metrics)
    write_csv(out_dir / "metrics.csv", csv_rows(metrics))
    print(json.dumps(metrics, indent=2) if output == "json" else metrics_table(metrics), flush=True)
    log.info("wrote %s and metrics.csv", out_dir / "metrics.json")
    return {"metrics": str(out_dir / "metrics.json"),
            "pass@1": {label: entry["pass@1"]["value"] for label, entry in metrics["benchmarks"].items()}}
