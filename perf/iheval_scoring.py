"""Cost of scoring IHEval: the iheval verifier per task (single thread, as a share of one core), and the
task-macro aggregation (gym.verifiers.iheval.metrics) over a run the size of the real benchmark (18,998 rows).

    .venv/bin/python perf/iheval_scoring.py [--rows 18998] [--data data/iheval/iheval.jsonl]

Rows are the fixture archive's (tests/fixtures/upstream, every task and setting) with the replies recorded
in tests/fixtures/iheval_parity.json, repeated until --rows; with --data, the rows of a prepared file (the
real benchmark), each answered with its expected_answer. Prints rows per second per task and the seconds
the aggregation takes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gym.verifiers.iheval.metrics import iheval  # noqa: E402
from gym.verifiers import make_verifier  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=18998)
    parser.add_argument("--data", type=Path, default=None, help="a prepared iheval.jsonl (replies: expected_answer)")
    args = parser.parse_args()
    if args.data is not None:
        rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines()]
        report([(row, row["expected_answer"]) for row in rows], len(rows))
        return
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "gym", "task=prepare", "benchmark=iheval",
                        f"data.mirror={ROOT / 'tests/fixtures/upstream'}", f"data.root={tmp}", f"hydra.run.dir={tmp}/r"],
                       check=True, capture_output=True, cwd=ROOT)
        rows = [json.loads(line) for line in (Path(tmp) / "iheval" / "iheval.jsonl").read_text().splitlines()]
    parity = json.loads((ROOT / "tests/fixtures/iheval_parity.json").read_text())
    replies = {(r["task"], r["setting"], r["id"]): r["prediction"] for r in parity["run"]["replies"]}
    cases = [(row, replies[(row["metadata"]["task"], row["metadata"]["setting"], row["metadata"]["id"])]) for row in rows]
    report(cases, args.rows)


def report(cases: list[tuple[dict, str]], size: int) -> None:
    verifier = make_verifier("iheval")
    by_task: dict[str, list] = defaultdict(list)
    for row, reply in cases:
        by_task[row["metadata"]["task"]].append((row, reply))
    verifier.verify(*cases[0])  # imports and first-use set-up out of the timing
    details, total_time = [], 0.0
    for task, members in sorted(by_task.items()):
        repeated = (members * (size // len(cases) + 1))[: max(1, size * len(members) // len(cases))]
        started = time.perf_counter()
        for row, reply in repeated:
            details.append({"status": "ok", "rollout_index": 0, "verifier": verifier.verify(row, reply).details})
        elapsed = time.perf_counter() - started
        total_time += elapsed
        print(f"{task:24s} {len(repeated) / elapsed:10.0f} rows/s")
    print(f"all {len(details)} rows scored in {total_time:.2f}s ({len(details) / total_time:.0f} rows/s, one thread)")
    started = time.perf_counter()
    iheval(details)
    print(f"task-macro aggregation of {len(details)} rows: {time.perf_counter() - started:.2f}s")


if __name__ == "__main__":
    main()
