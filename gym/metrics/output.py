"""metrics.json / metrics.csv and the metrics table: the output of task=aggregate (and of reverify).

Shared by the tasks that write metrics; gym.metrics.compute computes them.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path
from typing import Any

from gym.metrics import intervals, parse_errors, repeats
from gym.core.io import atomic_path, write_json_atomic
from gym.metrics.estimators import metric_name
from gym.metrics.table import display_name, fmt_ci, format_table  # noqa: F401  (fmt_ci: also used from here)

log = logging.getLogger("gym.aggregate")


def metrics_for(spec: Any, k: int | list[int] | None = None, cluster_by: str | None = None) -> tuple[dict[str, Any], Any]:
    """(metrics.json content, the loaded RolloutSet) for a rollouts spec; `cluster_by` as metrics.cluster_by."""
    from gym.metrics.clusters import cluster_labels
    from gym.metrics.compute import compute_metrics
    from gym.rollouts.load import load_rollouts
    from gym.metrics.family import add_family_metrics
    from gym.metrics.subsets import add_subsets

    rollouts = load_rollouts(spec)
    log.debug("read %d row(s) from %d file(s)", rollouts.rows_read, len(rollouts.files))  # the table says it
    key, labels = cluster_labels(rollouts, cluster_by)
    metrics = compute_metrics(rollouts.frame, k, labels, key)
    parse_errors.add_to_metrics(metrics, rollouts.files)  # math verdicts: LaTeX the parser could not read
    add_subsets(metrics, rollouts, k)
    add_family_metrics(metrics, rollouts)  # win rate, MAE, corpus BLEU, length buckets
    from gym.metrics.cost import add_costs

    add_costs(metrics, rollouts)  # tokens per role; dollars when collect priced the rows
    return {**metrics, "inputs": rollouts.summary()}, rollouts


def write_metrics(out_dir: Path, metrics: dict[str, Any]) -> None:
    """metrics.json and metrics.csv in `out_dir`, each written atomically."""
    write_json_atomic(Path(out_dir) / "metrics.json", metrics)
    from gym.metrics.subsets import csv_rows as subset_csv_rows

    write_csv(Path(out_dir) / "metrics.csv", csv_rows(metrics) + subset_csv_rows(metrics))


def _top(entry: dict[str, Any], family: str) -> tuple[str, dict[str, Any] | None]:
    ks = entry.get("k_values") or []
    if not ks:
        return family, None
    return metric_name(family, ks[-1]), entry[family][str(ks[-1])]


def metrics_table(metrics: dict[str, Any]) -> str:
    headers = ["benchmark", "model", "tasks", "rollouts", "pass@1 [95% CI]", "pass@k max", "majority@k max",
               "no-answer %", "infra errors", "verifier errors"]
    rows = []
    for entry in metrics["benchmarks"].values():
        pass_name, pass_top = _top(entry, "pass@k")
        maj_name, maj_top = _top(entry, "majority@k")
        no_answer = entry["no_answer"]["value"]
        rows.append([entry["benchmark"], display_name(entry["model"]), entry["tasks"], entry["rollouts"], fmt_ci(entry["pass@1"]),
                     f"{pass_name} {fmt_ci(pass_top)}", f"{maj_name} {fmt_ci(maj_top)}",
                     "-" if no_answer is None else f"{no_answer:.2f}", entry["counts"]["infra_error"],
                     entry["counts"].get("verifier_error", 0)])
    notes = "".join(
        f"note: {label}: {e['partial_tasks']} task(s) have fewer scored rollouts than {e['rollouts_per_task']['max']}, "
        f"so k stops at {e['rollouts_per_task']['min']}\n"
        for label, e in metrics["benchmarks"].items() if e["partial_tasks"] and "adaptive" not in e)
    notes += "".join(adaptive_note(label, e["adaptive"]) for label, e in metrics["benchmarks"].items() if "adaptive" in e)
    notes += "".join(f"note: {label}: {e['unscored_tasks']} task(s) only have infra errors or verifier errors and are left out\n"
                     for label, e in metrics["benchmarks"].items() if e["unscored_tasks"])
    notes += parse_errors.note_lines(metrics)
    for kind in ("small_n", "clustering", "repeats"):  # grouped by kind across benchmarks, as ever
        notes += "".join(error_bar_notes(label, e, kind) for label, e in metrics["benchmarks"].items())
    note = notes + "scale: percent (0-100); " + ci_footnote(metrics)
    from gym.metrics.family import family_lines
    from gym.metrics.subsets import subsets_text

    from gym.metrics.cost import cost_line

    costs = "".join(cost_line(label, e["cost"]) for label, e in metrics["benchmarks"].items() if e.get("cost"))
    return (format_table(headers, rows) + "\n" + scores_lines(metrics) + costs + family_lines(metrics) + subsets_text(metrics)
            + inputs_line(metrics.get("inputs") or {}) + note)


def ci_footnote(metrics: dict[str, Any]) -> str:
    """The 95% interval methods the figures above use, one clause each."""
    methods = metrics.get("ci_methods") or intervals.METHODS
    used = intervals.methods_used(metrics)
    if not used:
        return f"CI: {metrics.get('ci_method', '')}"
    return "95% CI: " + "; ".join(f"{name} = {methods.get(name, name)}" for name in used)


def error_bar_notes(label: str, entry: dict[str, Any], kind: str | None = None) -> str:
    """What one benchmark's error bars need said, as the table's footnotes say it (the viewer's run page
    too): too few tasks, the clustering and its design effect, the repeats' variance split; `kind` for one."""
    notes = {"small_n": intervals.small_n_note(label, entry),
             "clustering": cluster_note(label, entry["clustering"]) if entry.get("clustering") else "",
             "repeats": repeats.note(label, entry["repeats"]) if entry.get("repeats") else ""}
    return notes[kind] if kind else "".join(notes.values())


def cluster_note(label: str, clustering: dict[str, Any]) -> str:
    if clustering["clusters"] < 2:
        return f"note: {label}: all tasks share one value of {clustering['by']}: the intervals stay over tasks\n"
    deff = clustering.get("design_effect")
    effect = "-" if deff is None else f"{deff:.2f}"
    return (f"note: {label}: intervals clustered by {clustering['by']} ({clustering['clusters']} clusters); design "
            f"effect {effect} (the variance is {effect}x what independent tasks would give)\n")


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
    with_ci.extend((f"pass^{k}", value) for k, value in (entry.get("pass^k") or {}).items())  # episode benchmarks
    with_ci.append(("no_answer", entry["no_answer"]))
    with_ci.extend((f"scores/{name}", value) for name, value in (entry.get("scores") or {}).items())
    out.extend((name, m["value"], "percent", m["ci_low"], m["ci_high"]) for name, m in with_ci)
    for kind, stats in entry["tokens"].items():
        out.extend((f"tokens/{kind}/{stat}", value, "tokens", None, None) for stat, value in stats.items())
    out.extend((f"latency_s/{stat}", value, "seconds", None, None) for stat, value in entry["latency_s"].items())
    cost = entry.get("cost") or {}
    out.extend((f"tokens/{role}/total", count, "count", None, None) for role, count in (cost.get("tokens") or {}).items()
               if count)  # a count of tokens: shown whole
    out.extend((f"cost/{name}", cost[name], "usd", None, None) for name in ("usd", "usd_per_task") if name in cost)
    if (entry.get("clustering") or {}).get("design_effect") is not None:
        out.append(("design_effect", entry["clustering"]["design_effect"], "ratio", None, None))
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
