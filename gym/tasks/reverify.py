"""task=reverify: score stored rollouts again with today's verifiers, without calling the model.

For every rollouts file (gym's or NeMo Gym's) a new file is written, atomically, into this task's own run
dir (outputs/reverify/<time>/rollouts.jsonl; several files keep their layout below the folder they share):
the runs read are left as they were. `ok` and `verifier_error` rows are verified again (their stored reply
against the prepared task row, see gym.rollouts.sources), `model_error` and `infra_error` rows are copied;
each re-verified row keeps its key and records its previous verdict under `reverified`. Then the new files
are aggregated (metrics.json / metrics.csv in the run dir) and the verdicts that changed are counted per
benchmark, with a few examples; reverify.json keeps that summary.
"""

from __future__ import annotations

import fnmatch
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from omegaconf import DictConfig, OmegaConf

from gym.core.config import run_dir, to_plain
from gym.core.errors import GymError
from gym.core.io import write_json_atomic, write_jsonl_atomic
from gym.core.schema import BenchmarkConfig
from gym.core.typed import RunConfig, typed
from gym.model.response_cache import open_cache
from gym.rollouts.row import REVERIFIABLE, Rollout, now, verify_answer
from gym.metrics.table import format_table
from gym.verifiers.base import Verifier

log = logging.getLogger("gym.reverify")


def output_paths(files: list[Path], out_dir: Path) -> list[Path]:
    """Where each file's re-verified rows go: `out_dir/<name>` for one file, else each below `out_dir` as
    it lies below the folder the files share; a name stays one that a run dir is read by (*rollouts*)."""
    from gym.rollouts.files import ROLLOUT_FILE_PATTERNS

    shared = Path(os.path.commonpath([str(p.parent) for p in files])) if files else out_dir
    targets = []
    for path in files:
        stem = path.name.removesuffix(".jsonl").removesuffix(".reverified")
        name = f"{stem}.jsonl" if any(fnmatch.fnmatch(f"{stem}.jsonl", p) for p in ROLLOUT_FILE_PATTERNS) \
            else f"{stem}_rollouts.jsonl"
        targets.append(out_dir / path.parent.relative_to(shared) / name)
    return targets


class Verifiers:
    """One verifier (with its judge, if it needs one) per benchmark, as strict as reward.strict says (the
    verifier collect would build: gym.rollouts.benchmark), closed at the end."""

    def __init__(self, run: RunConfig, stack: ExitStack, concurrency: int, responses: Any = None) -> None:
        from gym.verifiers import strict_rewards

        self.run, self.stack, self.concurrency, self.responses = run, stack, concurrency, responses
        self.strict = strict_rewards(run.knobs)
        self.made: dict[str, Verifier] = {}

    def get(self, bench: BenchmarkConfig) -> Verifier:
        from gym.verifiers import make_verifier

        if bench.name not in self.made:
            verifier = make_verifier(bench.verifier.family, dict(bench.verifier.options or {}))
            verifier.strict = self.strict
            self.stack.callback(verifier.close)
            if verifier.needs_judge:  # no policy endpoint: judge=mock gets a server of its own
                from gym.model.endpoints import connect_judge

                connect_judge(replace(self.run, benchmark=bench), self.stack, verifier, "", self.concurrency,
                              self.responses)
            self.made[bench.name] = verifier
        return self.made[bench.name]


def _verdict_text(row: dict) -> str:
    reward = "-" if row.get("reward") is None else f"{row['reward']:.2f}"
    return f"{row.get('status')} {reward} (answer {row.get('extracted_answer')!r})"


def changed(before: dict, after: dict) -> bool:
    if before.get("status") != after.get("status"):
        return True
    a, b = before.get("reward"), after.get("reward")
    return (a is None) != (b is None) or (a is not None and abs(a - b) > 1e-9)


CHUNK = 2048  # rows verified at a time: memory stays flat however large the file


def reverify_file(path: Path, run: RunConfig, verifiers: Verifiers, task_rows: Any, cache: dict,
                  pool: ThreadPoolExecutor, changes: "Changes") -> Iterator[Rollout]:
    """The new rows in file order; `ok`/`verifier_error` rows verified again, each change noted in `changes`."""
    from gym.rollouts.sources import iter_rows, resolve_benchmark

    def one(job: tuple[Rollout, dict, Any]) -> Rollout:
        row, task, verifier = job
        answer = row.get("response") or ""
        if isinstance(row.get("trajectory"), list):  # an episode: graded again by replaying its trajectory
            answer = {"trajectory": row["trajectory"], "termination": (row.get("episode") or {}).get("termination")}
        verdict = verify_answer(verifier, task, answer, None if isinstance(answer, dict) else row.get("tool_calls"),
                                row.get("finish_reason"))  # reward.strict: a reply cut at the length limit scores 0
        previous = {name: row.get(name) for name in ("status", "reward", "extracted_answer")}
        return {**row, **verdict, "reverified": {"time": now(), **previous}}  # type: ignore[typeddict-item]

    def flush(chunk: list[tuple[Rollout, tuple | None]]) -> Iterator[Rollout]:
        jobs = [job for _, job in chunk if job is not None]
        redone = iter(pool.map(one, jobs))
        for row, job in chunk:
            if job is None:
                yield row
                continue
            new = next(redone)
            changes.add(row, new)
            yield new

    chunk: list[tuple[Rollout, tuple | None]] = []
    for where, row in iter_rows(path):
        job = None
        if row["status"] in REVERIFIABLE:
            bench = resolve_benchmark(run, row["benchmark"], cache)
            verifier = verifiers.get(bench)  # first: a judge-graded benchmark without judge= fails before file work
            job = (row, task_rows.lookup(path, bench, row, where), verifier)
        chunk.append((row, job))
        if len(chunk) >= CHUNK:
            yield from flush(chunk)
            chunk = []
    yield from flush(chunk)


