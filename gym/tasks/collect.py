"""task=collect: every task × num_repeats to the model, verified in-process, appended to rollouts.jsonl.

Crash safety: each rollout is appended and flushed as it finishes; its key hashes everything that
defines it (prepared-file sha, rendered prompt, sampling, model id, rollout index), so a resumed run
skips keys already `ok`/`model_error`, redoes `infra_error`/`verifier_error`, and never mixes in stale rows.
The row itself is defined in gym/rollout.py.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from gym.client import ModelClient, api_key_from_env
from gym.config import run_dir, to_plain
from gym.errors import GymError
from gym.io import JsonlAppender, iter_jsonl, sha256_file, write_json_atomic
from gym.prompts import build_messages
from gym.rollout import FINAL, make_rollout, rollout_key
from gym.subsets import task_subsets
from gym.verifiers.judge import connect_judge, require_judge

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


def start_endpoint(cfg: DictConfig, stack: ExitStack, data_path: Path) -> str:
    model_cfg = cfg.model
    if model_cfg.get("kind") == "mock":
        from gym.mock_server import MockServer

        mock = to_plain(model_cfg.mock)
        server = MockServer(data_paths=[data_path], accuracy=mock["accuracy"], seed=mock["seed"],
                            latency=mock["latency"], faults=mock.get("faults") or {},
                            model_name=model_cfg.name or "gym-mock", reasoning=mock["reasoning"],
                            max_context_tokens=mock["max_context_tokens"], retry_after=mock["retry_after"],
                            hang_seconds=mock["hang_seconds"])
        base_url = server.start()
        stack.callback(server.stop)
        log.info("reference server (model=mock) listening at %s", base_url)
        return base_url
    if not model_cfg.get("base_url"):
        raise GymError("set model.base_url=http://host:port/v1 (or model=mock for the built-in server)")
    return str(model_cfg.base_url)


def run(cfg: DictConfig) -> dict[str, Any]:
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
    concurrency = int(cfg.get("concurrency") or 1)
    if concurrency < 1:
        raise GymError(f"concurrency={concurrency} must be at least 1")
    out_path = Path(cfg.get("output") or run_dir(cfg) / "rollouts.jsonl")
    resuming = bool(cfg.get("resume")) or out_path.is_file()
    api_key = api_key_from_env(cfg.model.get("api_key_env"), "model.api_key_env")
    sampling = {k: v for k, v in to_plain(cfg.model.sampling).items() if v not in (None, {}, [])}
    base_seed = sampling.pop("seed", None)

    with ExitStack() as stack:
        base_url = start_endpoint(cfg, stack, data_path)
        client = ModelClient(base_url, model=cfg.model.get("name"), api=cfg.model.api, api_key=api_key,
                             timeout=cfg.model.timeout, max_retries=cfg.model.max_retries, pool_size=concurrency,
                             sampling=sampling)
        stack.callback(client.close)
        fingerprint = client.fingerprint()  # fails fast, before anything is written
        verifier = make_verifier(bench.verifier.family, to_plain(bench.verifier.options))
        stack.callback(verifier.close)
        judge_model = connect_judge(cfg, stack, verifier, base_url, data_path, concurrency)

        data_sha = sha256_file(data_path)
        done = read_done(out_path) if resuming else {}
        work = []
        for task_index, messages in enumerate(prompts):
            for rollout_index in range(repeats):
                seed = None if base_seed is None else int(base_seed) + rollout_index
                key = rollout_key(data_sha, task_index, messages, {**sampling, "seed": seed}, client.model,
                                  client.api, rollout_index, judge_model)
                if done.get(key) not in FINAL:
                    work.append((task_index, rollout_index, seed, key))
        total = len(rows) * repeats
        skipped = total - len(work)
        if resuming:
            log.info("resuming %s: %d of %d rollouts already done, %d to run", out_path, skipped, total, len(work))
        write_json_atomic(run_dir(cfg) / "run.json", {"status": "running", "rollouts": str(out_path), **fingerprint})

        def one(item: tuple[int, int, int | None, str]) -> dict[str, Any]:
            task_index, rollout_index, seed, key = item
            row = rows[task_index]
            completion = client.complete(prompts[task_index], seed=seed)
            rollout = make_rollout(bench.name, client.model, row, prompts[task_index], task_index, rollout_index, key,
                                   completion, verifier, data_sha)
            return {**rollout, "subsets": subsets[task_index]} if subsets[task_index] else rollout

        started = time.perf_counter()
        counts: Counter = Counter()
        reward_sum = 0.0
        pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="rollout")
        with JsonlAppender(out_path) as sink, _progress_bar(len(work), cfg.get("progress", True)) as bar:
            futures = [pool.submit(one, item) for item in work]
            try:
                for future in as_completed(futures):
                    rollout = future.result()
                    sink.write(rollout)
                    counts[rollout["status"]] += 1
                    reward_sum += rollout["reward"] or 0.0
                    scored = counts["ok"] + counts["model_error"]
                    bar.update(1)
                    bar.set_postfix(acc=f"{100 * reward_sum / scored:.1f}%" if scored else "-",
                                    model_err=counts["model_error"], infra_err=counts["infra_error"],
                                    verifier_err=counts["verifier_error"], refresh=False)
            except BaseException:
                # What finished is on disk; queued rollouts are dropped and requests in flight not waited for.
                pool.shutdown(wait=False, cancel_futures=True)
                raise
        pool.shutdown()
        elapsed = time.perf_counter() - started

    scored = counts["ok"] + counts["model_error"]
    summary = {
        "benchmark": bench.name, "model": client.model, "rollouts_file": str(out_path),
        "tasks": len(rows), "num_repeats": repeats, "expected_rollouts": total, "skipped_done": skipped,
        "ran": len(work), "counts": dict(counts), "seconds": round(elapsed, 3),
        "rollouts_per_s": round(len(work) / elapsed, 2) if elapsed > 0 else None,
        "accuracy_percent_this_run": round(100 * reward_sum / scored, 2) if scored else None,
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    summary["headline"] = {"benchmark": bench.name, "model": client.model,
                           "pass@1": summary["accuracy_percent_this_run"], "ci95": None}
    unfinished = counts["infra_error"] + counts["verifier_error"]
    write_json_atomic(run_dir(cfg) / "run.json", {**summary, "status": "incomplete" if unfinished else "done",
                                                  "endpoint": fingerprint})
    print(_summary_text(summary), flush=True)
    if counts["verifier_error"]:
        log.warning("%d rollout(s) the verifier could not score (verifier_error, kept out of every score); "
                    "re-score them without model calls: python -m gym task=reverify rollouts=%s",
                    counts["verifier_error"], out_path)
    if counts["infra_error"]:
        raise GymError(f"{counts['infra_error']} of {len(work)} rollouts hit infrastructure errors (kept out of every "
                       f"score); finish them with: python -m gym task=collect benchmark={bench.name} resume=true "
                       f"output={out_path} (plus the same model settings)")
    return summary


def _progress_bar(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="rollouts", unit="rollout", disable=not enabled, dynamic_ncols=True,
                mininterval=0.5, smoothing=0.1)


def _summary_text(s: dict[str, Any]) -> str:
    counts = s["counts"]
    acc = "-" if s["accuracy_percent_this_run"] is None else f"{s['accuracy_percent_this_run']:.2f}%"
    return (f"\n{s['benchmark']} × {s['model']}: {s['ran']} rollouts in {s['seconds']:.1f}s "
            f"({s['rollouts_per_s']} /s); ok {counts.get('ok', 0)}, model_error {counts.get('model_error', 0)}, "
            f"infra_error {counts.get('infra_error', 0)}, verifier_error {counts.get('verifier_error', 0)}; "
            f"accuracy {acc} (this run)\n"
            f"rollouts: {s['rollouts_file']}")
