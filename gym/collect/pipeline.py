"""collect's steps over typed objects: every task × num_repeats to the model, verified in-process, appended
to rollouts.jsonl.

Crash safety: each rollout is appended and flushed as it finishes; its key hashes everything that
defines it (prepared-file sha, rendered prompt, sampling, model id, rollout index), so a resumed run
skips keys already `ok`/`model_error`, redoes `infra_error`/`verifier_error`, and never mixes in stale rows.
The row itself is defined in gym/rollouts/row.py. Ctrl-C, SIGTERM and SIGHUP stop at once with run.json saying
"interrupted" and the exact resume command (gym.rollouts.resume). Endpoints are started by gym.collect.endpoints
(over gym.model.run_endpoints). Tasks are streamed (gym.rollouts.plan): memory holds the tasks in flight, not the run.
"""

from __future__ import annotations

from contextlib import ExitStack
from datetime import datetime, timezone
from typing import Any, Iterator

from gym.collect.endpoints import RunEndpoints, start_endpoints
from gym.collect.summary import shard_info, summarise
from gym.core.io import JsonlAppender, write_json_atomic
from gym.core.progress import progress_bar
from gym.core.typed import RunConfig
from gym.rollouts import resume
from gym.rollouts.benchmark import Benchmark
from gym.rollouts.plan import Plan
from gym.rollouts.row import make_episode_rollout, make_rollout
from gym.rollouts.runner import RolloutPool, Tally, WorkItem
from gym.rollouts.settings import CollectKnobs, CollectSettings


def run_collect(run: RunConfig) -> dict[str, Any]:
    """A collect run from its typed config: a resume's output found (gym.rollouts.resume.resolve), its knobs read
    and checked, its settings made; run.json says "interrupted" (with the command that continues) or "failed"
    when it stops early."""
    run = resume.resolve(run)
    knobs = CollectKnobs.read(run)
    with resume.stops_marked(run, knobs.rollouts(run.home)):
        return collect(CollectSettings.from_config(run, knobs))


def collect(settings: CollectSettings) -> dict[str, Any]:
    """The run's steps: load the benchmark, check tasks, start endpoints, plan rollouts, run them, summarise."""
    rows_by_prompt: dict[int, dict] = {}  # id(a live task's prompt) -> its row, for the episode player
    with ExitStack() as stack:
        bench = Benchmark.load(settings.benchmark, stack, settings.strict, settings.knobs.prepare_args)
        prompt_of = bench.prompts(solo=settings.run.user_kind == "none")
        count = bench.check_tasks(prompt_of, settings.limits.tasks, settings.shard, settings.run.model.api == "completions")
        ends = start_endpoints(settings, bench, stack, lambda prompt: rows_by_prompt[id(prompt)])
        plan = Plan(settings, ends.client.model, ends.client.api, ends.judge_model, bench.data_sha, prompt_of,
                    ends.offers, bench.subsets, ends.request_identity, rows_by_prompt)
        started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        job = resume.slurm_job()  # the SLURM job running this (its requeue count), and the run's resumes
        where: dict[str, Any] = {"slurm": job} if job else {}
        if settings.paths.resuming:  # each with the rollouts it found done
            where["resumes"] = resume.resumes(settings.paths.run_dir, len(plan.done), started_at)
        sink = stack.enter_context(JsonlAppender(settings.paths.rollouts))  # (closed before the endpoints stop)
        bar = stack.enter_context(progress_bar(count * settings.first_round, "rollouts", "rollout",
                                               settings.knobs.progress, dynamic_ncols=True, mininterval=0.5,
                                               smoothing=0.1))
        write_json_atomic(settings.paths.run_dir / "run.json", {
            "status": "running", "rollouts": str(settings.paths.rollouts), "identity": settings.identity,
            "started_at": started_at, "endpoint": ends.fingerprint, **shard_info(settings), **where})
        tally = run_rollouts(settings, bench, ends, plan, sink, bar)
    return summarise(settings, ends, plan, tally, count, started_at, where)


def run_rollouts(settings: CollectSettings, bench: Benchmark, ends: RunEndpoints, plan: Plan, sink: JsonlAppender,
                 bar: Any) -> Tally:
    """The plan's rollouts, appended to `sink` as they land, counted on the progress `bar`."""
    name, data_sha, live = settings.benchmark.name, plan.data_sha, plan.live
    adaptive = settings.adaptive.spec() if settings.adaptive is not None else None
    first_round = settings.first_round

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
    pool.run(feed(bar), sink.write, bar, tally, landed)
    return tally
