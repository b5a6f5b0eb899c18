"""Wall time and CPU of the README's whole-catalog dry run, exactly as typed, from a checkout (the catalog's
smoke test, tests/benchmarks/test_catalog_smoke.py, runs the same line):

    python -m gym -m task=e2e 'benchmark=glob(*,exclude=[terminal_bench_2,swebench_*])' model=mock judge=mock limit=3 \\
        data.mirror=tests/fixtures/upstream data.root=outputs/dry-run-data

CPU is user + sys of the process tree (resource's children usage); it is what a busy machine cannot take
away, so it is the figure to compare. Prints the jobs' count and the per-job mean too.

    .venv/bin/python perf/catalog_dry_run.py
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["-m", "task=e2e", "benchmark=glob(*,exclude=[terminal_bench_2,swebench_*])", "model=mock", "judge=mock", "limit=3",
        "data.mirror=tests/fixtures/upstream", "data.root=outputs/dry-run-data"]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "tests").symlink_to(ROOT / "tests")
        env = {**os.environ, "GYM_DATA_DIR": str(home / "no-data")}
        before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "gym", *ARGS], cwd=home, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        (summary,) = (home / "outputs" / "e2e" / "multirun").glob("*/summary.json")
        jobs = json.loads(summary.read_text())["jobs"]
    statuses = {job["status"] for job in jobs}
    print(f"exit {result.returncode}; {len(jobs)} jobs ({', '.join(sorted(statuses))}); wall {wall:.0f} s; "
          f"CPU {cpu:.0f} s ({cpu / len(jobs):.2f} s a job); load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
