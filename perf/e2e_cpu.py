"""CPU seconds of one `task=e2e` (800 rollouts against the reference server), optionally beside another
checkout of gym (an earlier release) run in turn with the same data.

Measures user + sys of the whole process tree (os.wait4 via resource's children usage), several runs
interleaved, and prints the median and minimum of each. e2e composes the config once (Hydra's) and
derives each step's config from it; composing per step cost about 0.1 CPU-s a step.

Where PYTHONDONTWRITEBYTECODE is set (as on the development machine), an editable checkout compiles every
gym module it imports from source on every run, so a larger gym costs more CPU at start-up than it would
where byte code is cached (an install, or any run that may write __pycache__). `--compiled` byte-compiles
both checkouts' gym/ first, so the figures compare the work itself.

    .venv/bin/python perf/e2e_cpu.py [--runs 5] [--other /path/to/other/checkout] [--compiled]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["task=e2e", "benchmark=gsm8k", "model=mock", "limit=200", "num_repeats=4", "progress=false",
        "data.offline=true", "profile.report=false"]


def cpu_of(python: str, checkout: Path, run_dir: Path, env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([python, "-m", "gym", *ARGS, f"hydra.run.dir={run_dir}"], cwd=checkout, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--other", type=Path, help="another gym checkout with its own .venv")
    parser.add_argument("--compiled", action="store_true", help="byte-compile both checkouts' gym/ first")
    args = parser.parse_args()
    subjects = {"this checkout": (sys.executable, ROOT)}
    if args.other:
        subjects["other checkout"] = (str(args.other / ".venv" / "bin" / "python"), args.other)
    if args.compiled:
        for python, checkout in subjects.values():
            subprocess.run([python, "-m", "compileall", "-q", "gym"], cwd=checkout, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GYM_DATA_DIR": f"{tmp}/data"}
        for n, (python, checkout) in enumerate(subjects.values()):  # prepare (bundled GSM8K), warm up once each
            cpu_of(python, checkout, Path(tmp) / f"warm-{n}", env)
        seconds: dict[str, list[float]] = {name: [] for name in subjects}
        for run in range(args.runs):
            for name, (python, checkout) in subjects.items():
                seconds[name].append(cpu_of(python, checkout, Path(tmp) / f"{run}-{len(name)}", env))
    for name, values in seconds.items():
        print(f"{name:15s} e2e CPU: median {statistics.median(values):.2f} s, best {min(values):.2f} s "
              f"({args.runs} runs, 800 rollouts{', byte-compiled' if args.compiled else ''}): "
              + " ".join(f"{value:.2f}" for value in values))
    if args.other:
        this, other = seconds["this checkout"], seconds["other checkout"]
        print(f"ratio: median {statistics.median(this) / statistics.median(other):.3f}x, "
              f"best {min(this) / min(other):.3f}x, run by run "
              + " ".join(f"{a / b:.2f}" for a, b in zip(this, other)))


if __name__ == "__main__":
    main()
