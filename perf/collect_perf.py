"""collect's throughput, latency-bound wall time, CPU per rollout and memory, against the reference server.

The reference server runs in its own process (so its CPU is not charged to gym); gym's collect runs
as the real CLI in a subprocess whose process tree (math-verify workers included) is measured.

    .venv/bin/python perf/collect_perf.py            # all four measurements
    .venv/bin/python perf/collect_perf.py --quick    # smaller runs

Targets: overhead run >= 0.7x the bare requests loop (perf/bare_loop.py) at the same concurrency;
1,000 rollouts at 1 s latency and concurrency 256 within 1.2x the ideal 4 s; <= 5 ms CPU per rollout
including math verification; peak RSS of a 10,000-rollout collect < 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bare_loop import served, write_rows  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def write_fraction_rows(path: Path, count: int) -> None:
    """Rows whose answers are LaTeX fractions: no integer shortcut, math-verify decides each one."""
    with path.open("w", encoding="utf-8") as handle:
        for number in range(count):
            a, b = 1 + number % 97, 101 + number
            question = f"Problem {number}: what is {a} divided by {b}, as a reduced fraction?"
            handle.write(json.dumps({"question": question, "expected_answer": f"\\frac{{{a}}}{{{b}}}"}) + "\n")


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
        stack += children.get(current, [])
    return total / 1024


def run_collect(data: Path, base_url: str, tasks: int, concurrency: int, out_dir: Path) -> dict:
    args = [sys.executable, "-m", "gym", "task=collect", "benchmark=gsm8k", f"benchmark.dataset.path={data}",
            "model=vllm", f"model.base_url={base_url}", "model.name=gym-mock", f"limit={tasks}", "num_repeats=1",
            f"concurrency={concurrency}", "progress=false", f"hydra.run.dir={out_dir}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0.0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], tree_rss_mb(proc.pid))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - start
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"collect failed:\n{stderr[-2000:]}")
    run = json.loads((out_dir / "run.json").read_text())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "loop_s": run["seconds"], "rollouts_per_s": run["rollouts_per_s"], "cpu_s": cpu,
            "peak_tree_rss_mb": peak[0], "counts": run["counts"]}


def bare_loop(requests_n: int, concurrency: int, latency: float) -> float:
    out = subprocess.run([sys.executable, str(ROOT / "perf" / "bare_loop.py"), "--requests", str(requests_n),
                          "--concurrency", str(concurrency), "--latency", str(latency)],
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"rollouts/s=([\d.]+)", out).group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_overhead = 2000 if args.quick else 4000
    n_memory = 3000 if args.quick else 10000
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = tmp / "math.jsonl"
        write_rows(data, max(n_overhead, n_memory))

        # 1. harness overhead at zero latency, same concurrency as the bare loop
        for concurrency in (64,):
            with served(data, "--latency", "0.0") as url:
                gym = run_collect(data, url, n_overhead, concurrency, tmp / f"o{concurrency}")
            bare = bare_loop(n_overhead, concurrency, 0.0)
            ratio = gym["rollouts_per_s"] / bare
            results.append(f"overhead    c={concurrency}: gym {gym['rollouts_per_s']:.0f}/s vs bare requests loop "
                           f"{bare:.0f}/s = {ratio:.2f}x (target >= 0.7x)")
            results.append(f"cpu         {1000 * gym['cpu_s'] / n_overhead:.2f} ms CPU per rollout incl. start-up and "
                           f"math verification ({gym['cpu_s']:.2f} s for {n_overhead}; target <= 5 ms)")

        # 1b. the same with LaTeX fraction answers, so every check goes through the math-verify workers
        fractions = tmp / "fractions.jsonl"
        write_fraction_rows(fractions, n_overhead)
        with served(fractions, "--latency", "0.0") as url:
            frac = run_collect(fractions, url, n_overhead, 64, tmp / "frac")
        results.append(f"math-verify {frac['rollouts_per_s']:.0f} rollouts/s with LaTeX fraction answers (every check "
                       f"in the math-verify workers); {1000 * frac['cpu_s'] / n_overhead:.2f} ms CPU per rollout incl. "
                       f"start-up; peak RSS {frac['peak_tree_rss_mb']:.0f} MB")

        # 2. latency-bound: 1,000 rollouts, 1 s each, concurrency 256 -> ideal 4 s
        with served(data, "--latency", "1.0") as url:
            lat = run_collect(data, url, 1000, 256, tmp / "lat")
        results.append(f"latency     1000 x 1 s at c=256: collect loop {lat['loop_s']:.2f} s = "
                       f"{lat['loop_s'] / 4:.2f}x ideal 4 s (target <= 1.2x); whole command {lat['wall']:.2f} s")

        # 3. memory of a large collect
        with served(data, "--latency", "0.0") as url:
            mem = run_collect(data, url, n_memory, 64, tmp / "mem")
        results.append(f"memory      {n_memory} rollouts: peak RSS of gym's process tree {mem['peak_tree_rss_mb']:.0f} MB "
                       f"(target < 300 MB); {mem['rollouts_per_s']:.0f} rollouts/s; "
                       f"{1000 * mem['cpu_s'] / n_memory:.2f} ms CPU per rollout")
    print("\n".join(results))


if __name__ == "__main__":
    main()
