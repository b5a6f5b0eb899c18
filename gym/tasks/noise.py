"""task=noise: the noise floor of a run with repeats (gym.metrics.noise): how often a task's outcome flips
between identical trials, the pass@1 difference two runs of the same model reach by sampling alone, and,
for runs graded by several judges, the judges' part. `noise.runs` adds runs made with one side held fixed
(e.g. one agent seed with k user seeds), each with its own floor.

Writes noise.json in the run dir and prints a table (or JSON with format=json).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from omegaconf import DictConfig, OmegaConf

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


def run(cfg: DictConfig) -> dict[str, Any]:
    output = check_output(cfg.get("format", "table"))
    if OmegaConf.is_missing(cfg, "rollouts") or cfg.get("rollouts") is None:
        raise GymError("rollouts=<file|glob|run dir> is required: a run with num_repeats >= 2")
    extra = to_plain((cfg.get("noise") or {}).get("runs")) or {}
    if not isinstance(extra, dict):
        raise GymError(f"noise.runs must map a label to a rollouts spec, e.g. noise.runs.user_seeds=<dir>; got {extra!r}")
    from gym.metrics.noise import METHOD, noise_text

    benchmarks = run_noise(to_plain(cfg.rollouts))
    for label, spec in extra.items():
        benchmarks.update({f"{label}: {name}": entry for name, entry in run_noise(spec).items()})
    result = {"method": METHOD, "benchmarks": benchmarks}
    path = run_dir(cfg) / "noise.json"
    write_json_atomic(path, result)
    print(json.dumps(result, indent=2) if output == "json" else noise_text(result), flush=True)
    log.info("wrote %s", path)
    return {"noise": str(path), "noise_floor": {label: e.get("noise_floor") for label, e in benchmarks.items()}}
