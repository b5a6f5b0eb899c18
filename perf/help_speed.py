"""How long `python -m gym --help` (and plain `python -m gym`) take next to a bare `python -c pass`.

Target: help <= bare interpreter start + 0.3 s. Plain help is printed without importing Hydra or
composing the config. Runs each command N times, interleaved, and prints the median and minimum.

    .venv/bin/python perf/help_speed.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "gym --help": [sys.executable, "-m", "gym", "--help"],
        "gym (no arguments)": [sys.executable, "-m", "gym"],
        "gym --help task=e2e": [sys.executable, "-m", "gym", "--help", "task=e2e"],  # Hydra's help, composed
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for name, cmd in commands.items():
                times[name].append(timed(cmd, tmp))
    base = statistics.median(times["python -c pass"])
    print(f"{'command':<22} {'median s':>9} {'min s':>7} {'vs bare':>9}")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<22} {med:>9.3f} {min(values):>7.3f} {med - base:>+9.3f}")
    overhead = statistics.median(times["gym --help"]) - base
    print(f"\n--help over a bare interpreter: {overhead:+.3f} s (target <= +0.300 s): "
          f"{'OK' if overhead <= 0.3 else 'MISSED'}")


if __name__ == "__main__":
    main()
