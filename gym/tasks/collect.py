"""task=collect: every task × num_repeats to the model, verified in-process, appended to rollouts.jsonl.

Crash safety: each rollout is appended and flushed as it finishes; its key hashes everything that
defines it (prepared-file sha, rendered prompt, sampling, model id, rollout index), so a resumed run
skips keys already `ok`/`model_error`, redoes `infra_error`/`verifier_error`, and never mixes in stale rows.
The row itself is defined in gym/rollouts/row.py. Ctrl-C, SIGTERM and SIGHUP stop at once with run.json saying
"interrupted" and the exact resume command (gym.rollouts.resume). Endpoints are started and checked by gym.model.endpoints.
"""

from __future__ import annotations

import json
import logging
import queue
import signal
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from gym.model import endpoints

from gym.rollouts import resume
from gym.rollouts.adaptive import AdaptiveRule, Rounds, replay_rewards
from gym.model.client import BUDGET_ERROR
from gym.core.schema import parse_concurrency
from gym.model.concurrency import AdaptiveLimit
from gym.core.config import run_dir, to_plain
from gym.core.errors import GymError
from gym.core.io import JsonlAppender, iter_jsonl, sha256_file, write_json_atomic
from gym.model.calls import ModelCalls, model_time_lines
from gym.core.prompts import build_messages
from gym.model.response_cache import open_cache
from gym.rollouts.row import FINAL, make_rollout, rollout_key
from gym.core.runlog import to_file
from gym.metrics.subsets import task_subsets
from gym.verifiers.judge import require_judge

log = logging.getLogger("gym.collect")


def load_tasks(cfg: DictConfig) -> tuple[Path, list[dict]]:
    bench = cfg.get("benchmark")
    if bench is None:
        raise GymError("choose a benchmark: benchmark=<name> (python -m gym task=search lists them)")
    data_path = Path(bench.dataset.path)
    if not data_path.is_file():
        raise GymError(f"{bench.name} is not prepared ({data_path} is missing): "
                       f"run python -m gym task=prepare benchmark={bench.name}")
    limit = cfg.get("limit")
    if limit is not None and int(limit) < 1:
        raise GymError(f"limit={limit} must be a positive number of tasks (or null for all)")
    rows = []
    for _, row in iter_jsonl(data_path):
        rows.append(row)
        if limit is not None and len(rows) >= int(limit):
            break
    if not rows:
        raise GymError(f"{data_path} has no tasks")
    return data_path, rows


def read_done(path: Path) -> dict[str, str]:
    """key -> last status in an existing rollouts file (a torn last line is ignored)."""
    done: dict[str, str] = {}
    if path.is_file():
        for _, row in iter_jsonl(path, tolerate_torn_tail=True):
            if "key" in row:
                done[row["key"]] = row.get("status", "")
    return done


def output_cap(cfg: DictConfig) -> int | None:
    """max_tokens sent: model.sampling.max_tokens, else the benchmark's default cap (benchmark.max_tokens)."""
    explicit = cfg.model.sampling.get("max_tokens")
    if explicit is not None:
        return int(explicit)
    default = cfg.benchmark.get("max_tokens")
    return int(default) if default else None


def run(cfg: DictConfig) -> dict[str, Any]:
    with resume.signals_as_interrupts():
        cfg = resume.resolve(cfg)
        out_path = Path(cfg.get("output") or run_dir(cfg) / "rollouts.jsonl")
        try:
            return _run(cfg, out_path)
        except KeyboardInterrupt as exc:
            signum = getattr(exc, "signum", 2)
            hint = resume.resume_command(cfg, out_path)
            _mark(cfg, "interrupted", signal=signum)
            to_file(logging.WARNING, f"interrupted by {signal.Signals(signum).name}; continue with: {hint}")
            raise resume.Interrupted(signum, f"finished rollouts are in {out_path}; continue with: {hint}") from None
        except GymError as exc:
            _mark(cfg, "failed", error=str(exc))
            raise


def _mark(cfg: DictConfig, status: str, **extra: Any) -> None:
    """Update the status in an existing run.json (a run that failed before writing one leaves none)."""
    path = run_dir(cfg) / "run.json"
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if info.get("status") == "running":
        write_json_atomic(path, {**info, "status": status, **extra})


