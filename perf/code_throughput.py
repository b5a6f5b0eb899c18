"""Throughput of the `code` verifier on small programs, per sandbox mechanism, and a leak check over many runs.

    .venv/bin/python perf/code_throughput.py [runs=10000] [verifications=200] [mechanism=all]

For each mechanism that works here (bwrap, namespaces) it prints the CPU time one verification costs
(this process and every process it started, from getrusage) and what that means on 2 cores, plus the
wall-clock rate from as many threads as CPUs (which on a shared machine also measures the neighbours),
for the row shapes: HumanEval-style test code (judged in its own process), EvalPlus base+plus (52
calls), call-based, stdin/stdout (with LiveCodeBench's import preamble). Then, after `runs` trivial
programs in sandboxes of 10 runs: our child processes, our zombies, open file descriptors and leftover work
dirs, compared with before (all should be unchanged).
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gym.sandbox.host import MECHANISMS, Run, Sandbox, probe_isolation
from gym.verifiers import make_verifier
from gym.verifiers.code.reference import reference_program

TEST_CODE = {"question": "add", "entry_point": "add", "prompt": "def add(a, b):\n    \"\"\"a + b\"\"\"\n",
             "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n"}
EVALPLUS = {"question": "add", "entry_point": "add", "prompt": "def add(a, b):\n    \"\"\"a + b\"\"\"\n",
            "canonical_solution": "    return a + b\n", "base_input": [[1, 2], [3, 4]],
            "plus_input": [[i, -i] for i in range(50)], "atol": 0, "metadata": {"task_id": "HumanEval/perf"}}
CALL = {"question": "twice", "unit_tests": {"inputs": ["[1, 2]"], "outputs": ["[2, 4]"], "fn_name": "twice"}}
STDIO = {"question": "sum", "unit_tests": {"inputs": ["1 2\n"], "outputs": ["3\n"], "fn_name": None}}


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def machine_state() -> dict:
    children = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as handle:
            children.update(handle.read().split())
    zombies = 0  # ours: zombies elsewhere on a shared machine are not our doing
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                state, parent = handle.read().rsplit(")", 1)[1].split()[:2]
            zombies += state == "Z" and int(parent) == os.getpid()
        except OSError:
            pass
    workdirs = len(list(Path(tempfile.gettempdir()).glob("gym-sandbox-*")))
    return {"children": len(children), "zombies": zombies, "open_fds": len(os.listdir("/proc/self/fd")),
            "sandbox_dirs": workdirs}


def throughput(mechanism: str, verifications: int, workers: int) -> None:
    verifier = make_verifier("code", {"sandbox": mechanism})
    kinds = (("test code (HumanEval)", TEST_CODE, "def add(a, b):\n    return a + b\n"),
             ("evalplus base+plus (52 calls)", EVALPLUS, reference_program(EVALPLUS)),
             ("call", CALL, "def twice(xs):\n    return [2 * x for x in xs]\n"),
             ("stdin/stdout (+preamble)", STDIO, "a, b = map(int, input().split())\nprint(a + b)\n"))
    for name, row, program in kinds:
        answer = f"```python\n{program}```"
        verifier.verify(row, answer)  # warm: EvalPlus reference outputs are computed once per task
        serial = max(10, verifications // 4)
        spent = cpu_seconds()
        for _ in range(serial):
            assert verifier.verify(row, answer).reward == 1.0, name
        per = (cpu_seconds() - spent) / serial
        started = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            rewards = list(pool.map(lambda _: verifier.verify(row, answer).reward, range(verifications)))
        wall = verifications / (time.perf_counter() - started)
        assert rewards == [1.0] * verifications, name
        print(f"  {mechanism:10s} {name:30s} {per * 1000:5.1f} ms CPU each -> {2 / per:5.1f} /s on 2 cores; "
              f"wall {wall:5.1f} /s on {workers} threads (load {os.getloadavg()[0]:.1f})")
    verifier.close()


def leak_check(mechanism: str, runs: int, workers: int) -> None:
    sandbox = Sandbox(memory_mb=512, mechanism=mechanism)
    before = machine_state()
    per_sandbox = 10
    started = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        outcomes = list(pool.map(lambda i: sandbox.run(f"print({i} + int(input()))", [Run("1\n", 5)] * per_sandbox),
                                 range(runs // per_sandbox)))
    elapsed = time.perf_counter() - started
    done = sum(len(o.results) for o in outcomes)
    assert done == runs // per_sandbox * per_sandbox and all(r.status == "ok" for o in outcomes for r in o.results)
    after = machine_state()
    leaked = {key: after[key] - before[key] for key in after if after[key] > before[key]}
    print(f"  {mechanism}: {done} trivial runs in {len(outcomes)} sandboxes: {elapsed:.1f} s ({done / elapsed:.0f} "
          f"runs/s); before {before}, after {after}: {'no leaks' if not leaked else f'LEAKED {leaked}'}")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    verifications = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    wanted = sys.argv[3] if len(sys.argv) > 3 else "all"
    workers = os.cpu_count() or 1
    mechanisms = [m for m in MECHANISMS if wanted in ("all", m) and probe_isolation(m)[0]]
    print(f"{workers} CPUs; mechanisms here: {', '.join(mechanisms) or 'none'}")
    print("verification cost")
    for mechanism in mechanisms:
        throughput(mechanism, verifications, workers)
    print("leak check")
    for mechanism in mechanisms:
        leak_check(mechanism, runs, workers)


if __name__ == "__main__":
    main()
