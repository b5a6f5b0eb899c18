"""task=e2e: prepare (cached unless prepare.force) -> collect -> aggregate -> profile in one run dir.

Each step gets the config its own task would get (composed by Hydra on the app's search path, so a
user's config dirs count), with e2e's shared nodes and knobs on top, and runs through the task registry.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, open_dict

from gym.core.config import compose_step, run_dir
from gym.core.errors import GymError
from gym.core.typed import RunConfig, check_own_file, knobs_of, typed
from gym.metrics.options import AGGREGATE_KNOBS, PROFILE_KNOBS, aggregate_options, metrics_options, profile_options
from gym.model import endpoints
from gym.tasks import run_task

log = logging.getLogger("gym.e2e")


def headline(metrics_path: Path, benchmark: str) -> dict[str, Any]:
    try:
        metrics = json.loads(metrics_path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    for entry in (metrics.get("benchmarks") or {}).values():
        if entry.get("benchmark") == benchmark:
            pass1 = entry.get("pass@1") or {}
            ci = [pass1.get("ci_low"), pass1.get("ci_high")]
            return {"benchmark": benchmark, "model": entry.get("model"), "pass@1": pass1.get("value"),
                    "ci95": None if None in ci else ci, "ci_method": pass1.get("method"), "tasks": entry.get("tasks")}
    return {}


def fill_run_json(out_dir: Path, head: dict[str, Any]) -> None:
    """run.json's headline gets aggregate's figure and interval (collect wrote it before any interval existed)."""
    from gym.core.io import write_json_atomic

    path = out_dir / "run.json"
    try:
        run = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return
    if head.get("pass@1") is None or not isinstance(run, dict):
        return
    run["headline"] = {**(run.get("headline") or {}), **head}
    write_json_atomic(path, run)


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.rollouts import resume

    if cfg.get("benchmark") is None:
        raise GymError("choose a benchmark: benchmark=<name> (python -m gym task=search lists them)")
    check_own_file(cfg.benchmark)  # benchmark=local without its file or family: one line
    with resume.signals_as_interrupts():
        # resume=true: continue the run's own rollouts file and keep every output in the first run's dir
        typed_run = resume.resolve(typed(cfg))  # the door; its steps are composed from cfg, as their tasks'
        cfg = cfg.copy()
        with open_dict(cfg):
            cfg.update({key: typed_run.knobs[key] for key in ("output", "run_dir") if key in typed_run.knobs})
        try:
            return _run(cfg, typed_run)
        except KeyboardInterrupt as exc:  # outside collect (prepare, aggregate, profile): the same exact hint
            if getattr(exc, "hint", None):
                raise
            rollouts = Path(typed_run.knobs.get("output") or typed_run.home / "rollouts.jsonl")
            raise resume.Interrupted(getattr(exc, "signum", 2),
                                     f"continue with: {resume.resume_command(typed_run, rollouts)}") from None


def _run(cfg: DictConfig, typed_run: RunConfig) -> dict[str, Any]:
    out_dir = run_dir(cfg)
    rollouts = Path(cfg.get("output") or out_dir / "rollouts.jsonl")
    one_shard = bool(cfg.get("shard"))  # this job's part only: the sweep dir's aggregate merges the shards
    aggregate_cfg = compose_step(cfg, "aggregate", cfg.get("aggregate"), rollouts=str(rollouts), allow_partial=one_shard)
    # the later steps' knobs, checked before the first model call
    aggregate_knobs = knobs_of(aggregate_cfg, AGGREGATE_KNOBS)
    aggregate_options(aggregate_knobs)
    metrics_options(aggregate_knobs)
    profile_cfg = compose_step(cfg, "profile", cfg.get("profile"), rollouts=str(rollouts))
    profile_options(knobs_of(profile_cfg, PROFILE_KNOBS))
    endpoints.check_settings(typed_run)  # keys and endpoints before prepare: a refused run leaves nothing
    endpoints.check_reachable(typed_run.model)
    run_task("prepare", compose_step(cfg, "prepare", benchmarks=None))  # with the run's limit (fit_to_limit)
    collect_error = None
    try:
        collected = run_task("collect", compose_step(cfg, "collect", output=str(rollouts)))
    except GymError as exc:
        if not rollouts.is_file():
            raise
        collect_error, collected = exc, {}  # score what finished; report the failures at the end
    run_task("aggregate", aggregate_cfg)
    unscored = collect_error is not None or bool(((collected or {}).get("counts") or {}).get("verifier_error"))
    profile_cfg.allow_partial = unscored or one_shard  # known once collect has run
    run_task("profile", profile_cfg)
    summary = {"benchmark": cfg.benchmark.name, "model": (collected or {}).get("model"), "run_dir": str(out_dir),
               "headline": headline(out_dir / "metrics.json", cfg.benchmark.name),
               **{key: collected[key] for key in ("slurm", "resumes") if key in (collected or {})}}
    head = summary["headline"]
    fill_run_json(out_dir, head)
    if head.get("pass@1") is not None:
        ci = head.get("ci95")  # none for a single scored task
        ci_text = f" (95% CI {ci[0]:.2f}-{ci[1]:.2f}, {head.get('ci_method')})" if ci else ""
        print(f"\n{cfg.benchmark.name}: pass@1 {head['pass@1']:.2f}{ci_text} "
              f"· files in {out_dir}: rollouts.jsonl, metrics.json, reward_profile.jsonl, report.html", flush=True)
    if collect_error is not None:
        raise collect_error
    return summary
