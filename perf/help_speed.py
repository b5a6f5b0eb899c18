"""How long `python -m gym --help` (and plain `python -m gym`) take next to a bare `python -c pass`.

Target: help <= bare interpreter start + 0.3 s. Plain help is printed without importing Hydra or
composing the config. Runs each command N times, interleaved, and prints the median and minimum.

    .venv/bin/python perf/help_speed.py [--runs 15]
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from search_speed import compare  # perf/ is on sys.path when a script there runs


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
    with tempfile.TemporaryDirectory() as tmp:
        compare(commands, args.runs, tmp, "python -c pass", "gym --help", "--help over a bare interpreter")

if __name__ == "__main__":
    main()
