"""task=collect: every task × num_repeats to the model, verified in-process, appended to rollouts.jsonl.

Crash safety: each rollout is appended and flushed as it finishes; its key hashes everything that
defines it (prepared-file sha, rendered prompt, sampling, model id, rollout index), so a resumed run
skips keys already `ok`/`model_error`, redoes `infra_error`/`verifier_error`, and never mixes in stale rows.
The row itself is defined in gym/rollouts/row.py. Ctrl-C, SIGTERM and SIGHUP stop at once with run.json saying
"interrupted" and the exact resume command (gym.rollouts.resume). RunEndpoints are started and checked by gym.model.endpoints.
"""

from __future__ import annotations

import json
import logging
import signal
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from gym.core.config import run_dir
from gym.core.errors import GymError
from gym.core.io import JsonlAppender, iter_jsonl, sha256_file, write_json_atomic
from gym.core.prompts import build_messages
from gym.core.runlog import to_file
from gym.metrics.subsets import task_subsets
from gym.model import endpoints
from gym.model.calls import ModelCalls, model_time_lines
from gym.model.client import ModelClient
from gym.model.concurrency import AdaptiveLimit
from gym.model.replicas import replica_lines
from gym.model.response_cache import open_cache
from gym.rollouts import resume
from gym.rollouts.adaptive import Rounds, replay_rewards
from gym.rollouts.episodes import EpisodeRun, episode_lines
from gym.rollouts.row import FINAL, make_episode_rollout, make_rollout, rollout_key
from gym.rollouts.runner import LIMIT_FLAGS, RolloutPool, Tally, WorkItem
from gym.rollouts.settings import CollectSettings

log = logging.getLogger("gym.collect")


def run(cfg: DictConfig) -> dict[str, Any]:
    with resume.signals_as_interrupts():
        cfg = resume.resolve(cfg)
        home = run_dir(cfg)
        out_path = Path(cfg.get("output") or home / "rollouts.jsonl")
        hint = resume.resume_command(cfg, out_path)
        try:
            return collect(CollectSettings.from_config(cfg, out_path, home, resume.identity(cfg), hint))
        except KeyboardInterrupt as exc:
            signum = getattr(exc, "signum", 2)
            _mark(home, "interrupted", signal=signum)
            to_file(logging.WARNING, f"interrupted by {signal.Signals(signum).name}; continue with: {hint}")
            raise resume.Interrupted(signum, f"finished rollouts are in {out_path}; continue with: {hint}") from None
        except GymError as exc:
            _mark(home, "failed", error=str(exc))
            raise


def collect(settings: CollectSettings) -> dict[str, Any]:
    """The run's steps: load tasks, start endpoints, plan rollouts, run them, summarise."""
    tasks = load_tasks(settings)
    with ExitStack() as stack:
        ends = start_endpoints(settings, stack, tasks)
        plan = plan_rollouts(settings, tasks, ends)
        write_json_atomic(settings.paths.run_dir / "run.json", {
            "status": "running", "rollouts": str(settings.paths.rollouts), "identity": settings.identity,
            "started_at": plan.started_at, "endpoint": ends.fingerprint})
        tally = run_rollouts(settings, tasks, ends, plan)
    return summarise(settings, tasks, ends, plan, tally)


def _mark(home: Path, status: str, **extra: Any) -> None:
    """Update the status in an existing run.json (a run that failed before writing one leaves none)."""
    path = home / "run.json"
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if info.get("status") == "running":
        write_json_atomic(path, {**info, "status": status, **extra})


@dataclass
class TaskSet:
    rows: list[dict]
    prompts: list[list[dict]]  # the rendered messages of each task
    subsets: list  # each task's subset labels (per-subset metrics read them from the rollouts)


def load_tasks(settings: CollectSettings) -> TaskSet:
    bench, path, limit = settings.benchmark, settings.paths.data, settings.limits.tasks
    rows = []
    for _, row in iter_jsonl(path):
        rows.append(row)
        if limit is not None and len(rows) >= limit:
            break
    if not rows:
        raise GymError(f"{path} has no tasks")
    if bench.kind == "episode":  # each episode's opening messages (system prompt, any history, first turn)
        from gym.episodes import make_environment

        env = make_environment(bench.environment or "", path)
        prompts = [env.initial_messages(row) for row in rows]
    else:
        prompts = [build_messages(bench.system, bench.user, row, f"{path} line {i + 1}") for i, row in enumerate(rows)]
    return TaskSet(rows, prompts, task_subsets(rows, bench.subsets))


@dataclass
class RunEndpoints:
    client: ModelClient
    calls: ModelCalls
    verifier: Any
    judge_model: str | None  # part of every rollout key
    fingerprint: dict[str, Any]  # who answered, for run.json
    offers: list[dict | None]  # per task: the {tools, tool_choice} a tool-calling task sends, else None
    episodes: EpisodeRun | None = None  # episode benchmarks: plays the rollouts in place of `calls`


