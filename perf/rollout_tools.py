"""Throughput of task=reverify and task=export on a synthetic multiple-choice run (no model, no network).

Writes a prepared benchmark (mmlu layout: question, options, gold letter) and a rollouts file of
`--tasks` x `--repeats` rows into a temp dir, then times, each in a fresh subprocess with peak RSS:
reverify (every row verified again by the mcq verifier, streamed) and export to NeMo Gym's layout.

    .venv/bin/python perf/rollout_tools.py [--tasks 2000] [--repeats 10] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, os, resource, sys, time
start = time.perf_counter()
from gym.core.config import compose
import importlib, contextlib, io
task, overrides = sys.argv[1], json.loads(sys.argv[2])
cfg = compose([f"task={task}", *overrides])
with contextlib.redirect_stdout(io.StringIO()):
    importlib.import_module(f"gym.tasks.{task}").run(cfg)
print(json.dumps({"seconds": time.perf_counter() - start,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def make_run(root: Path, tasks: int, repeats: int) -> Path:
    rng = random.Random(0)
    data = root / "data" / "mmlu"
    data.mkdir(parents=True)
    rows = [{"question": f"Question {t}: which letter?", "options": {k: f"option {k}{t}" for k in "ABCD"},
             "expected_answer": rng.choice("ABCD")} for t in range(tasks)]
    (data / "mmlu.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = root / "run" / "rollouts.jsonl"
    out.parent.mkdir()
    with out.open("w") as handle:
        for t, row in enumerate(rows):
            for r in range(repeats):
                letter = row["expected_answer"] if rng.random() < 0.6 else rng.choice("ABCD")
                handle.write(json.dumps({
                    "schema_version": 2, "benchmark": "mmlu", "model": "m", "task_index": t, "rollout_index": r,
                    "key": hashlib.sha256(f"{t}:{r}".encode()).hexdigest()[:32], "status": "ok",
                    "reward": float(letter == row["expected_answer"]), "scores": None, "extracted_answer": letter,
                    "expected_answer": row["expected_answer"], "prompt": [{"role": "user", "content": row["question"]}],
                    "response": f"Let me think step by step. {'x ' * 200}\nAnswer: \\boxed{{{letter}}}",
                    "reasoning": None, "verifier": {"mode": "boxed"}, "error": None, "attempts": 1, "latency_s": 0.5,
                    "finish_reason": "stop", "usage": {"prompt_tokens": 60, "completion_tokens": 220,
                                                       "total_tokens": 280},
                    "time": "2026-01-01T00:00:00+00:00", "data_sha256": None}) + "\n")
    return out


def timed(task: str, overrides: list[str], env: dict) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, task, json.dumps(overrides)], capture_output=True,
                          text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{task} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    import os

    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    root = Path(args.workdir or tempfile.mkdtemp(prefix="gym_perf_rollout_"))
    try:
        started = time.perf_counter()
        rollouts = make_run(root, args.tasks, args.repeats)
        n = args.tasks * args.repeats
        print(f"# {n} rollouts ({rollouts.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - started:.1f} s")
        env = {**os.environ, "GYM_DATA_DIR": str(root / "data")}
        print(f"{'step':<10} {'rows':>8} {'seconds':>8} {'rows/s':>8} {'peak RSS MB':>12}")
        for task, extra in (("reverify", []), ("export", ["format=nemo_gym", f"output_dir={root / 'nemo'}"])):
            result = timed(task, [f"rollouts={rollouts}", f"+run_dir={root / task}", *extra], env)
            print(f"{task:<10} {n:>8} {result['seconds']:>8.2f} {n / result['seconds']:>8.0f} {result['peak_mb']:>12.0f}")
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
