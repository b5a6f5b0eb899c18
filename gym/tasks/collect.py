"""task=collect: every task × num_repeats to the model, verified in-process, appended to rollouts.jsonl.

Crash safety: each rollout is appended and flushed as it finishes; its key hashes everything that
defines it (prepared-file sha, rendered prompt, sampling, model id, rollout index), so a resumed run
skips keys already `ok`/`model_error`, redoes `infra_error`/`verifier_error`, and never mixes in stale rows.
The row itself is defined in gym/rollouts/row.py. Ctrl-C, SIGTERM and SIGHUP stop at once with run.json saying
"interrupted" and the exact resume command (gym.rollouts.resume). Endpoints are started and checked by
gym.model.endpoints. Tasks are streamed (gym.rollouts.plan): memory holds the tasks in flight, not the run.
"""

from __future__ import annotations

import json
import logging
import signal
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from omegaconf import DictConfig

from gym.core.config import user_kind
from gym.core.errors import GymError, TaskNotSent
from gym.core.io import JsonlAppender, sha256_file, write_json_atomic
from gym.core.runlog import to_file
from gym.core.typed import typed
from gym.metrics.subsets import task_subsets
from gym.model import endpoints
from gym.model.calls import ModelCalls, model_time_lines
from gym.model.client import ModelClient
from gym.model.concurrency import AdaptiveLimit
from gym.model.images import no_images
from gym.model.replicas import replica_lines
from gym.model.response_cache import open_cache
from gym.rollouts import resume
from gym.rollouts.benchmark import Benchmark
from gym.rollouts.plan import Plan
from gym.rollouts.row import make_episode_rollout, make_rollout
from gym.rollouts.runner import LIMIT_FLAGS, RolloutPool, Tally, WorkItem
from gym.rollouts.settings import CollectSettings
from gym.verifiers.base import Verifier

if TYPE_CHECKING:  # gym.rollouts.episodes (and gym.episodes below it) load only for an episode benchmark
    from gym.rollouts.episodes import EpisodeRun

log = logging.getLogger("gym.collect")


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.data import local

    local.check_required(cfg.get("benchmark"))  # benchmark=local without its file or family: one line
    with resume.signals_as_interrupts():
        typed_run = resume.resolve(typed(cfg))  # the door: below here, typed objects only
        endpoints.check_settings(typed_run)
        home = typed_run.home
        out_path = Path(typed_run.knobs.get("output") or home / "rollouts.jsonl")
        hint = resume.resume_command(typed_run, out_path)
        try:
            return collect(CollectSettings.from_config(typed_run, out_path, home, resume.identity(typed_run), hint))
        except KeyboardInterrupt as exc:
            signum = getattr(exc, "signum", 2)
            _mark(home, "interrupted", signal=signum)
            then = ("submitit requeues the job and it continues them" if signum == resume.preemption_signal()
                    else f"continue with: {hint}")
            to_file(logging.WARNING, f"interrupted by {signal.Signals(signum).name}; {then}")
            raise resume.Interrupted(signum, f"finished rollouts are in {out_path}; {then}") from None
        except GymError as exc:
            _mark(home, "failed", error=str(exc))
            raise


def collect(settings: CollectSettings) -> dict[str, Any]:
    """The run's steps: load the benchmark, check tasks, start endpoints, plan rollouts, run them, summarise."""
    from gym.verifiers import strict_rewards

    rows_by_prompt: dict[int, dict] = {}  # id(a live task's prompt) -> its row, for the episode player
    with ExitStack() as stack:
        bench = Benchmark.load(settings.benchmark, stack, strict_rewards(settings.run.knobs), data=settings.paths.data)
        prompt_of = prompt_maker(settings, bench)
        count = check_tasks(settings, bench, prompt_of)
        ends = start_endpoints(settings, bench, stack, lambda prompt: rows_by_prompt[id(prompt)])
        plan = plan_rollouts(settings, ends, prompt_of, rows_by_prompt)
        started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        where = _where(settings, plan, started_at)
        write_json_atomic(settings.paths.run_dir / "run.json", {
            "status": "running", "rollouts": str(settings.paths.rollouts), "identity": settings.identity,
            "started_at": started_at, "endpoint": ends.fingerprint, **_shard_info(settings), **where})
        tally = run_rollouts(settings, bench, ends, plan, count)
    return summarise(settings, ends, plan, tally, count, started_at, where)


def _where(settings: CollectSettings, plan: Plan, started_at: str) -> dict[str, Any]:
    """The SLURM job running this (its requeue count) and the run's resumes, each with the rollouts it found done."""
    job = resume.slurm_job()
    where: dict[str, Any] = {"slurm": job} if job else {}
    if settings.paths.resuming:
        where["resumes"] = resume.resumes(settings.paths.run_dir, len(plan.done), started_at)
    return where