def start_endpoints(settings: CollectSettings, stack: ExitStack, tasks: TaskSet) -> RunEndpoints:
    from gym.verifiers import make_verifier

    cfg, data, limits, sampling = settings.endpoints, settings.paths.data, settings.limits, settings.sampling
    base_url = endpoints.start_policy(cfg, stack, data, limits.concurrency)
    client, endpoint = endpoints.connect_policy(cfg, stack, base_url, limits.concurrency, sampling.sent)
    verifier = make_verifier(settings.benchmark.verifier_family, settings.benchmark.verifier_options)
    stack.callback(verifier.close)
    offers = tool_offers(verifier, tasks, client.api)
    cache = open_cache({"cache": settings.cache}, stack)
    judge = endpoints.connect_judge(cfg, stack, verifier, base_url, data, limits.concurrency, cache)
    fingerprint = endpoints.run_fingerprint(client, endpoint, {**sampling.sent, "seed": sampling.seed}, judge)
    log.info("model %s at %s (server: %s); sampling %s", client.model, client.base_url,
             fingerprint.get("server") or "unknown", fingerprint["sampling_sent"])
    if limits.auto_concurrency and client.replicas is not None:  # each replica finds its own limit
        for replica in client.replicas.replicas:
            replica.limiter = AdaptiveLimit(limits.concurrency)
    elif limits.auto_concurrency:
        client.limiter = AdaptiveLimit(limits.concurrency)
    judge_model = judge["model"] if judge else None
    if settings.benchmark.kind == "episode":
        episodes = EpisodeRun(cfg, stack, client, verifier, limits.concurrency, cache, tasks.rows, tasks.prompts)
        fingerprint["user"] = episodes.user_info
        return RunEndpoints(client, episodes, verifier, judge_model, fingerprint, offers,  # type: ignore[arg-type]
                            episodes)
    return RunEndpoints(client, ModelCalls(client, settings.n_per_request, cache), verifier, judge_model, fingerprint,
                        offers)


def tool_offers(verifier: Any, tasks: TaskSet, api: str) -> list[dict | None]:
    """Per task, the tools a tool-calling verifier has the request carry (`request`); it may rewrite the
    task's messages too (prompt mode documents the tools there), before any rollout key is made."""
    if not hasattr(verifier, "request"):
        return [None] * len(tasks.rows)
    offers: list[dict | None] = []
    for index, row in enumerate(tasks.rows):
        tasks.prompts[index], tools, choice = verifier.request(row, tasks.prompts[index], api)
        offers.append({"tools": tools, "tool_choice": choice} if tools else None)
    return offers


class Plan:
    """Which rollouts this run owes: each one's key, what a resumed file already holds, an adaptive
    run's rounds."""

    def __init__(self, settings: CollectSettings, tasks: TaskSet, ends: RunEndpoints):
        self.settings, self.tasks, self.ends = settings, tasks, ends
        self.data_sha = sha256_file(settings.paths.data)
        self.done = read_done(settings.paths.rollouts) if settings.paths.resuming else {}
        rule = settings.adaptive
        self.rounds = Rounds(rule, len(tasks.rows)) if rule is not None else None
        self._keys: dict[tuple[int, int], tuple[int | None, str]] = {}
        if self.rounds is not None and self.done:
            replay_rewards(settings.paths.rollouts, self.rounds, self.key_of, settings.limits.repeats)
        self.work = [item for task, target in enumerate(self.targets()) for item in self.task_work(task, target)]
        self.total = sum(self.targets())
        self.skipped = self.total - len(self.work)
        self.started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")

    def key_of(self, task_index: int, rollout_index: int) -> tuple[int | None, str]:
        if (task_index, rollout_index) not in self._keys:
            seed, client = self.settings.sampling.seed_of(rollout_index), self.ends.client
            sent, episodes = self.settings.sampling.sent, self.ends.episodes
            if episodes is not None:  # the user, its sampling and the limits make another experiment
                sent, seed = episodes.key_sampling(sent), episodes.seed(self.settings.sampling.seed, rollout_index)
            self._keys[task_index, rollout_index] = seed, rollout_key(
                self.data_sha, task_index, self.tasks.prompts[task_index], {**sent, "seed": seed},
                client.model, client.api, rollout_index, self.ends.judge_model)
        return self._keys[task_index, rollout_index]

    def task_work(self, task_index: int, target: int | None = None) -> list[WorkItem]:
        """The rollouts of a task not done yet, up to its target (the rule's, for an adaptive run)."""
        target = self.rounds.target(task_index) if target is None else target
        return [(task_index, i, *self.key_of(task_index, i)) for i in range(target)
                if self.done.get(self.key_of(task_index, i)[1]) not in FINAL]

    def targets(self) -> list[int]:
        return self.rounds.targets() if self.rounds is not None else [self.settings.limits.repeats] * len(self.tasks.rows)


def plan_rollouts(settings: CollectSettings, tasks: TaskSet, ends: RunEndpoints) -> Plan:
    plan = Plan(settings, tasks, ends)
    if settings.paths.resuming:
        log.info("resuming %s: %d of %d rollouts already done, %d to run", settings.paths.rollouts, plan.skipped,
                 plan.total, len(plan.work))
    return plan