class Changes:
    """Per benchmark: rows re-verified, verdicts changed (rewards up/down), verifier errors before/after, examples."""

    def __init__(self, examples: int) -> None:
        self.examples, self.per = examples, {}

    def add(self, before: Rollout, after: Rollout) -> None:
        entry = self.per.setdefault(str(before["benchmark"]), {
            "reverified": 0, "changed": 0, "up": 0, "down": 0, "verifier_error_before": 0,
            "verifier_error_after": 0, "examples": []})
        entry["reverified"] += 1
        entry["verifier_error_before"] += before["status"] == "verifier_error"
        entry["verifier_error_after"] += after["status"] == "verifier_error"
        if not changed(before, after):
            return
        entry["changed"] += 1
        old, new = before.get("reward"), after.get("reward")
        if old is not None and new is not None:
            entry["up" if new > old else "down"] += new != old
        shown = {(ex["model"], ex["task_index"]) for ex in entry["examples"]}
        if len(entry["examples"]) < self.examples and (before["model"], before["task_index"]) not in shown:  # one per task
            entry["examples"].append({"model": before["model"], "task_index": before["task_index"],
                                      "rollout_index": before["rollout_index"], "before": _verdict_text(before),
                                      "after": _verdict_text(after), "error": after.get("error")})


def change_text(per: dict[str, Any]) -> str:
    rows = [[bench, e["reverified"], e["changed"], e["up"], e["down"], e["verifier_error_before"],
             e["verifier_error_after"]] for bench, e in sorted(per.items())]
    lines = [format_table(["benchmark", "re-verified", "verdicts changed", "reward up", "reward down",
                           "verifier errors before", "after"], rows)]
    for bench, e in sorted(per.items()):
        for ex in e["examples"]:
            lines.append(f"  {bench} task {ex['task_index']} rollout {ex['rollout_index']}: {ex['before']} -> "
                         f"{ex['after']}" + (f" [{ex['error']}]" if ex["error"] else ""))
    return "\n".join(lines)


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.metrics.output import metrics_for, metrics_table, write_metrics
    from gym.rollouts.files import find_rollout_files
    from gym.rollouts.sources import TaskRows, skip_superseded

    if OmegaConf.is_missing(cfg, "rollouts") or cfg.get("rollouts") is None:
        raise GymError("rollouts=<file|glob|run dir|sweep dir> is required")
    concurrency = int(cfg.get("concurrency") or 1)
    if concurrency < 1:
        raise GymError(f"concurrency={concurrency} must be at least 1")
    examples = int(cfg.get("examples") or 0)
    files, _ = find_rollout_files(to_plain(cfg.rollouts))
    files = skip_superseded(files)
    out_dir = run_dir(cfg)
    written, changes = [], Changes(examples)
    with ExitStack() as stack:
        typed_run = typed(cfg)  # the door: below here, typed objects only
        responses = open_cache(typed_run.knob("cache"), stack)
        verifiers = Verifiers(typed_run, stack, concurrency, responses)
        pool = stack.enter_context(ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="reverify"))
        task_rows, cache = TaskRows(), {}
        for path, target in zip(files, output_paths(files, out_dir)):
            target.parent.mkdir(parents=True, exist_ok=True)
            count = write_jsonl_atomic(target, reverify_file(path, typed_run, verifiers, task_rows, cache, pool, changes))
            log.info("%s: %d row(s) -> %s", path, count, target)
            written.append(target)
        judge_cache = {"judge_hits": responses.judge_hits, "judge_misses": responses.judge_misses} if responses else None
    per = changes.per
    total = sum(e["reverified"] for e in per.values())
    cached = f"; judge cache hits {judge_cache['judge_hits']} of {sum(judge_cache.values())}" if judge_cache else ""
    print(f"re-verified {total} rollout(s) in {len(files)} file(s), no model calls{cached}:", flush=True)
    print(change_text(per), flush=True)
    metrics, _ = metrics_for([str(p) for p in written], to_plain(cfg.get("k")))
    write_metrics(out_dir, metrics)
    print(metrics_table(metrics), flush=True)
    summary = {"files": {str(src): str(dst) for src, dst in zip(files, written)}, "benchmarks": per,
               "reverified": total, "changed": sum(e["changed"] for e in per.values()),
               "metrics": str(out_dir / "metrics.json"), "judge_cache": judge_cache}
    write_json_atomic(out_dir / "reverify.json", summary)
    remaining = sum(e["verifier_error_after"] for e in per.values())
    if remaining:
        log.warning("%d rollout(s) are still verifier_error (kept out of every score); see their 'error' field",
                    remaining)
    return {key: summary[key] for key in ("reverified", "changed", "metrics")}