def _mark(home: Path, status: str, **extra: Any) -> None:
    """Update the status in an existing run.json (a run that failed before writing one leaves none)."""
    path = home / "run.json"
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if info.get("status") == "running":
        write_json_atomic(path, {**info, "status": status, **extra})


PromptOf = Callable[[dict, int], list[dict]]  # (row, line) -> the task's messages


def prompt_maker(settings: CollectSettings, bench: Benchmark) -> PromptOf:
    """A task's messages (gym.rollouts.benchmark): the benchmark's templates filled from the row, or an
    episode's opening messages (user=none: solo mode's, where the environment has one)."""
    solo = bench.kind == "episode" and user_kind(settings.run.user, settings.benchmark) == "none"
    if solo:
        bench.check_solo()
    return lambda row, line: bench.messages(row, line, solo=solo)


def check_tasks(settings: CollectSettings, bench: Benchmark, prompt_of: PromptOf) -> int:
    """The number of tasks; every prompt is made once, so a row missing a template field stops the run
    before the first request."""
    path, shard = settings.paths.data, settings.shard
    count, not_sent = 0, Counter()
    completions = settings.run.model.api == "completions"
    for _, line, row in bench.rows(settings.limits.tasks, shard):
        try:
            messages = prompt_of(row, line)
            if completions:
                no_images(messages, f"{path} line {line}")
        except TaskNotSent as exc:
            not_sent[str(exc)] += 1
        count += 1
    if not count and shard is None:
        raise GymError(f"{path} has no tasks")
    if count and sum(not_sent.values()) == count:
        raise GymError(f"{settings.benchmark.name}: none of the {count} tasks of {path} can run here: "
                       + "; ".join(not_sent))
    return count


@dataclass
class RunEndpoints:
    client: ModelClient
    calls: ModelCalls
    verifier: Verifier
    judge_model: str | None  # part of every rollout key
    fingerprint: dict[str, Any]  # who answered, for run.json
    episodes: EpisodeRun | None = None  # episode benchmarks: plays the rollouts in place of `calls`

    def request_identity(self, sampling: Any, rollout_index: int) -> tuple[dict[str, Any], int | None]:
        """What a rollout's key holds of its requests: the sampling sent and the seed; for an episode also
        the user, its sampling and the limits (they make another experiment)."""
        if self.episodes is not None:
            return self.episodes.key_sampling(sampling.sent), self.episodes.seed(sampling.seed, rollout_index)
        return sampling.sent, sampling.seed_of(rollout_index)


def start_endpoints(settings: CollectSettings, bench: Benchmark, stack: ExitStack,
                    row_of: Callable[[list[dict]], dict]) -> RunEndpoints:
    run, data, limits, sampling = settings.run, settings.paths.data, settings.limits, settings.sampling
    family = str(settings.benchmark.verifier.family)  # the reference server writes answers in its shape
    base_url = endpoints.start_policy(run.model, stack, data, limits.concurrency, family)
    client, endpoint = endpoints.connect_policy(run.model, stack, base_url, limits.concurrency, sampling.sent)
    client.image_root = data.parent  # image files of prompts are named relative to the data folder
    verifier = bench.verifier
    cache = open_cache(settings.cache, stack)
    # the judge, and banking_alltools' KB_search_dense endpoint
    judge, embedded = bench.attach_endpoints(run, stack, base_url, limits.concurrency, cache)
    fingerprint = endpoints.run_fingerprint(client, endpoint, {**sampling.sent, "seed": sampling.seed}, judge)
    if embedded is not None:
        fingerprint["embeddings"] = embedded
    log.info("model %s at %s (server: %s); sampling %s", client.model, client.base_url,
             fingerprint.get("server") or "unknown", fingerprint["sampling_sent"])
    if limits.auto_concurrency and client.replicas is not None:  # each replica finds its own limit
        for replica in client.replicas.replicas:
            replica.limiter = AdaptiveLimit(limits.concurrency)
    elif limits.auto_concurrency:
        client.limiter = AdaptiveLimit(limits.concurrency)
    judge_model = judge["model"] if judge else None
    if settings.benchmark.kind == "episode":
        from gym.rollouts.episodes import EpisodeRun

        episodes = EpisodeRun(run, stack, client, verifier, limits.concurrency, cache, row_of)
        fingerprint["user"] = episodes.user_info
        if embedded is not None:  # another embedding model is another experiment: its rollouts get other keys
            episodes.setup.identity["embeddings"] = {k: embedded[k] for k in ("model", "dimensions")}
        return RunEndpoints(client, episodes, verifier, judge_model, fingerprint, episodes)  # type: ignore[arg-type]
    return RunEndpoints(client, ModelCalls(client, settings.n_per_request, cache), verifier, judge_model, fingerprint)