def read_done(path: Path) -> dict[str, str]:
    """key -> last status in an existing rollouts file (a torn last line is ignored)."""
    done: dict[str, str] = {}
    if path.is_file():
        for _, row in iter_jsonl(path, tolerate_torn_tail=True):
            if "key" in row:
                done[row["key"]] = row.get("status", "")
    return done


def run_rollouts(settings: CollectSettings, tasks: TaskSet, ends: RunEndpoints, plan: Plan) -> Tally:
    name, rounds, data_sha = settings.benchmark.name, plan.rounds, plan.data_sha
    adaptive = settings.adaptive.spec() if settings.adaptive is not None else None

    def make_rows(task_index: int, answered: list) -> list[dict[str, Any]]:
        if ends.episodes is not None:
            return [make_episode_rollout(name, ends.client.model, tasks.rows[task_index], task_index, rollout_index,
                                         key, played, data_sha, subsets=tasks.subsets[task_index])
                    for (rollout_index, _, key), played, _ in answered]
        return [make_rollout(name, ends.client.model, tasks.rows[task_index], tasks.prompts[task_index], task_index,
                             rollout_index, key, completion, ends.verifier, data_sha,
                             subsets=tasks.subsets[task_index], cached=cached, adaptive=adaptive)
                for (rollout_index, _, key), completion, cached in answered]

    def record(rollout: dict[str, Any]) -> None:
        plan.done[rollout["key"]] = rollout["status"]
        if ends.episodes is not None:
            ends.episodes.count(rollout)

    more = (lambda rollouts: rounds.landed(rollouts, plan.task_work)) if rounds is not None else None
    pool = RolloutPool(ends.calls, tasks.prompts.__getitem__, make_rows, settings.limits.workers, more,
                       ends.offers.__getitem__)
    if rounds is not None:
        rounds.sent(plan.work)
    tally = Tally()
    with JsonlAppender(settings.paths.rollouts) as sink, _progress_bar(len(plan.work), settings.progress) as bar:
        pool.run(plan.work, sink, bar, tally, record)
    return tally


def summarise(settings: CollectSettings, tasks: TaskSet, ends: RunEndpoints, plan: Plan, tally: Tally) -> dict[str, Any]:
    """The summary (returned, printed, in run.json); GymError when rollouts hit infrastructure errors."""
    counts, client, out_path = tally.counts, ends.client, settings.paths.rollouts
    targets = plan.targets()
    summary = {
        "benchmark": settings.benchmark.name, "model": client.model, "rollouts_file": str(out_path),
        "tasks": len(tasks.rows), "num_repeats": settings.limits.repeats, "expected_rollouts": sum(targets),
        "skipped_done": plan.skipped, "ran": tally.ran, "counts": dict(counts),
        "limits": {name: tally.limits[name] for name in LIMIT_FLAGS}, "retries": client.retries,
        "seconds": round(tally.seconds, 3),
        "rollouts_per_s": round(tally.ran / tally.seconds, 2) if tally.seconds > 0 else None,
        "accuracy_percent_this_run": tally.accuracy,
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **ends.calls.summary(), "concurrency": _concurrency_summary(client, settings),
    }
    if client.replicas is not None:
        summary["replicas"] = client.replicas.summary()
    if plan.rounds is not None:
        summary["adaptive"] = plan.rounds.summary(targets)
    if any(ends.offers):
        summary["tool_calls"] = client.tool_counters.summary()
    if hasattr(ends.verifier, "run_info"):  # e.g. the code sandbox's mechanism, and whether it ran unsandboxed
        summary["verifier"] = ends.verifier.run_info()
    summary["headline"] = {"benchmark": settings.benchmark.name, "model": client.model,
                           "pass@1": summary["accuracy_percent_this_run"], "ci95": None}
    unfinished = counts["infra_error"] + counts["verifier_error"]
    write_json_atomic(settings.paths.run_dir / "run.json", {
        **summary, "status": "incomplete" if unfinished else "done", "rollouts": str(out_path),
        "identity": settings.identity, "started_at": plan.started_at, "endpoint": ends.fingerprint})
    _report(summary, settings)
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


def _progress_bar(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="rollouts", unit="rollout", disable=not enabled, dynamic_ncols=True,
                mininterval=0.5, smoothing=0.1)


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
    sandbox = (s.get("verifier") or {}).get("sandbox")
    if sandbox:
        lines.append(f"code sandbox: {sandbox}" + (" (UNSANDBOXED: allow_unsandboxed=true, rlimits and seccomp only)"
                                                   if sandbox == "none" else ""))
    tool_counts = s.get("tool_calls") or {}
    if any(tool_counts.values()):
        lines.append("tool calls: " + ", ".join(f"{kind} {count}" for kind, count in tool_counts.items()))
    lines += episode_lines(s)
    lines += model_time_lines(s) + replica_lines(s.get("replicas") or [])
    lines.append(f"rollouts: {s['rollouts_file']}")
    return "\n".join(lines)
