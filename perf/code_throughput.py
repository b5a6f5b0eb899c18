"""Throughput of the `code` verifier on trivial programs, and a leak check over many sandboxed runs.

    .venv/bin/python perf/code_throughput.py [runs=10000] [verifications=400]

Prints: sandbox start-up cost, runs per second inside one sandbox, verifications per second for the
three kinds of tests (stdin/stdout, function calls, EvalPlus base+plus) from as many threads as CPUs,
and after `runs` trivial programs: our child processes, zombies on the machine, open file descriptors
and leftover sandbox work dirs compared with before (all should be unchanged).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gym.sandbox import Run, Sandbox, probe_isolation
from gym.verifiers import make_verifier
from gym.verifiers.code import reference_program

STDIO = {"question": "sum", "unit_tests": {"inputs": ["1 2\n"], "outputs": ["3\n"], "fn_name": None}}
CALL = {"question": "twice", "unit_tests": {"inputs": ["[1, 2]"], "outputs": ["[2, 4]"], "fn_name": "twice"}}
EVALPLUS = {"question": "add", "entry_point": "add", "prompt": "def add(a, b):\n    \"\"\"a + b\"\"\"\n",
            "canonical_solution": "    return a + b\n", "base_input": [[1, 2], [3, 4]],
            "plus_input": [[i, -i] for i in range(50)], "atol": 0, "metadata": {"task_id": "HumanEval/perf"}}


def machine_state() -> dict:
    children = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as handle:
            children.update(handle.read().split())
    zombies = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                zombies += handle.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            pass
    workdirs = len(list(Path(tempfile.gettempdir()).glob("gym-sandbox-*")))
    return {"children": len(children), "zombies": zombies, "open_fds": len(os.listdir("/proc/self/fd")),
            "sandbox_dirs": workdirs}


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    verifications = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    workers = os.cpu_count() or 1
    isolated, how = probe_isolation()
    print(f"isolation: {isolated} ({how}); {workers} CPUs")
    sandbox = Sandbox(allow_unsandboxed=True, memory_mb=512)

    started = time.perf_counter()
    for _ in range(20):
        sandbox.run("pass", [Run("", 5)])
    print(f"sandbox start + 1 run: {(time.perf_counter() - started) / 20 * 1000:.1f} ms")
    started = time.perf_counter()
    outcome = sandbox.run("print(input())", [Run("x\n", 5)] * 500)
    assert all(r.status == "ok" for r in outcome.results)
    print(f"runs inside one sandbox: {500 / (time.perf_counter() - started):.0f} /s")

    verifier = make_verifier("code", {"allow_unsandboxed": True})
    kinds = (("stdin/stdout", STDIO, "a, b = map(int, input().split())\nprint(a + b)\n"),
             ("call", CALL, "def twice(xs):\n    return [2 * x for x in xs]\n"),
             ("evalplus (52 inputs)", EVALPLUS, reference_program(EVALPLUS)))
    for name, row, program in kinds:
        answer = f"```python\n{program}```"
        verifier.verify(row, answer)  # warm: EvalPlus reference outputs are computed once per task
        started = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            rewards = list(pool.map(lambda _: verifier.verify(row, answer).reward, range(verifications)))
        elapsed = time.perf_counter() - started
        assert rewards == [1.0] * verifications, name
        print(f"verify {name}: {verifications / elapsed:.1f} /s ({elapsed / verifications * 1000 * workers:.1f} ms "
              f"each on {workers} threads)")

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
    print(f"{done} trivial runs in {len(outcomes)} sandboxes: {elapsed:.1f} s ({done / elapsed:.0f} runs/s)")
    print(f"before: {before}\nafter:  {after}")
    leaked = {key: after[key] - before[key] for key in after if after[key] > before[key]}
    print("no leaks" if not leaked else f"LEAKED: {leaked}")


if __name__ == "__main__":
    main()
