"""task=noise: the noise floor of a run with repeats (gym.metrics.noise): how often a task's outcome flips
between identical trials, the pass@1 difference two runs of the same model reach by sampling alone, and,
for runs graded by several judges, the judges' part. `noise.runs` adds runs made with one side held fixed
(e.g. one agent seed with k user seeds), each with its own floor. Given `benchmark=<name>` instead of
`rollouts`, it plays those runs itself (`replay`): collect with episode.hold unset, =agent and =user for an
episode benchmark, and task=reverify with k judge seeds for a one-judge benchmark.

Writes noise.json in the run dir and prints a table (or JSON with format=json).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from omegaconf import DictConfig

from gym.core.config import run_dir, to_plain
from gym.core.errors import GymError
from gym.core.io import write_json_atomic
from gym.metrics.options import check_output

log = logging.getLogger("gym.noise")


def run_noise(spec: Any) -> dict[str, Any]:
    """{label: noise block} for every (benchmark, model) of a rollouts spec."""
    from gym.metrics.noise import group_noise, judge_noise
    from gym.rollouts.load import load_rollouts

    rollouts = load_rollouts(spec)
    frame = rollouts.frame
    models = frame.groupby("benchmark", observed=True)["model"].nunique()
    out: dict[str, Any] = {}
    for (bench, model), group in frame.groupby(["benchmark", "model"], observed=True, sort=True):
        label = str(bench) if models[bench] <= 1 else f"{bench}@{model}"
        entry = group_noise(group)
        ok = group[group["status"] == "ok"]
        first = rollouts.raw_rows(ok.iloc[:1][["source", "ordinal", "key"]]) if len(ok) else [None]
        if first[0] and isinstance((first[0].get("verifier") or {}).get("judges"), list):
            rows = [r for r in rollouts.raw_rows(ok[["source", "ordinal", "key"]]) if r is not None]
            entry["judges"] = judge_noise(rows)
        out[label] = entry
    return out


def replay(cfg: DictConfig) -> tuple[str, dict[str, str], dict[str, Any] | None]:
    """Play the runs the noise floor is read from, each in a sub-folder of the run dir (resumed when there):
    (the main run's rollouts, {label: held-side run}, the judge's part of a one-judge benchmark or None)."""
    from gym.core.config import compose_step
    from gym.metrics.noise import MAIN
    from gym.tasks import run_task

    out, repeats = run_dir(cfg), int(cfg.noise.repeats)
    if repeats < 2:
        raise GymError(f"noise.repeats={repeats}: the floor needs two or more rollouts of a task")
    run_task("prepare", compose_step(cfg, "prepare", benchmarks=None))
    episode = cfg.benchmark.get("kind") == "episode"
    files = {}
    for label, hold in ((MAIN, None), *((("user_seeds", "agent"), ("agent_seeds", "user")) if episode else ())):
        where = out / label
        log.info("noise: %s (%d rollouts a task)", label, repeats)
        run_task("collect", compose_step(cfg, "collect", {"num_repeats": repeats, "episode": {"hold": hold}},
                                         output=str(where / "rollouts.jsonl"), run_dir=str(where)))
        files[label] = str(where / "rollouts.jsonl")
    main = files.pop(MAIN)
    return main, files, rejudge(cfg, main) if _one_judge(cfg) else None


def _one_judge(cfg: DictConfig) -> bool:
    return str((cfg.get("judge") or {}).get("kind") or "none") != "none" and not cfg.get("judges")


def rejudge(cfg: DictConfig, rollouts: str) -> dict[str, Any] | None:
    """The same trajectories judged noise.judge_repeats times (task=reverify, judge seeds seed, seed + 1 ...)."""
    from gym.core.config import compose_step
    from gym.metrics.noise import rejudge_noise
    from gym.rollouts.files import rows_as_loaded
    from gym.tasks import run_task

    first = int(((cfg.judge.get("sampling") or {}).get("seed")) or 0)
    judgings = []
    for number in range(int(cfg.noise.judge_repeats)):
        where = run_dir(cfg) / "judge" / str(number)
        run_task("reverify", compose_step(cfg, "reverify", {"judge": {"sampling": {"seed": first + number}}},
                                          rollouts=rollouts, run_dir=str(where)))
        judgings.append({row["key"]: float(row["reward"]) for row in rows_as_loaded(where / "rollouts.jsonl")
                         if row.get("status") == "ok" and row.get("reward") is not None})
    return rejudge_noise(judgings)


def run(cfg: DictConfig) -> dict[str, Any]:
    output = check_output(cfg.get("format", "table"))
    extra = to_plain((cfg.get("noise") or {}).get("runs")) or {}
    if not isinstance(extra, dict):
        raise GymError(f"noise.runs must map a label to a rollouts spec, e.g. noise.runs.user_seeds=<dir>; got {extra!r}")
    judged = None
    if cfg.get("rollouts") is not None:
        spec = to_plain(cfg.rollouts)
    elif cfg.get("benchmark") is not None:
        spec, played, judged = replay(cfg)
        extra = {**played, **extra}
    else:
        raise GymError("rollouts=<file|glob|run dir> (a run with num_repeats >= 2) or benchmark=<name> (noise "
                       "plays the replays itself) is required")
    from gym.metrics.noise import METHOD, noise_parts, noise_text

    benchmarks = run_noise(spec)
    if judged is not None:
        for entry in benchmarks.values():
            entry["judges"] = judged
    for label, spec in extra.items():
        benchmarks.update({f"{label}: {name}": entry for name, entry in run_noise(spec).items()})
    parts = {label: noise_parts(benchmarks, label) for label in benchmarks if ": " not in label}
    result = {"method": METHOD, "benchmarks": benchmarks, "parts": {k: v for k, v in parts.items() if v}}
    path = run_dir(cfg) / "noise.json"
    write_json_atomic(path, result)
    print(json.dumps(result, indent=2) if output == "json" else noise_text(result), flush=True)
    log.info("wrote %s", path)
    return {"noise": str(path), "noise_floor": {label: e.get("noise_floor") for label, e in benchmarks.items()}}
