"""task=export format=verl|trl: a trainer's dataset from rollouts, the tasks chosen by their rewards.

The tasks are those the rollouts cover, narrowed by `select.*` exactly as task=profile selects them
(`select.min_pass_rate`, `select.max_pass_rate`, `select.buckets`, with `buckets.*` edges): pick by reward,
then train on the same reward, two commands. Each task appears once, its prompt built with gym's
template for the benchmark (the messages collect sends), its row from the prepared file:

* format=verl: `<benchmark>_verl.parquet`, verl's fields: `data_source` (the gym benchmark, which
  gym.serve.trainers.compute_score reads), `prompt` (chat messages), `ability` (the verifier family),
  `reward_model: {style: rule, ground_truth}`, `extra_info: {split, index, task_index}` (compute_score
  grades against the prepared row at task_index: MCQ options and the like included).
* format=trl: `<benchmark>_trl.jsonl`, a conversational dataset `GRPOTrainer` reads
  (`datasets.load_dataset("json", data_files=...)`): `prompt` (chat messages), `task_index` (the column
  gym.serve.trainers.reward_function finds the task by), `expected_answer`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.core.io import atomic_path, write_jsonl_atomic
from gym.core.typed import RunConfig
from gym.metrics.reward_profiles import BucketEdges, Selection
from gym.rollouts.benchmark import Benchmark

TRAINER_FORMATS = ("verl", "trl")


def selection_of(run: RunConfig) -> tuple[Selection, BucketEdges]:
    select = run.knob("select", {})
    chosen = select.get("buckets")
    selection = Selection(select.get("min_pass_rate"), select.get("max_pass_rate"),
                          tuple([chosen] if isinstance(chosen, str) else chosen) if chosen is not None else None)
    return selection, BucketEdges(**run.knob("buckets", {}))


def chosen_tasks(run: RunConfig, files: list[Path]) -> dict[str, list[int]]:
    """benchmark -> the task indices to export (every task with a scored rollout, narrowed by select.*)."""
    from gym.metrics import reward_profiles
    from gym.rollouts.load import load_rollouts

    selection, edges = selection_of(run)
    rollouts = load_rollouts([str(path) for path in files])
    profile, _ = reward_profiles.task_profile(rollouts.frame, None, edges)
    if profile.empty:
        raise GymError("no task has a scored rollout (every row is an infra_error or verifier_error)")
    if selection.active:
        profile = profile[reward_profiles.select_mask(profile, selection)]
    tasks: dict[str, list[int]] = {}
    for bench, part in profile.groupby("benchmark", sort=True):
        tasks[str(bench)] = sorted({int(t) for t in part["task_index"]})
    return tasks


def trainer_rows(run: RunConfig, bench_name: str, indices: list[int], fmt: str) -> list[dict[str, Any]]:
    config = run.benchmark_named(bench_name)
    if str(config.kind or "answer") == "episode":
        raise GymError(f"{bench_name} is an episode benchmark: a trainer plays it through task=serve "
                       "(/seed_session, /run) or gym.serve.trainers.Environment, not from a static dataset")
    bench = Benchmark.load(config)  # its rows and messages (no verifier)
    wanted = set(indices)
    rows = {i: row for i, _, row in bench.rows() if i in wanted}
    missing = sorted(wanted - set(rows))
    if missing:
        raise GymError(f"{bench.data}: has no row for task_index {missing[0]}; was it prepared again since the "
                       "rollouts were collected?")
    family = str(config.verifier.family)
    out = []
    for number, index in enumerate(indices):
        row = rows[index]
        messages = bench.messages(row)
        gold = row.get("expected_answer")
        if fmt == "verl":
            out.append({"data_source": bench_name, "prompt": messages, "ability": family,
                        "reward_model": {"style": "rule", "ground_truth": "" if gold is None else str(gold)},
                        "extra_info": {"split": "train", "index": number, "task_index": index}})
        else:
            out.append({"prompt": messages, "task_index": index,
                        "expected_answer": None if gold is None else str(gold)})
    return out


def write_parquet_atomic(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as partial:
        pq.write_table(pa.Table.from_pylist(rows), partial)


def export_trainer(run: RunConfig, fmt: str, files: list[Path], out_dir: Path) -> dict[str, Any]:
    written = {}
    for bench, indices in chosen_tasks(run, files).items():
        rows = trainer_rows(run, bench, indices, fmt)
        if fmt == "verl":
            path = out_dir / f"{bench}_verl.parquet"
            write_parquet_atomic(path, rows)
        else:
            path = out_dir / f"{bench}_trl.jsonl"
            write_jsonl_atomic(path, rows)
        written[bench] = {"benchmark": bench, "tasks": len(rows), "files": {fmt: str(path)}}
    return written
