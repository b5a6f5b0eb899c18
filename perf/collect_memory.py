"""Memory of collect at RL scale: N tasks with model=mock (the reference server in-process), peak RSS of
the whole process tree sampled every 0.2 s, beside the run's rollouts/s.

    .venv/bin/python perf/collect_memory.py --tasks 1000000 [--repeats 1] [--concurrency 32]

The tasks are synthetic word problems written here (distinct questions); the run is a real
`python -m gym task=collect` subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_tasks(path: Path, count: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        for i in range(count):
            handle.write(json.dumps({"question": f"Problem {i}: a crate holds {i % 997} apples and {i % 89 + 3} pears, "
                                                 f"and {i // 997} more boxes arrive. How many fruits are in the crate?",
                                     "expected_answer": str(i % 997 + i % 89 + 3)}) + "\n")


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, in MB (from /proc)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gym-collect-mem-"))
    write_tasks(root / "data" / "gsm8k" / "gsm8k.jsonl", args.tasks)
    env = {**os.environ, "GYM_DATA_DIR": str(root / "data")}
    command = [sys.executable, "-m", "gym", "task=collect", "benchmark=gsm8k", "model=mock", "progress=false",
               f"num_repeats={args.repeats}", f"concurrency={args.concurrency}", f"hydra.run.dir={root / 'run'}"]
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, tree_rss_mb(process.pid))
        time.sleep(0.2)
    wall = time.perf_counter() - started
    summary = json.loads((root / "run" / "run.json").read_text())
    print(f"collect {args.tasks:,} tasks x {args.repeats}, model=mock, concurrency {args.concurrency}: "
          f"exit {process.returncode}, peak RSS {peak:.0f} MB (process tree), {wall:.0f}s wall, "
          f"{summary.get('rollouts_per_s')} rollouts/s in the run, counts {summary.get('counts')}")


if __name__ == "__main__":
    main()
