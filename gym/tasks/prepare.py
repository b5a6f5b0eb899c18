"""task=prepare: run benchmarks' prepare scripts, validated up front, fanned out with joblib."""

from __future__ import annotations

import importlib.util
import inspect
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from gym.catalog import active_config_dirs, benchmark_files
from gym.config import compose_benchmark, to_plain
from gym.errors import GymError, unknown_benchmark
from gym.paths import resolve_script

log = logging.getLogger("gym.prepare")


@dataclass
class PrepareJob:
    name: str
    script: Path
    output_path: Path
    args: dict[str, Any]
    token_env: str | None
    data: dict[str, Any] = field(default_factory=dict)


def selected_names(cfg: DictConfig) -> list[str]:
    """benchmarks=[a,b] | benchmarks=all | the selected benchmark=..."""
    known = benchmark_files(active_config_dirs())
    wanted = cfg.get("benchmarks")
    if wanted is None:
        if cfg.get("benchmark") is None:
            raise GymError("choose what to prepare: benchmark=<name>, benchmarks=[a,b] or benchmarks=all")
        return [cfg.benchmark.name]
    if isinstance(wanted, str):
        wanted = sorted(known) if wanted == "all" else [wanted]
    names = [str(n) for n in wanted]
    for name in names:
        if name not in known:
            raise unknown_benchmark(name, known)
    return list(dict.fromkeys(names))


def build_jobs(cfg: DictConfig, names: list[str]) -> list[PrepareJob]:
    jobs = []
    for name in names:
        bench = cfg.benchmark if cfg.get("benchmark") is not None and cfg.benchmark.name == name else compose_benchmark(cfg, name)
        args = {**to_plain(bench.dataset.prepare_args), **to_plain(cfg.get("prepare_args") or {})}
        jobs.append(PrepareJob(
            name=name,
            script=resolve_script(bench.dataset.prepare_script, active_config_dirs()[1:]),
            output_path=Path(bench.dataset.path).expanduser().resolve(),
            args=args,
            token_env=bench.dataset.get("token_env"),
            data={**to_plain(cfg.data), "skip_bad_rows": bool(OmegaConf.select(cfg, "prepare.skip_bad_rows"))},
        ))
    return jobs


def load_script(script: Path):
    """Import a prepare script by path (benchmark names like math-500 are not module names)."""
    spec = importlib.util.spec_from_file_location(f"gym_prepare_{script.parent.name.replace('-', '_')}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_prepare(script: Path):
    return getattr(load_script(script), "prepare", None)


def validate(jobs: list[PrepareJob]) -> None:
    """Every problem with every selected benchmark, reported at once, before anything runs."""
    problems = []
    for job in jobs:
        if not job.script.is_file():
            problems.append(f"{job.name}: prepare script not found: {job.script}")
            continue
        try:
            prepare = load_prepare(job.script)
        except Exception as exc:  # a broken script must not hide the others' problems
            problems.append(f"{job.name}: {job.script} fails to import ({exc.__class__.__name__}: {exc})")
            continue
        if not callable(prepare):
            problems.append(f"{job.name}: {job.script} defines no prepare() function")
            continue
        try:
            inspect.signature(prepare).bind(None, **job.args)
        except TypeError as exc:
            problems.append(f"{job.name}: prepare() does not accept the arguments {sorted(job.args)} ({exc})")
    if problems:
        raise GymError("nothing prepared; fix these first:\n  - " + "\n  - ".join(problems))


def run_job(job: PrepareJob, progress: bool = True) -> dict[str, Any]:
    """Prepare one benchmark; returns a status row (errors are caught so other benchmarks go on)."""
    from gym.download import PrepareContext

    logging.basicConfig(level=logging.INFO)  # joblib workers start without Hydra's logging
    started = time.perf_counter()
    data = job.data
    ctx = PrepareContext(name=job.name, output_path=job.output_path, mirror=data.get("mirror"),
                         offline=bool(data.get("offline")), timeout=float(data.get("timeout", 60)),
                         retries=int(data.get("retries", 4)), skip_bad_rows=bool(data.get("skip_bad_rows", False)),
                         progress=progress, prepare_args=job.args)
    row = {"benchmark": job.name, "path": str(job.output_path)}
    try:
        try:
            job.output_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GymError(f"data directory not writable: {job.output_path.parent} ({exc.strerror})") from None
        prepare = load_prepare(job.script)
        returned = prepare(ctx, **job.args)
        if returned is None or Path(returned).expanduser().resolve() != job.output_path:
            raise GymError(f"prepare() returned {returned}, but the config expects {job.output_path}")
        from gym.download import read_manifest

        manifest = read_manifest(job.output_path) or {}
        row.update(status="ok", rows=manifest.get("rows"), sha256=manifest.get("sha256"))
    except GymError as exc:
        row.update(status="failed", error=str(exc))
    except Exception as exc:  # a bug in one script must not take the others down
        row.update(status="failed", error=f"{exc.__class__.__name__}: {exc}")
    row["seconds"] = round(time.perf_counter() - started, 2)
    return row


def run(cfg: DictConfig) -> dict[str, Any]:
    names = selected_names(cfg)
    jobs = build_jobs(cfg, names)
    validate(jobs)
    todo = []
    results = []
    for job in jobs:
        if cfg.get("use_cached") and job.output_path.is_file():
            log.info("%s: already prepared at %s (use_cached=true, skipped)", job.name, job.output_path)
            results.append({"benchmark": job.name, "path": str(job.output_path), "status": "cached"})
        else:
            todo.append(job)
    n_jobs = max(1, int(cfg.get("n_jobs") or 1))
    if len(todo) > 1 and n_jobs > 1:
        from joblib import Parallel, delayed

        from tqdm import tqdm

        finished = Parallel(n_jobs=min(n_jobs, len(todo)), return_as="generator_unordered")(
            delayed(run_job)(job, False) for job in todo)
        results += list(tqdm(finished, total=len(todo), desc="prepare", unit="benchmark"))
    else:
        for job in todo:
            log.info("preparing %s -> %s", job.name, job.output_path)
            results.append(run_job(job))
    _print_table(results)
    failed = [r for r in results if r["status"] == "failed"]
    if failed:
        detail = "; ".join(f"{r['benchmark']}: {r['error']}" for r in failed)
        raise GymError(f"{len(failed)} of {len(results)} benchmarks failed to prepare: {detail}")
    return {"prepared": [r["benchmark"] for r in results]}


def _print_table(results: list[dict[str, Any]]) -> None:
    from gym.table import format_table

    rows = [[r["benchmark"], r["status"], r.get("rows") or "", r.get("seconds", ""), r["path"]]
            for r in sorted(results, key=lambda r: r["benchmark"])]
    print(format_table(["benchmark", "status", "rows", "secs", "path"], rows, right=(2, 3)), flush=True)