def _run(cfg: DictConfig, out_path: Path) -> dict[str, Any]:
    from gym.verifiers import make_verifier

    bench = cfg.get("benchmark")
    require_judge(cfg)  # a judge-graded benchmark without a judge fails before anything starts
    data_path, rows = load_tasks(cfg)
    repeats = int(cfg.get("num_repeats") or bench.dataset.num_repeats)
    if repeats < 1:
        raise GymError(f"num_repeats={repeats} must be at least 1")
    system, user = bench.prompt.system, bench.prompt.user  # read once: OmegaConf access is slow per row
    prompts = [build_messages(system, user, row, f"{data_path} line {i + 1}") for i, row in enumerate(rows)]
    subsets = task_subsets(rows, bench.get("subsets"))  # per-subset metrics read these from the rollouts
    mode, concurrency = parse_concurrency(cfg.get("concurrency"), cfg.model.get("max_concurrency", 256))
    resuming = bool(cfg.get("resume")) or out_path.is_file()
    sampling = {k: v for k, v in to_plain(cfg.model.sampling).items() if v not in (None, {}, [])}
    cap = output_cap(cfg)
    if cap is not None:
        sampling["max_tokens"] = cap
    base_seed = sampling.pop("seed", None)
    rule = AdaptiveRule.from_config(cfg.adaptive, repeats) if cfg.get("adaptive", {}).get("enabled") else None
    if rule is not None:
        repeats = rule.max_repeats

    with ExitStack() as stack:
        base_url = endpoints.start_policy(cfg, stack, data_path, concurrency)
        client, endpoint = endpoints.connect_policy(cfg, stack, base_url, concurrency, sampling)
        verifier = make_verifier(bench.verifier.family, to_plain(bench.verifier.options))
        stack.callback(verifier.close)
        cache = open_cache(cfg, stack)
        judge = endpoints.connect_judge(cfg, stack, verifier, base_url, data_path, concurrency, cache)
        judge_model = judge["model"] if judge else None
        fingerprint = endpoints.run_fingerprint(client, endpoint, {**sampling, "seed": base_seed}, judge)
        log.info("model %s at %s (server: %s); sampling %s", client.model, client.base_url,
                 fingerprint.get("server") or "unknown", fingerprint["sampling_sent"])
        if mode == "auto":
            client.limiter = AdaptiveLimit(concurrency)
        calls = ModelCalls(client, cfg.model.get("n_per_request", False), cache)

        data_sha = sha256_file(data_path)
        done = read_done(out_path) if resuming else {}
        rounds = Rounds(rule, len(rows)) if rule is not None else None
        keys: dict[tuple[int, int], tuple[int | None, str]] = {}

        def key_of(task_index: int, rollout_index: int) -> tuple[int | None, str]:
            if (task_index, rollout_index) not in keys:
                seed = None if base_seed is None else int(base_seed) + rollout_index
                keys[task_index, rollout_index] = seed, rollout_key(
                    data_sha, task_index, prompts[task_index], {**sampling, "seed": seed}, client.model, client.api,
                    rollout_index, judge_model)
            return keys[task_index, rollout_index]

        if rounds is not None and done:
            replay_rewards(out_path, rounds, key_of, repeats)

        def task_work(task_index: int, target: int | None = None) -> list[tuple[int, int, int | None, str]]:
            """The rollouts of a task not done yet, up to its target (the rule's, for an adaptive run)."""
            target = rounds.target(task_index) if target is None else target
            return [(task_index, i, *key_of(task_index, i)) for i in range(target)
                    if done.get(key_of(task_index, i)[1]) not in FINAL]

        targets = rounds.targets() if rounds is not None else [repeats] * len(rows)
        work = [item for task_index, target in enumerate(targets) for item in task_work(task_index, target)]
        total = sum(targets)
        skipped = total - len(work)
        if resuming:
            log.info("resuming %s: %d of %d rollouts already done, %d to run", out_path, skipped, total, len(work))
        started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        write_json_atomic(run_dir(cfg) / "run.json", {"status": "running", "rollouts": str(out_path),
                                                      "identity": resume.identity(cfg), "started_at": started_at,
                                                      "endpoint": fingerprint})

        def one(group: tuple[int, list]) -> list[dict[str, Any]]:
            task_index, members = group
            adaptive = rule.spec() if rule is not None else None
            return [make_rollout(bench.name, client.model, rows[task_index], prompts[task_index], task_index,
                                 rollout_index, key, completion, verifier, data_sha, subsets=subsets[task_index],
                                 cached=cached, adaptive=adaptive)
                    for (rollout_index, _, key), completion, cached in calls.complete(prompts[task_index], members)]

        started = time.perf_counter()
        counts: Counter = Counter()
        limits: Counter = Counter()  # rollouts cut at max_tokens / out of time, empty and answerless replies
        reward_sum = 0.0
        ran = 0
        pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="rollout")
        landed: queue.SimpleQueue = queue.SimpleQueue()

        def submit(items: list) -> int:
            groups = calls.groups(items)
            for group in groups:
                pool.submit(one, group).add_done_callback(landed.put)
            return len(groups)

        if rounds is not None:
            rounds.sent(work)
        with JsonlAppender(out_path) as sink, _progress_bar(len(work), cfg.get("progress", True)) as bar:
            outstanding = submit(work)
            try:
                while outstanding:
                    try:
                        future = landed.get(timeout=1.0)
                    except queue.Empty:
                        continue
                    outstanding -= 1
                    rollouts = future.result()
                    for rollout in rollouts:
                        sink.write(rollout)
                        done[rollout["key"]] = rollout["status"]
                        counts[rollout["status"]] += 1
                        limits.update(_limit_flags(rollout))
                        reward_sum += rollout["reward"] or 0.0
                    ran += len(rollouts)
                    scored = counts["ok"] + counts["model_error"]
                    bar.update(len(rollouts))
                    bar.set_postfix(acc=f"{100 * reward_sum / scored:.1f}%" if scored else "-",
                                    model_err=counts["model_error"], infra_err=counts["infra_error"],
                                    verifier_err=counts["verifier_error"], refresh=False)
                    if rounds is not None:  # adaptive: a task's next rollouts go out as soon as its last ones are in
                        more = rounds.landed(rollouts, task_work)
                        bar.total += len(more)
                        outstanding += submit(more)
            except BaseException:
                # What finished is on disk; queued rollouts are dropped and requests in flight not waited for.
                pool.shutdown(wait=False, cancel_futures=True)
                raise
        pool.shutdown()
        elapsed = time.perf_counter() - started
        if rounds is not None:
            targets = rounds.targets()
            total = sum(targets)

    scored = counts["ok"] + counts["model_error"]
    summary = {
        "benchmark": bench.name, "model": client.model, "rollouts_file": str(out_path),
        "tasks": len(rows), "num_repeats": repeats, "expected_rollouts": total, "skipped_done": skipped,
        "ran": ran, "counts": dict(counts), "limits": {name: limits[name] for name in LIMIT_FLAGS},
        "retries": client.retries, "seconds": round(elapsed, 3),
        "rollouts_per_s": round(ran / elapsed, 2) if elapsed > 0 else None,
        "accuracy_percent_this_run": round(100 * reward_sum / scored, 2) if scored else None,
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **calls.summary(), "concurrency": client.limiter.summary() if client.limiter else {"mode": "fixed",
                                                                                           "settled": concurrency},
    }
    if rounds is not None:
        summary["adaptive"] = rounds.summary(targets)
    if hasattr(verifier, "run_info"):  # e.g. the code sandbox's mechanism, and whether it ran unsandboxed
        summary["verifier"] = verifier.run_info()
    summary["headline"] = {"benchmark": bench.name, "model": client.model,
                           "pass@1": summary["accuracy_percent_this_run"], "ci95": None}
    unfinished = counts["infra_error"] + counts["verifier_error"]
    write_json_atomic(run_dir(cfg) / "run.json", {**summary, "status": "incomplete" if unfinished else "done",
                                                  "rollouts": str(out_path), "identity": resume.identity(cfg),
                                                  "started_at": started_at, "endpoint": fingerprint})
    text = _summary_text(summary)
    print(text, flush=True)
    to_file(logging.INFO, text.strip())
    if counts["verifier_error"]:
        log.warning("%d rollout(s) the verifier could not score (verifier_error, kept out of every score); "
                    "re-score them without model calls: python -m gym task=reverify rollouts=%s",
                    counts["verifier_error"], out_path)
    if counts["infra_error"]:
        raise GymError(f"{counts['infra_error']} of {ran} rollouts hit infrastructure errors (kept out of every "
                       f"score); finish them with: {resume.resume_command(cfg, out_path)}")
    return summary


LIMIT_FLAGS = ("cut_at_max_tokens", "out_of_time", "empty", "no_answer")


def _limit_flags(rollout: dict[str, Any]) -> list[str]:
    flags = []
    if rollout["finish_reason"] == "length":
        flags.append("cut_at_max_tokens")
    if rollout["status"] == "infra_error" and str(rollout.get("error") or "").startswith(BUDGET_ERROR):
        flags.append("out_of_time")
    if rollout["status"] == "ok":
        if not (rollout.get("response") or "").strip():
            flags.append("empty")
        elif rollout.get("extracted_answer") is None:
            flags.append("no_answer")
    return flags


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
    lines += model_time_lines(s)
    lines.append(f"rollouts: {s['rollouts_file']}")
    return "\n".join(lines)
