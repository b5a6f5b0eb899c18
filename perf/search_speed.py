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
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                times[name].append(timed(cmd, tmp))
    base = statistics.median(times["hydra no-op"])
    print(f"{'command':<20} {'median s':>9} {'min s':>7} {'vs no-op':>9}")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<20} {med:>9.3f} {min(values):>7.3f} {med - base:>+9.3f}")
    overhead = statistics.median(times["gym search math"]) - base
    print(f"\nsearch overhead over a no-op Hydra run: {overhead:+.3f} s (target <= +0.300 s): "
          f"{'OK' if overhead <= 0.3 else 'MISSED'}")


if __name__ == "__main__":
    main()
