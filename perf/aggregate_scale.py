"""Scale check for rollout loading, task=aggregate and task=profile.

Generates synthetic gym rollout files (tasks x 100 rollouts, realistic row size with prompt, response
and verifier details) and times each step in a fresh subprocess, printing wall seconds and peak RSS
(resource.getrusage in the child). Target: 1M rows load+aggregate in <= 10 s and <= 2 GB.

    .venv/bin/python perf/aggregate_scale.py [--sizes 10000,100000,1000000] [--workdir DIR] [--keep] [--scores]
    .venv/bin/python perf/aggregate_scale.py --sizes 1000000,10000000 --workdir /tmp/agg --keep   # RL scale

With --workdir, a file generated before (rollouts_<size>.jsonl) is reused.

--scores gives every ok row three secondary scores (top-level `scores`, copied in the verifier details
as collect does), to time the loader's second pass.
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

REPEATS = 100

CHILD = r"""
import json, resource, sys, time
start = time.perf_counter()
from gym.core.config import compose
import importlib
task, rollouts, out, extra = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
quiet = "format=json" if task == "aggregate" else "plots=false"
cfg = compose([f"task={task}", f"rollouts={rollouts}", f"+run_dir={out}", quiet, *extra])
import contextlib, io
ready = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    importlib.import_module(f"gym.tasks.{task}").run(cfg)
done = time.perf_counter()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"run_s": done - ready, "total_s": done - start, "rss_mb": rss}))
"""


def generate(path: Path, rows: int, seed: int = 0, scores: bool = False) -> None:
    """rows // REPEATS tasks x REPEATS rollouts; per-task accuracy drawn uniformly."""
    rng = random.Random(seed)
    tasks = max(1, rows // REPEATS)
    statuses = ["ok"] * 97 + ["model_error"] * 2 + ["infra_error"]
    with path.open("w", encoding="utf-8") as handle:
        for task in range(tasks):
            accuracy = rng.random()
            question = f"Problem {task}: a train leaves at {task % 12} o'clock " + "and travels onward " * 10
            for rollout in range(REPEATS):
                status = rng.choice(statuses)
                correct = status == "ok" and rng.random() < accuracy
                answer = None if rng.random() < 0.03 else ("42" if correct else str(rng.randint(0, 20)))
                response = "Let me work through this step by step. " * 8 + f"\\boxed{{{answer}}}"
                row = {
                    "benchmark": "synthetic", "model": "perf-model", "task_index": task, "rollout_index": rollout,
                    "key": hashlib.sha256(f"{task}:{rollout}".encode()).hexdigest()[:32], "status": status,
                    "reward": None if status == "infra_error" else (1.0 if correct else 0.0),
                    "extracted_answer": answer if status == "ok" else None, "expected_answer": "42",
                    "prompt": [{"role": "user", "content": question}],
                    "response": response if status == "ok" else None, "reasoning": None,
                    "verifier": {"family": "math", "matched": correct}, "error": None if status == "ok" else "boom",
                    "attempts": 1, "latency_s": round(rng.uniform(0.2, 3.0), 3), "finish_reason": "stop",
                    "usage": {"prompt_tokens": 90, "completion_tokens": rng.randint(40, 400), "total_tokens": 300},
                    "time": "2025-01-01T00:00:00+00:00",
                }
                if scores:
                    row["scores"] = {"prompt_loose": float(correct or rng.random() < 0.1),
                                     "instruction_strict": rng.randint(0, 3) / 3,
                                     "instruction_loose": rng.randint(1, 3) / 3} if status == "ok" else None
                    row["verifier"]["scores"] = row["scores"]
                handle.write(json.dumps(row) + "\n")


def measure(task: str, rollouts: Path, out: Path, extra: list[str]) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, task, str(rollouts), str(out), json.dumps(extra)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{task} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--scores", action="store_true", help="rows carry secondary scores")
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="gym_perf_"))
    work.mkdir(parents=True, exist_ok=True)
    steps = [("aggregate", "aggregate", []),
             ("profile (no plots/report)", "profile", ["plots=false", "report=false", "allow_partial=true"]),
             ("profile (plots+report)", "profile", ["plots=true", "report=true", "allow_partial=true"])]
    print(f"{'rows':>9}  {'file MB':>8}  {'step':<26}  {'run s':>7}  {'process s':>9}  {'peak RSS MB':>11}")
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            path = work / f"rollouts_{size}{'_scores' if args.scores else ''}.jsonl"
            if not path.exists():
                start = time.perf_counter()
                generate(path, size, scores=args.scores)
                print(f"# generated {path} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
            mb = path.stat().st_size / 1e6
            for label, task, extra in steps:
                result = measure(task, path, work / f"out_{task}_{size}", extra)
                print(f"{size:>9}  {mb:>8.0f}  {label:<26}  {result['run_s']:>7.2f}  {result['total_s']:>9.2f}  "
                      f"{result['rss_mb']:>11.0f}", flush=True)
    finally:
        if not args.keep and args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
