"""The end of a collect run: its summary (returned, printed, in run.json) and the closing lines a user reads."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from gym.core.errors import GymError
from gym.core.io import write_json_atomic
from gym.core.runlog import to_file
from gym.model.calls import model_time_lines
from gym.model.client import ModelClient
from gym.model.replicas import replica_lines
from gym.rollouts.plan import Plan
from gym.rollouts.runner import LIMIT_FLAGS, Tally
from gym.rollouts.settings import CollectSettings

if TYPE_CHECKING:  # pragma: no cover
    from gym.collect.endpoints import RunEndpoints

log = logging.getLogger("gym.collect")


def shard_info(settings: CollectSettings) -> dict[str, Any]:
    return {"shard": f"{settings.shard[0]}/{settings.shard[1]}"} if settings.shard is not None else {}


def summarise(settings: CollectSettings, ends: RunEndpoints, plan: Plan, tally: Tally, count: int,
              started_at: str, where: dict[str, Any]) -> dict[str, Any]:
    """The summary (returned, printed, in run.json); GymError when rollouts hit infrastructure errors."""
    counts, client, out_path = tally.counts, ends.client, settings.paths.rollouts
    summary = {
        "benchmark": settings.benchmark.name, "model": client.model, "rollouts_file": str(out_path),
        **shard_info(settings), "tasks": count, "num_repeats": settings.limits.repeats,
        "expected_rollouts": plan.total,
        "skipped_done": plan.skipped, "ran": tally.ran, "counts": dict(counts),
        "limits": {name: tally.limits[name] for name in LIMIT_FLAGS}, "retries": client.retries,
        "seconds": round(tally.seconds, 3),
        "rollouts_per_s": round(tally.ran / tally.seconds, 2) if tally.seconds > 0 else None,
        "accuracy_percent_this_run": tally.accuracy,
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **ends.calls.summary(), "concurrency": _concurrency_summary(client, settings), **where,
    }
    if plan.unscorable:
        summary["unscorable_tasks"] = plan.unscorable
    if plan.not_sent:
        summary["tasks_not_sent"] = dict(plan.not_sent)
    if client.replicas is not None:
        summary["replicas"] = client.replicas.summary()
    if plan.rounds is not None:
        summary["adaptive"] = plan.rounds.summary(plan.stops)
    if plan.offer_of.offered:
        summary["tool_calls"] = client.tool_counters.summary()
    if hasattr(ends.verifier, "run_info"):  # e.g. the code sandbox's mechanism, and whether it ran unsandboxed
        summary["verifier"] = ends.verifier.run_info()
    summary["cost"] = settings.budget.summary()
    scored = tally.scored + plan.done_scored  # a resumed run's headline covers the rollouts it found done too
    summary["headline"] = {"benchmark": settings.benchmark.name, "model": client.model, "ci95": None,
                           "pass@1": round(100 * (tally.reward_sum + plan.done_reward) / scored, 2) if scored else None}
    unfinished = counts["infra_error"] + counts["verifier_error"]
    stopped = settings.budget.stop_reason() if settings.budget.stopped else None
    write_json_atomic(settings.paths.run_dir / "run.json", {
        **summary, "status": "stopped" if stopped else "incomplete" if unfinished else "done", "rollouts": str(out_path),
        "identity": settings.identity, "started_at": started_at, "endpoint": ends.fingerprint})
    _report(summary, settings)
    if stopped:
        raise GymError(f"stopped: {stopped} after {tally.ran} rollouts; continue with: {settings.resume_hint}")
    return summary


def _concurrency_summary(client: ModelClient, settings: CollectSettings) -> dict[str, Any]:
    """Fixed, auto, or auto per replica (summed over the replicas, each replica's own in `replicas`)."""
    if client.limiter is not None:
        return client.limiter.summary()
    limits = [r.limiter.summary() for r in (client.replicas.replicas if client.replicas else []) if r.limiter]
    if not limits:
        return {"mode": "fixed", "settled": settings.limits.concurrency}
    return {"mode": "auto", "per_replica": True, "max": settings.limits.concurrency,
            **{key: sum(item[key] for item in limits) for key in ("settled", "final", "peak", "decreases",
                                                                  "latency_decreases", "overload_replies")}}


def _report(summary: dict[str, Any], settings: CollectSettings) -> None:
    counts, out_path = summary["counts"], settings.paths.rollouts
    text = _summary_text(summary)
    print(text, flush=True)
    to_file(logging.INFO, text.strip())
    if counts.get("verifier_error"):
        log.warning("%d rollout(s) the verifier could not score (verifier_error, kept out of every score); "
                    "re-score them without model calls: python -m gym task=reverify rollouts=%s",
                    counts["verifier_error"], out_path)
    if counts.get("infra_error"):
        raise GymError(f"{counts['infra_error']} of {summary['ran']} rollouts hit infrastructure errors (kept out "
                       f"of every score); finish them with: {settings.resume_hint}")


def _summary_text(s: dict[str, Any]) -> str:
    from gym.metrics.table import display_name

    counts, limits = s["counts"], s["limits"]
    acc = "-" if s["accuracy_percent_this_run"] is None else f"{s['accuracy_percent_this_run']:.2f}%"
    lines = [f"\n{s['benchmark']} × {display_name(s['model'])}: {s['ran']} rollouts in {s['seconds']:.1f}s "
             f"({s['rollouts_per_s']} /s); ok {counts.get('ok', 0)}, model_error {counts.get('model_error', 0)}, "
             f"infra_error {counts.get('infra_error', 0)}, verifier_error {counts.get('verifier_error', 0)}; "
             f"accuracy {acc} (this run)"]
    if any(limits.values()):
        lines.append(f"replies: empty {limits['empty']}, no answer {limits['no_answer']}; "
                     f"cut at max_tokens {limits['cut_at_max_tokens']}, out of time (model.rollout_timeout) "
                     f"{limits['out_of_time']}")
    if s.get("unscorable_tasks"):
        lines.append(f"unscorable tasks not sent: {s['unscorable_tasks']} (no gold answer upstream; listed in the "
                     "benchmark's manifest.json)")
    for reason, n in (s.get("tasks_not_sent") or {}).items():
        lines.append(f"tasks not sent: {n} ({reason})")
    sandbox = (s.get("verifier") or {}).get("sandbox")
    if sandbox:
        lines.append(f"code sandbox: {sandbox}" + (" (UNSANDBOXED: allow_unsandboxed=true, rlimits and seccomp only)"
                                                   if sandbox == "none" else ""))
    tool_counts = s.get("tool_calls") or {}
    if any(tool_counts.values()):
        lines.append("tool calls: " + ", ".join(f"{kind} {count}" for kind, count in tool_counts.items()))
    cost = s.get("cost") or {}
    if cost.get("tokens") or cost.get("usd") is not None:
        lines.append(f"tokens {cost['tokens']}" + (f"; cost ${cost['usd']:.4f}" if cost.get("usd") is not None else ""))
    lines += model_time_lines(s) + replica_lines(s.get("replicas") or [])
    if s.get("episodes"):
        from gym.rollouts.episodes import episode_lines

        lines += episode_lines(s)
    if s.get("resumes"):
        job, last = s.get("slurm"), s["resumes"][-1]
        lines.append(f"resumed: {last['rollouts_done']} rollouts were already done"
                     + (f" (SLURM job {job['job_id']}, requeued {job['requeued']}×)" if job and job["requeued"] else ""))
    lines.append(f"rollouts: {s['rollouts_file']}")
    return "\n".join(lines)
