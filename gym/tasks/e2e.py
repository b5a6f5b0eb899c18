"""task=e2e: prepare (cached unless prepare.force) -> collect -> aggregate -> profile in one run dir."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from gym.config import run_dir
from gym.errors import GymError
from gym.paths import CONF_DIR

log = logging.getLogger("gym.e2e")


def step_config(cfg: DictConfig, task: str, **values: Any) -> DictConfig:
    """cfg with `task`'s own defaults (read from its option file), the e2e overrides for it, and `values`."""
    step = OmegaConf.create(OmegaConf.to_container(cfg, resolve=False))
    OmegaConf.set_struct(step, False)
    if task != "collect":  # e2e's own knobs are collect's; other steps bring their defaults
        defaults = OmegaConf.load(CONF_DIR / "task" / f"{task}.yaml")
        for key in ("defaults", "task"):
            defaults.pop(key, None)
        step = OmegaConf.merge(step, defaults, cfg.get(task) or {})
    step = OmegaConf.merge(step, values)
    step.task.name = task
    step.run_dir = str(run_dir(cfg))
    return step


def prepare_if_needed(cfg: DictConfig) -> None:
    from gym.tasks import prepare

    bench = cfg.benchmark
    if Path(bench.dataset.path).is_file() and not cfg.prepare.force:
        log.info("%s: prepared data found at %s (prepare.force=true to redo)", bench.name, bench.dataset.path)
        return
    jobs = prepare.build_jobs(cfg, [bench.name])
    prepare.validate(jobs)
    result = prepare.run_job(jobs[0])
    if result["status"] != "ok":
        raise GymError(f"prepare {bench.name}: {result['error']}")
    log.info("%s: prepared %s rows at %s", bench.name, result.get("rows"), result["path"])


def headline(metrics_path: Path, benchmark: str) -> dict[str, Any]:
    try:
        metrics = json.loads(metrics_path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    for entry in (metrics.get("benchmarks") or {}).values():
        if entry.get("benchmark") == benchmark:
            pass1 = entry.get("pass@1") or {}
            return {"benchmark": benchmark, "model": entry.get("model"), "pass@1": pass1.get("value"),
                    "ci95": [pass1.get("ci_low"), pass1.get("ci_high")]}
    return {}


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym import resume

    if cfg.get("benchmark") is None:
        raise GymError("choose a benchmark: benchmark=<name> (python -m gym task=search lists them)")
    with resume.signals_as_interrupts():
        # resume=true: continue the run's own rollouts file and keep every output in the first run's dir
        cfg = resume.resolve(cfg)
        try:
            return _run(cfg)
        except KeyboardInterrupt as exc:  # outside collect (prepare, aggregate, profile): the same exact hint
            if getattr(exc, "hint", None):
                raise
            rollouts = Path(cfg.get("output") or run_dir(cfg) / "rollouts.jsonl")
            raise resume.Interrupted(getattr(exc, "signum", 2),
                                     f"continue with: {resume.resume_command(cfg, rollouts)}") from None


def _run(cfg: DictConfig) -> dict[str, Any]:
    from gym.tasks import aggregate, collect, profile

    out_dir = run_dir(cfg)
    prepare_if_needed(cfg)
    rollouts = Path(cfg.get("output") or out_dir / "rollouts.jsonl")
    collect_error = None
    try:
        collected = collect.run(step_config(cfg, "collect", output=str(rollouts)))
    except GymError as exc:
        if not rollouts.is_file():
            raise
        collect_error, collected = exc, {}  # score what finished; report the failures at the end
    aggregate.run(step_config(cfg, "aggregate", rollouts=str(rollouts)))
    profile.run(step_config(cfg, "profile", rollouts=str(rollouts), allow_partial=collect_error is not None))
    summary = {"benchmark": cfg.benchmark.name, "model": collected.get("model"), "run_dir": str(out_dir),
               "headline": headline(out_dir / "metrics.json", cfg.benchmark.name)}
    head = summary["headline"]
    if head.get("pass@1") is not None:
        print(f"\n{cfg.benchmark.name}: pass@1 {head['pass@1']:.2f} (95% CI {head['ci95'][0]:.2f}-{head['ci95'][1]:.2f}) "
              f"· files in {out_dir}: rollouts.jsonl, metrics.json, reward_profile.jsonl, report.html", flush=True)
    if collect_error is not None:
        raise collect_error
    return summary
