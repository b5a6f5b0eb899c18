"""Metrics of episode benchmarks (family `episode`, added by task=aggregate beside pass@k).

* `pass^k` for k = 1 .. the smallest number of scored tries of any task, each with a 95% t-interval
  over tasks (gym.episodes.passk); over several episode benchmarks (one per τ² domain) also their macro
  average, the mean of the domains' values (`macro_average`).
* the termination mix (share of each reason), the database-match and communicate rates (over episodes
  whose grade ran those checks), means per episode of steps, agent turns, tool calls, tool errors and
  unknown tool names, the share of episodes with a transfer to a human agent, the user simulator's
  tokens, and how many tasks needed NL assertions that were skipped.
* BFCL multi-turn (environment `bfcl`): accuracy per category, their unweighted mean and the failures'
  error types (`bfcl_figures`).
* SciCode (environment `scicode`): sub-step accuracy pooled over rollouts (steps passed / steps graded, the
  reference's headline `subtask_accuracy`) beside main-problem accuracy (every step passed: pass@1).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from gym.episodes.passk import METHOD, pass_hat_k_per_task


def _episode(row: dict) -> dict:
    value = row.get("episode")
    return value if isinstance(value, dict) else {}


def _details(row: dict) -> dict:
    value = row.get("verifier")
    return value if isinstance(value, dict) else {}


def pass_hat_k_table(rows: list[dict], mean_ci: Callable) -> dict[str, Any]:
    """{"k_values", "pass^k": {k: mean_ci}} over the rows' tasks (scored rows only)."""
    import numpy as np

    scored = [r for r in rows if r.get("status") in ("ok", "model_error")]
    if not scored:
        return {"k_values": [], "pass^k": {}}
    tasks = sorted({r["task_index"] for r in scored})
    code = {t: i for i, t in enumerate(tasks)}
    task = np.array([code[r["task_index"]] for r in scored], dtype=np.int64)
    reward = np.array([float(r.get("reward") or 0.0) for r in scored])
    smallest = int(np.bincount(task).min())
    ks = list(range(1, smallest + 1))
    table = pass_hat_k_per_task(task, reward, len(tasks), ks)
    return {"k_values": ks, "pass^k": {str(k): mean_ci(table[:, col]) for col, k in enumerate(ks)},
            "pass^k_method": METHOD}


def _rate(values: list[bool]) -> float | None:
    return round(100.0 * sum(values) / len(values), 4) if values else None


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def episode_metrics(rows: list[dict], mean_ci: Callable) -> dict[str, Any]:
    ok = [r for r in rows if r.get("status") == "ok"]
    episodes = [_episode(r) for r in ok]
    terminations = Counter(e.get("termination") or "unknown" for e in episodes)
    details = [_details(r) for r in ok]
    db = [bool(d["db_match"]) for d in details if "db_match" in d]
    communicate = [all(c.get("met") for c in d["communicate"]) for d in details if d.get("communicate")]
    user_tokens = [sum(v for k, v in (e.get("user_usage") or {}).items() if k == "total_tokens") for e in episodes]
    out: dict[str, Any] = pass_hat_k_table(rows, mean_ci)
    out.update({
        "episodes": len(ok),
        "terminations": {name: {"count": n, "percent": round(100.0 * n / len(ok), 2)}
                         for name, n in terminations.most_common()} if ok else {},
        "db_match_rate": _rate(db), "communicate_rate": _rate(communicate),
        "nl_assertions_skipped": sum(1 for d in details if d.get("nl_assertions") == "skipped"),
        "per_episode": {name: _mean([float(e.get(name) or 0) for e in episodes])
                        for name in ("steps", "agent_turns", "tool_calls", "tool_errors", "unknown_tools",
                                     "user_turns", "user_tool_calls")},
        "transfer_rate": _rate([bool(e.get("transfers")) for e in episodes]),
        "no_tool_call_rate": _rate([not e.get("tool_calls") for e in episodes]),
        "user_tokens": {"total": sum(user_tokens), "mean": _mean(user_tokens)},
        "user_models": sorted({str(e.get("user_model") or "none (solo mode)") for e in episodes}),
    })
    graded_by_bfcl = [(d, r) for d, r in zip(details, ok) if d.get("environment") == "bfcl"]
    if graded_by_bfcl:
        out["bfcl"] = bfcl_figures(graded_by_bfcl)
    steps = [d for d in details if d.get("environment") == "scicode"]
    if steps:
        out["scicode"] = scicode_figures(steps)
    return out


def scicode_figures(details: list[dict]) -> dict[str, Any]:
    """Sub-step accuracy pooled over rollouts (steps passed / steps graded) and main-problem accuracy, in percent."""
    passed = sum(int(d.get("num_steps_passed") or 0) for d in details)
    total = sum(int(d.get("num_steps_total") or 0) for d in details)
    solved = sum(bool(d.get("num_steps_total")) and d.get("num_steps_passed") == d.get("num_steps_total")
                 for d in details)
    return {"subtask_accuracy": round(100.0 * passed / total, 2) if total else None, "steps_passed": passed,
            "steps_total": total, "problem_accuracy": round(100.0 * solved / len(details), 2)}


def bfcl_figures(graded: list[tuple[dict, dict]]) -> dict[str, Any]:
    """BFCL multi-turn's own summary: accuracy per category, their unweighted mean (the leaderboard's
    "overall" multi-turn figure), and how the failures split by upstream's error types."""
    by_category: dict[str, list[float]] = {}
    for details, row in graded:
        by_category.setdefault(str(details.get("category")), []).append(float(row.get("reward") or 0.0))
    accuracy = {name: round(100.0 * sum(v) / len(v), 2) for name, v in sorted(by_category.items())}
    failures = Counter(d.get("error_type") or "unknown" for d, r in graded if not r.get("reward"))
    return {"accuracy_by_category": accuracy, "overall_accuracy": round(sum(accuracy.values()) / len(accuracy), 2),
            "error_types": dict(failures.most_common())}


def macro_average(entries: list[dict]) -> dict[str, Any] | None:
    """Mean over episode benchmarks (domains) of pass^k, for the k every one of them has."""
    tables = [e["pass^k"] for e in entries if e.get("pass^k")]
    if len(tables) < 2:
        return None
    ks = sorted(set.intersection(*(set(t) for t in tables)), key=int)
    values = {k: [t[k]["value"] for t in tables if t[k].get("value") is not None] for k in ks}
    return {"domains": len(tables),
            "pass^k": {k: round(sum(v) / len(v), 4) for k, v in values.items() if v}}
