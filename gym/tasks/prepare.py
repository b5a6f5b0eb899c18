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

from gym.data.catalog import active_config_dirs, benchmark_files
from gym.core.config import compose_benchmark, run_dir, to_plain
from gym.core.errors import GymError, unknown_benchmark
from gym.core.runlog import to_file
from gym.core.io import write_json_atomic
from gym.core.paths import resolve_script

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
    if not names:
        raise GymError("benchmarks=[] selects nothing to prepare: name some (benchmarks=[a,b]) or benchmarks=all")
    for name in names:
        if name not in known:
            raise unknown_benchmark(name, [*known, "all"])
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
            data={**to_plain(cfg.data), "skip_bad_rows": bool(OmegaConf.select(cfg, "prepare.skip_bad_rows")),
                  "force": bool(OmegaConf.select(cfg, "prepare.force"))},
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


def is_prepared(job: PrepareJob) -> bool:
    """The prepared file exists and was made with the same prepare arguments (a file without a manifest,
    placed by hand, counts as prepared)."""
    from gym.data.prepare_context import read_manifest

    if not job.output_path.is_file():
        return False
    manifest = read_manifest(job.output_path)
    return manifest is None or manifest.get("prepare_args", job.args) == job.args


GENERATED_SAMPLES = "num_samples"  # prepare argument of generated benchmarks (ruler, ruler2): samples per task


def fit_to_limit(cfg: DictConfig, limit: int | None) -> DictConfig:
    """The prepare step of a run of `limit` tasks: a generated benchmark makes `limit` samples per task
    instead of its full count (a dry run over a small mirror has the sources for that, and it is quick),
    unless it is prepared in full already. Its manifest records the count, so a run without a limit
    prepares it again in full."""
    bench = cfg.get("benchmark")
    args = {**to_plain(bench.dataset.prepare_args), **to_plain(cfg.get("prepare_args") or {})} if bench else {}
    full = args.get(GENERATED_SAMPLES)
    if not limit or not isinstance(full, int) or full <= limit or GENERATED_SAMPLES in (cfg.get("prepare_args") or {}):
        return cfg
    if not bool(OmegaConf.select(cfg, "prepare.force")) and is_prepared(build_jobs(cfg, [bench.name])[0]):
        return cfg
    log.info("%s: limit=%d, so %d generated samples per task (not %d); without a limit it is prepared in full",
             bench.name, limit, limit, full)
    return OmegaConf.merge(cfg, {"prepare_args": {GENERATED_SAMPLES: int(limit)}})


def run_job(job: PrepareJob, progress: bool = True) -> dict[str, Any]:
    """Prepare one benchmark; returns a status row (errors are caught so other benchmarks go on)."""
    from gym.data.prepare_context import PrepareContext

    logging.basicConfig(level=logging.INFO)  # joblib workers start without Hydra's logging
    started = time.perf_counter()
    data = job.data
    ctx = PrepareContext(name=job.name, output_path=job.output_path, mirror=data.get("mirror"),
                         offline=bool(data.get("offline")), timeout=float(data.get("timeout", 60)),
                         retries=int(data.get("retries", 4)), skip_bad_rows=bool(data.get("skip_bad_rows", False)),
                         force=bool(data.get("force", False)), progress=progress, prepare_args=job.args)
    row = {"benchmark": job.name, "path": str(job.output_path)}
    created = _missing_parents(job.output_path.parent)
    try:
        try:
            job.output_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GymError(f"data directory not writable: {job.output_path.parent} ({exc.strerror})") from None
        prepare = load_prepare(job.script)
        returned = prepare(ctx, **job.args)
        if returned is None or Path(returned).expanduser().resolve() != job.output_path:
            raise GymError(f"prepare() returned {returned}, but the config expects {job.output_path}")
        from gym.data.prepare_context import read_manifest

        manifest = read_manifest(job.output_path) or {}
        row.update(status="ok", rows=manifest.get("rows"), sha256=manifest.get("sha256"),
                   upstream_rows=manifest.get("upstream_rows"))
    except GymError as exc:
        row.update(status="failed", error=str(exc))
    except Exception as exc:  # a bug in one script must not take the others down
        row.update(status="failed", error=f"{exc.__class__.__name__}: {exc}")
    if row["status"] == "failed":
        _remove_empty_dirs(job.output_path.parent, created)
    row["seconds"] = round(time.perf_counter() - started, 2)
    return row