class ToolOffers:
    """The tools a tool-calling verifier has a task's requests carry (`request`); it may rewrite the task's
    messages too (prompt mode documents the tools there), before any rollout key is made."""

    def __init__(self, verifier: Verifier, api: str):
        self.request, self.api, self.offered = verifier.request if verifier.tools_per_task else None, api, False

    def __call__(self, row: dict, prompt: list[dict]) -> tuple[list[dict], dict | None]:
        if self.request is None:
            return prompt, None
        prompt, tools, choice = self.request(row, prompt, self.api)
        self.offered = self.offered or bool(tools)
        return prompt, {"tools": tools, "tool_choice": choice} if tools else None


def plan_rollouts(settings: CollectSettings, ends: RunEndpoints, prompt_of: PromptOf,
                  rows_by_prompt: dict[int, dict]) -> Plan:
    columns, cluster_by = settings.benchmark.subsets, settings.benchmark.cluster_by
    plan = Plan(settings, ends.client.model, ends.client.api, ends.judge_model, sha256_file(settings.paths.data),
                prompt_of, ToolOffers(ends.verifier, ends.client.api),
                lambda row: task_subsets([row], columns, cluster_by)[0],
                lambda rollout_index: ends.request_identity(settings.sampling, rollout_index), rows_by_prompt)
    if settings.paths.resuming:
        log.info("resuming %s: %d rollouts already in it", settings.paths.rollouts, len(plan.done))
    return plan


def run_rollouts(settings: CollectSettings, bench: Benchmark, ends: RunEndpoints, plan: Plan, count: int) -> Tally:
    name, data_sha, live = settings.benchmark.name, plan.data_sha, plan.live
    adaptive = settings.adaptive.spec() if settings.adaptive is not None else None
    first_round = settings.adaptive.wanted([]) if settings.adaptive is not None else settings.limits.repeats

    def make_rows(task_index: int, answered: list) -> list[dict[str, Any]]:
        task = live[task_index]
        if ends.episodes is not None:
            rows = [make_episode_rollout(name, ends.client.model, task.row, task_index, rollout_index, key, played,
                                         data_sha, subsets=task.subsets)
                    for (rollout_index, _, key), played, _ in answered]
        else:
            rows = [make_rollout(name, ends.client.model, task.row, task.prompt, task_index, rollout_index, key,
                                 completion, ends.verifier, data_sha, subsets=task.subsets, cached=cached,
                                 adaptive=adaptive)
                    for (rollout_index, _, key), completion, cached in answered]
        for row in rows:
            settings.budget.stamp(row)
        return rows

    def feed(bar: Any) -> Iterator[list[WorkItem]]:
        for task_index, line, row in bench.rows(settings.limits.tasks, settings.shard):
            if settings.budget.stop_reason():  # no new task; those in flight land and are written
                settings.budget.stopped = True
                return
            work = plan.open(task_index, line, row)
            bar.total += len(work) - first_round  # a resumed task owes fewer
            yield work

    def landed(rollouts: list[dict[str, Any]]) -> list[WorkItem]:
        settings.budget.add(rollouts)
        if ends.episodes is not None:
            for rollout in rollouts:
                ends.episodes.count(rollout)
        return plan.landed(rollouts)

    pool = RolloutPool(ends.calls, lambda task: live[task].prompt, make_rows, settings.limits.workers,
                       lambda task: live[task].offer)
    tally = Tally()
    with JsonlAppender(settings.paths.rollouts) as sink, _progress_bar(count * first_round, settings.progress) as bar:
        pool.run(feed(bar), sink, bar, tally, landed)
    return tally


def _shard_info(settings: CollectSettings) -> dict[str, Any]:
    return {"shard": f"{settings.shard[0]}/{settings.shard[1]}"} if settings.shard is not None else {}


def summarise(settings: CollectSettings, ends: RunEndpoints, plan: Plan, tally: Tally, count: int,
              started_at: str, where: dict[str, Any]) -> dict[str, Any]:
    """The summary (returned, printed, in run.json); GymError when rollouts hit infrastructure errors."""
    counts, client, out_path = tally.counts, ends.client, settings.paths.rollouts
    summary = {
        "benchmark": settings.benchmark.name, "model": client.model, "rollouts_file": str(out_path),
        **_shard_info(settings), "tasks": count, "num_repeats": settings.limits.repeats,
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


def _progress_bar(total: int, enabled: bool):
    from gym.core.progress import progress_bar

    return progress_bar(total, "rollouts", "rollout", enabled, dynamic_ncols=True, mininterval=0.5, smoothing=0.1)


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
