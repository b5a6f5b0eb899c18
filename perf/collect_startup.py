"""CPU seconds of collect's start-up: a process that imports the CLI and task=collect, nothing run.

Beside another checkout with --other (imported from that tree by this interpreter: `python -c` puts the
working directory first on sys.path), run in turn; prints the median and best of each and the modules of
note each one loads (numpy, pandas, matplotlib, the episode layer).

    .venv/bin/python perf/collect_startup.py [--runs 10] [--other /path/to/other/checkout]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = ("import sys, gym.cli.main, gym.tasks.collect; "
        "print(' '.join(m for m in ('numpy', 'pandas', 'matplotlib', 'gym.episodes') if m in sys.modules))")


def cpu_of(tree: Path) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    loaded = subprocess.run([sys.executable, "-c", CODE], cwd=tree, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), loaded.strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--other", type=Path, help="another gym checkout")
    args = parser.parse_args()
    trees = {"this checkout": ROOT, **({"other checkout": args.other} if args.other else {})}
    seconds: dict[str, list[float]] = {name: [] for name in trees}
    loaded: dict[str, str] = {}
    for _ in range(args.runs):
        for name, tree in trees.items():
            cpu, loaded[name] = cpu_of(tree)
            seconds[name].append(cpu)
    for name, values in seconds.items():
        print(f"{name:15s} collect start-up CPU: median {statistics.median(values):.3f} s, best {min(values):.3f} s; "
              f"loads: {loaded[name] or 'none of numpy, pandas, matplotlib, gym.episodes'}")


if __name__ == "__main__":
    main()
