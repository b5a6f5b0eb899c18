"""What a resumed collect reads before its first request: every key of the rollouts file with its last
status and reward. gym's compact index (gym/rollouts/done_keys.py) against a dict of every row (what
resume read before), each in a fresh process: seconds and the process's peak memory.

    .venv/bin/python perf/resume_keys.py --rows 4000000

The file is written here: rows shaped like collect's (key, status, reward, a short answer and response).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

READERS = {
    "index": "from gym.rollouts.done_keys import read_done; done = read_done(path)",
    "dict of every row": ("from gym.core.io import iter_jsonl\n"
                          "done = {row['key']: (row.get('status', ''), row.get('reward')) "
                          "for _, row in iter_jsonl(path, tolerate_torn_tail=True)}"),
}
PROBE = """
import resource, sys, time
from pathlib import Path
path = Path(sys.argv[1])
started = time.perf_counter()
{reader}
print(len(done), round(time.perf_counter() - started, 2), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def write_rows(path: Path, rows: int) -> None:
    rng = random.Random(0)
    with path.open("w") as handle:
        for i in range(rows):
            ok = rng.random() < 0.97
            handle.write(json.dumps({"schema_version": 3, "benchmark": "train", "task_index": i // 16,
                                     "rollout_index": i % 16, "key": "%032x" % rng.getrandbits(128),
                                     "status": "ok" if ok else "infra_error",
                                     "reward": float(rng.random() < 0.5) if ok else None,
                                     "extracted_answer": str(i % 997), "response": f"The answer is {i % 997}."})
                         + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=4_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rollouts.jsonl"
        write_rows(path, args.rows)
        print(f"{args.rows:,} rows, {path.stat().st_size / 1e6:.0f} MB")
        for name, reader in READERS.items():
            out = subprocess.run([sys.executable, "-c", PROBE.format(reader=reader), str(path)], check=True,
                                 capture_output=True, text=True).stdout.split()
            print(f"{name:>18}: {int(out[0]):,} keys in {out[1]} s, peak {out[2]} MB")


if __name__ == "__main__":
    main()
