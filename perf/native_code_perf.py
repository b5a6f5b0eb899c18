"""CPU cost of judging one answer of IOI (C++, compiled and run with the official grader) and BigCodeBench
(unittest suite in one process), on the test fixtures.

    .venv/bin/python perf/native_code_perf.py [repeats=3]

Prepares both benchmarks from tests/fixtures/upstream into a temporary folder, then judges the official
model solution of IOI's sphinx subtask 01-N2 (4 tests, Communication task) and of message 01-len64 (7 tests,
two solution processes a test), and BigCodeBench/19's reference solution, `repeats` times each, and prints the
CPU seconds (this process and every process it started, from getrusage) and wall seconds per verification.
The first IOI verification of a problem also compiles the grader's manager; it is reported apart.
"""

from __future__ import annotations

import importlib.util
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from gym.data.prepare_context import PrepareContext
from gym.verifiers import make_verifier

ROOT = Path(__file__).resolve().parent.parent
MIRROR = str(ROOT / "tests" / "fixtures" / "upstream")


def prepared(name: str, folder: Path, **args) -> list[dict]:
    spec = importlib.util.spec_from_file_location(f"perf_{name}", ROOT / "benchmarks" / name / "prepare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ctx = PrepareContext(name=name, output_path=folder / name / f"{name}.jsonl", mirror=MIRROR, progress=False,
                         prepare_args=args)
    return [json.loads(line) for line in Path(module.prepare(ctx, **args)).read_text().splitlines()]


def cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(label: str, verify, repeats: int) -> None:
    figures = []
    for _ in range(repeats):
        started_cpu, started = cpu(), time.perf_counter()
        verdict = verify()
        figures.append((cpu() - started_cpu, time.perf_counter() - started, verdict.reward))
    first, rest = figures[0], figures[1:] or figures
    print(f"{label}: first {first[0]:.2f} s CPU ({first[1]:.1f} s wall); then {sum(f[0] for f in rest) / len(rest):.2f} s CPU"
          f" ({sum(f[1] for f in rest) / len(rest):.1f} s wall) per verification; rewards {[f[2] for f in figures]}")


def main(repeats: int = 3) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ioi = {row["problem_id"]: row for row in prepared("ioi", root)}
        bcb = {row["task_id"]: row for row in prepared("bigcodebench", root)}
        solutions = ROOT / "tests" / "fixtures" / "ioi"
        with make_verifier("ioi", {"tests_root": str(root / "ioi" / "tests")}) as judge:
            for problem in ("sphinx", "message"):
                text = "```cpp\n" + (solutions / f"{problem}-model_solution.cpp").read_text() + "```"
                measure(f"ioi {problem} {ioi[problem]['subtask']}", lambda: judge.verify(ioi[problem], text), repeats)
        with make_verifier("code", {"toolchain": ["/usr"]}) as judge:
            row = bcb["BigCodeBench/19"]
            text = "```python\n" + row["code_prompt"] + row["canonical_solution"] + "\n```"
            measure("bigcodebench BigCodeBench/19", lambda: judge.verify(row, text), repeats)


if __name__ == "__main__":
    main(*(int(arg.split("=", 1)[1]) for arg in sys.argv[1:]))
