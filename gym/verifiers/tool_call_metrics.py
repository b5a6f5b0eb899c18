"""Family metrics of tool-calling benchmarks (verifier family `tool_call`), added by task=aggregate.

* per category: accuracy in percent (mean of per-task rewards) with a 95% bootstrap CI;
* BFCL's summary figures over the categories present, with the leaderboard's weighting
  (bfcl_eval/eval_checker/eval_runner_helper.py): `non_live` = unweighted mean of simple (itself the
  unweighted mean of simple_python, simple_java, simple_javascript), multiple, parallel and
  parallel_multiple; `live` = mean of live_simple, live_multiple, live_parallel and
  live_parallel_multiple weighted by their task counts; `irrelevance` = unweighted mean of irrelevance and
  live_irrelevance; `relevance` = live_relevance. A figure lists the categories it lacks in `missing`
  (the leaderboard counts a missing category as 0 and shows N/A; gym averages what is there and says so);
* the tool-call trouble counts (unparsed_tool_calls, invalid_tool_arguments, unknown_tools) summed over
  the rows, and how many replies did not decode, by BFCL's error type.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

SIMPLE = ("simple_python", "simple_java", "simple_javascript")
NON_LIVE = ("simple", "multiple", "parallel", "parallel_multiple")
LIVE = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
IRRELEVANCE = ("irrelevance", "live_irrelevance")
PROBLEMS = ("unparsed_tool_calls", "invalid_tool_arguments", "unknown_tools")


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summary_figures(accuracy: dict[str, float], tasks: dict[str, int]) -> dict[str, Any]:
    """BFCL's summary figures (percent) from per-category accuracy and task counts."""
    present = dict(accuracy)
    simple = [present[c] for c in SIMPLE if c in present]
    if simple:
        present["simple"] = sum(simple) / len(simple)

    def unweighted(names: tuple[str, ...], needed: tuple[str, ...]) -> dict[str, Any]:
        values = [present[n] for n in names if n in present]
        return {"value": _mean(values), "missing": [n for n in needed if n not in accuracy]}

    live = [(accuracy[c], tasks[c]) for c in LIVE if c in accuracy]
    weight = sum(count for _, count in live)
    return {
        "non_live": unweighted(NON_LIVE, SIMPLE + NON_LIVE[1:]),
        "live": {"value": round(sum(a * n for a, n in live) / weight, 4) if weight else None,
                 "missing": [c for c in LIVE if c not in accuracy]},
        "irrelevance": unweighted(IRRELEVANCE, IRRELEVANCE),
        "relevance": {"value": accuracy.get("live_relevance"),
                      "missing": [] if "live_relevance" in accuracy else ["live_relevance"]},
    }


def tool_call(rows: list[dict], per_task: Callable, bootstrap: Callable) -> dict[str, Any]:
    """The family's metrics; `per_task` and `bootstrap` are the estimators gym.metrics hands over."""
    details = [r.get("verifier") if isinstance(r.get("verifier"), dict) else {} for r in rows]
    by_category = per_task(rows, lambda r: (r.get("verifier") or {}).get("category") or "-")
    categories = {str(c): {**bootstrap(v), "tasks": len(v)} for c, v in sorted(by_category.items())}
    accuracy = {c: m["value"] for c, m in categories.items() if m["value"] is not None}
    problems: Counter = Counter()
    for row in rows:
        found = row.get("tool_call_problems")
        if isinstance(found, dict):
            problems.update({k: int(v) for k, v in found.items() if k in PROBLEMS and isinstance(v, int)})
    errors = Counter(d.get("error_type") for d in details if d.get("error_type"))
    return {"by_category": categories,
            "bfcl_summary": summary_figures(accuracy, {c: m["tasks"] for c, m in categories.items()}),
            "tool_call_problems": {kind: problems.get(kind, 0) for kind in PROBLEMS},
            "error_types": dict(sorted(errors.items())),
            "method": "percent; per-category 95% percentile bootstrap over tasks; BFCL's summary weighting"}


def summary_line(fm: dict[str, Any]) -> str:
    figures = fm["bfcl_summary"]
    shown = ", ".join(f"{name} {'-' if f['value'] is None else format(f['value'], '.2f')}"
                      + (f" (without {', '.join(f['missing'])})" if f["missing"] and f["value"] is not None else "")
                      for name, f in figures.items())
    problems = ", ".join(f"{k} {v}" for k, v in fm["tool_call_problems"].items())
    return f"BFCL summary: {shown}; {problems}"
