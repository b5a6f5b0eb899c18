"""How long `python -m gym task=search query=math` takes next to a no-op Hydra app.

Target: search <= no-op Hydra run + 0.3 s. Runs each command N times, interleaved, and prints the
median and minimum wall time.

    .venv/bin/python perf/search_speed.py [--runs 9]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NOOP_APP = '''
import hydra

@hydra.main(version_base="1.3", config_path=None, config_name=None)
def main(cfg):
    pass

if __name__ == "__main__":
    main()
'''


def timed(cmd: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def compare(commands: dict[str, list[str]], runs: int, cwd: str, base: str, measured: str, what: str) -> None:
    """Run every command `runs` times, interleaved; print median/min of each against `base`, then the verdict
    for `measured` against the +0.3 s target."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            times[name].append(timed(cmd, cwd))
    base_time = statistics.median(times[base])
    width = max(len(name) for name in commands) + 2
    print(f"{'command':<{width}} {'median s':>9} {'min s':>7} {'vs base':>9}")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<{width}} {med:>9.3f} {min(values):>7.3f} {med - base_time:>+9.3f}")
    overhead = statistics.median(times[measured]) - base_time
    print(f"\n{what}: {overhead:+.3f} s (target <= +0.300 s): {'OK' if overhead <= 0.3 else 'MISSED'}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "noop.py"
        app.write_text(NOOP_APP)
        commands = {
            "hydra no-op": [sys.executable, str(app), f"hydra.run.dir={tmp}/noop"],
            "gym search math": [sys.executable, "-m", "gym", "task=search", "query=math", f"hydra.run.dir={tmp}/s"],
            "gym search (json)": [sys.executable, "-m", "gym", "task=search", "format=json", f"hydra.run.dir={tmp}/j"],
            "gym --help": [sys.executable, "-m", "gym", "--help"],
        }
        compare(commands, args.runs, tmp, "hydra no-op", "gym search math", "search overhead over a no-op Hydra run")


if __name__ == "__main__":
    main()
