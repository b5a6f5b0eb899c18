"""task=export: rollouts in another tool's layout. format=nemo_gym writes, per benchmark and model:

* `<label>_rollouts.jsonl`: the scored rollouts (ok, model_error) as NeMo Gym rows (gym.rollouts.nemo_gym.to_nemo),
  sorted by task and rollout index: what NeMo Gym's own CLI (the nemo-gym package's `gym eval profile
  --rollouts`, `gym eval aggregate`) reads;
* `<label>_rollouts_materialized_inputs.jsonl`: one line per rollout, the prepared task row when the
  benchmark is prepared here (else just the gold answer), what `--inputs` reads;
* `<label>_rollouts_failures.jsonl` (only when there are some): infra_error and verifier_error rollouts,
  marked with `_ng_failure_class` as NeMo Gym's failures sidecar is. NeMo Gym's profile then needs
  `++allow_partial_rollouts=true`, as for any run with failures.

`<label>` is the benchmark, or `<benchmark>@<model>` when several models ran it. Every file is written
atomically; gym reads the result back (`task=aggregate rollouts=<dir>`) to the same metrics.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from gym.rollouts import nemo_gym
from gym.core.config import run_dir, to_plain
from gym.core.errors import GymError, did_you_mean
from gym.core.io import write_jsonl_atomic
from gym.core.typed import RunConfig, typed
from gym.rollouts.row import SCORED, Rollout

log = logging.getLogger("gym.export")
FORMATS = ("nemo_gym", "verl", "trl")


def _file_label(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", label)


def group_rows(files: list[Path]) -> dict[tuple[str, str], list[tuple[Path, str, Rollout]]]:
    """(benchmark, model) -> [(file, where, row)], the last row per key across all files."""
    from gym.rollouts.sources import read_rows

    by_key: dict[str, tuple[Path, str, Rollout]] = {}
    for path in files:
        for where, row in read_rows(path):
            by_key.pop(row["key"], None)
            by_key[row["key"]] = (path, where, row)
    groups: dict[tuple[str, str], list[tuple[Path, str, Rollout]]] = {}
    for item in by_key.values():
        groups.setdefault((str(item[2]["benchmark"]), str(item[2]["model"])), []).append(item)
    for items in groups.values():
        items.sort(key=lambda item: (item[2]["task_index"], item[2]["rollout_index"]))
    return groups


def task_row_source(run: RunConfig, task_rows: Any, cache: dict, benchmark: str):
    """A function (file, where, row) -> prepared task row or None, for one benchmark."""
    from gym.rollouts.sources import resolve_benchmark

    try:
        bench = resolve_benchmark(run, benchmark, cache)
        task_rows.prepared(bench)
    except GymError as exc:
        log.warning("%s: materialized inputs carry the gold answer only (%s)", benchmark, exc)
        return lambda path, where, row: None
    return lambda path, where, row: task_rows.lookup(path, bench, row, where)


def image_inliner(run: RunConfig, cache: dict, benchmark: str):
    """A function row -> row whose prompt's image references are the reference's Responses items
    (input_text, input_image with a base64 data URL read from the prepared data's folder)."""
    from gym.core.images import has_images
    from gym.model.images import responses_items
    from gym.rollouts.sources import resolve_benchmark

    def inline(row: Rollout) -> Rollout:
        prompt = row.get("prompt")
        if not isinstance(prompt, list) or not has_images(prompt):
            return row
        try:
            root = Path(str(resolve_benchmark(run, benchmark, cache).dataset.path)).parent
            return {**row, "prompt": responses_items(prompt, root)}  # type: ignore[typeddict-item]
        except GymError as exc:
            log.warning("%s: images left as references (%s)", benchmark, exc)
            return row
    return inline


def export_nemo_gym(run: RunConfig, files: list[Path], out_dir: Path) -> dict[str, Any]:
    from gym.rollouts.sources import TaskRows

    groups = group_rows(files)
    per_bench = {}
    for bench, _ in groups:
        per_bench[bench] = per_bench.get(bench, 0) + 1
    task_rows, cache, written = TaskRows(), {}, {}
    for (bench, model), items in sorted(groups.items()):
        label = _file_label(bench if per_bench[bench] == 1 else f"{bench}@{model}")
        lookup, inline = task_row_source(run, task_rows, cache, bench), image_inliner(run, cache, bench)
        items = [(path, where, inline(row)) for path, where, row in items]
        scored = [nemo_gym.to_nemo(row) for _, _, row in items if row["status"] in SCORED]
        failed = [nemo_gym.to_nemo(row) for _, _, row in items if row["status"] not in SCORED]
        inputs = [nemo_gym.materialized_input(row, lookup(path, where, row)) for path, where, row in items]
        files_out = {"rollouts": out_dir / f"{label}_rollouts.jsonl",
                     "materialized_inputs": out_dir / f"{label}_rollouts_materialized_inputs.jsonl"}
        write_jsonl_atomic(files_out["materialized_inputs"], inputs)
        write_jsonl_atomic(files_out["rollouts"], scored)
        if failed:
            files_out["failures"] = out_dir / f"{label}_rollouts_failures.jsonl"
            write_jsonl_atomic(files_out["failures"], failed)
        written[label] = {"benchmark": bench, "model": model, "scored": len(scored), "failed": len(failed),
                          "files": {name: str(path) for name, path in files_out.items()}}
    return written


def run(cfg: DictConfig) -> dict[str, Any]:
    from gym.rollouts.files import find_rollout_files

    if OmegaConf.is_missing(cfg, "rollouts") or cfg.get("rollouts") is None:
        raise GymError("rollouts=<file|glob|run dir|sweep dir> is required")
    fmt = str(cfg.get("format") or "")
    if fmt not in FORMATS:
        raise GymError(f"format={fmt!r} is not one gym exports{did_you_mean(fmt, FORMATS)}; formats: {', '.join(FORMATS)}")
    out_dir = Path(str(cfg.get("output_dir") or run_dir(cfg))).expanduser()
    files, _ = find_rollout_files(to_plain(cfg.rollouts))
    if fmt != "nemo_gym":
        from gym.serve.trainer_data import export_trainer

        written = export_trainer(typed(cfg), fmt, files, out_dir)
        if not written:  # a selection nothing fits: say so rather than exit quietly with no file
            print(f"no task fits the selection ({to_plain(cfg.get('select'))}): nothing written", flush=True)
        for label, entry in written.items():
            print(f"{label}: {entry['tasks']} task(s) -> {entry['files'][fmt]}", flush=True)
        return {"format": fmt, "out_dir": str(out_dir), "groups": written}
    written = export_nemo_gym(typed(cfg), files, out_dir)
    for label, entry in written.items():
        extra = f", {entry['failed']} unscored in {Path(entry['files']['failures']).name}" if entry["failed"] else ""
        print(f"{label}: {entry['scored']} rollout(s) -> {entry['files']['rollouts']}{extra}", flush=True)
    if written:
        print(f"to profile them in NeMo Gym, with the `gym` command of the nemo-gym package (NeMo Gym's own CLI, "
              f"not this program): gym eval profile --inputs <label>_rollouts_materialized_inputs.jsonl "
              f"--rollouts <label>_rollouts.jsonl (in {out_dir})", flush=True)
    return {"format": fmt, "out_dir": str(out_dir), "groups": written}