def _missing_parents(path: Path) -> list[Path]:
    """`path` and those of its parents that do not exist yet, deepest first."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def _remove_empty_dirs(top: Path, created: list[Path]) -> None:
    """After a failure: remove the empty dirs left under `top`, and those of `created` now empty."""
    if top.is_dir():
        for folder in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
            _rmdir_if_empty(folder)
    for folder in created:
        _rmdir_if_empty(folder)


def _rmdir_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # not empty (or already gone): leave it
        pass


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.data import local

    if cfg.get("benchmarks") is None and local.is_local(cfg.get("benchmark")):
        return _check_own_file(cfg)
    names = selected_names(cfg)
    if names == [getattr(cfg.get("benchmark"), "name", None)]:
        cfg = fit_to_limit(cfg, cfg.get("limit"))
    jobs = build_jobs(cfg, names)
    validate(jobs)
    todo = []
    results = []
    force = bool(OmegaConf.select(cfg, "prepare.force"))
    for job in jobs:
        if not force and is_prepared(job):
            log.info("%s: already prepared at %s (prepare.force=true prepares it again)", job.name, job.output_path)
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
    report = _report_path(cfg)
    if report is not None:
        write_json_atomic(report, sorted(results, key=lambda r: r["benchmark"]))
    if len(failed) == 1 and len(results) == 1:
        raise GymError(f"{failed[0]['benchmark']}: {failed[0]['error']}")
    if failed:
        to_file(logging.ERROR, "failed to prepare:\n" + "\n".join(f"  {r['benchmark']}: {r['error']}" for r in failed))
        where = f"; whole messages in {report}" if report else ""
        raise GymError(f"{len(failed)} of {len(results)} benchmarks failed to prepare (table above{where})"
                       f"{_common_hint(failed)}")
    return {"prepared": [r["benchmark"] for r in results]}


def _check_own_file(cfg: DictConfig) -> dict[str, Any]:
    """benchmark=local: nothing to download; the user's file is checked and copied in prepared-row shape."""
    from gym.core.typed import check_own_file
    from gym.data import local

    check_own_file(cfg.benchmark)
    layout = local.check(cfg.benchmark, force=bool(OmegaConf.select(cfg, "prepare.force")))
    log.info("%s: %d rows checked (%s layout, columns %s; %s) -> %s", layout["source"], layout["rows"], layout["layout"],
             layout["columns"], local.rules_text(layout), layout["path"])
    return {"prepared": [cfg.benchmark.name], "path": str(layout["path"]), "rows": layout["rows"]}


REPORT = "prepare.json"  # in the run dir: one row per benchmark (status, rows, sha256, path, error)


def _report_path(cfg: DictConfig) -> Path | None:
    """Where the per-benchmark report goes: the run dir of a CLI run (none when called as a function)."""
    from hydra.core.hydra_config import HydraConfig

    return run_dir(cfg) / REPORT if cfg.get("run_dir") or HydraConfig.initialized() else None


ERROR_WIDTH = 90  # characters of each failed benchmark's error shown in the table


def _short_error(error: str) -> str:
    """The first sentence of an error, without the ways-out hint every download failure ends with."""
    text = error.split("; ways out:")[0].splitlines()[0] if error else ""
    return text if len(text) <= ERROR_WIDTH else text[:ERROR_WIDTH - 1] + "…"


def _common_hint(failed: list[dict[str, Any]]) -> str:
    """The download hint once for all (failures without a network differ only in the file named)."""
    if any("; ways out:" in (r.get("error") or "") for r in failed):
        return ("; without internet: data.mirror=<URL or dir in `wget -x` layout>, or put each file where its "
                "error says, or data.offline=true")
    return ""


def _print_table(results: list[dict[str, Any]]) -> None:
    from gym.metrics.table import format_table

    failed = any(r["status"] == "failed" for r in results)
    header = ["benchmark", "status", "rows", "upstream rows", "secs", "path / error" if failed else "path"]
    rows = [[r["benchmark"], r["status"], r.get("rows") or "", _upstream_note(r.get("upstream_rows")),
             r.get("seconds", ""), _short_error(r["error"]) if r["status"] == "failed" else r["path"]]
            for r in sorted(results, key=lambda r: r["benchmark"])]
    print(format_table(header, rows, right=(2, 4)), flush=True)


def _upstream_note(counts: dict[str, Any] | None) -> str:
    """'kept of seen', then what became of the rest: '1,000 of 1,297 (297 left out, 2 unscorable)'."""
    if not counts:
        return ""
    extra = [f"{counts[key]:,} {label}" for key, label in (("left_out", "left out"), ("skipped", "skipped"),
                                                          ("unscorable", "unscorable")) if counts.get(key)]
    return f"{counts['kept']:,} of {counts['seen']:,}" + (f" ({', '.join(extra)})" if extra else "")
