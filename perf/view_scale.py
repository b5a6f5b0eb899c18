"""Scale check for task=view: a run of 1M rollouts (the synthetic rows of perf/aggregate_scale.py).

Starts `python -m gym task=view rollouts=<file>` as users do and times: the one-time index (start to the
printed URL: offsets, filter columns, metrics and profile), the first page (runs), the run page, the tasks
table (first page, a filter, a full-text search), and rollout pages (median and worst of many, at random
places in the file); then the server's resident memory now and at its peak (/proc/<pid>/status).
Targets: first page <= 1 s and a rollout page <= 200 ms after the index, server under 500 MB.

    .venv/bin/python perf/view_scale.py [--rows 1000000] [--workdir DIR] [--pages 50]

With --workdir, a file generated before (rollouts_<rows>.jsonl) is reused.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]


def generator():
    spec = importlib.util.spec_from_file_location("aggregate_scale", ROOT / "perf" / "aggregate_scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def memory_mb(pid: int) -> tuple[float, float]:
    """(resident now, peak resident) in MB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def timed(url: str) -> tuple[float, requests.Response]:
    start = time.perf_counter()
    response = requests.get(url, timeout=600)
    elapsed = time.perf_counter() - start
    response.raise_for_status()
    return elapsed, response


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--pages", type=int, default=50, help="rollout pages to time")
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="gym_view_perf_"))
    work.mkdir(parents=True, exist_ok=True)
    path = work / f"rollouts_{args.rows}.jsonl"
    if not path.is_file():
        start = time.perf_counter()
        generator().generate(path, args.rows)
        print(f"generated {args.rows:,} rows ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - start:.0f} s")
    start = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "gym", "task=view", f"rollouts={path}",
                               f"hydra.run.dir={work / 'view_run'}"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()  # type: ignore[union-attr]
        index_s = time.perf_counter() - start
        url = re.search(r"(http://\S+)/index\.html", line).group(1)  # type: ignore[union-attr]
        figures = {"index (start to URL)": index_s}
        figures["first page (runs)"], _ = timed(f"{url}/index.html")
        figures["runs page again"], _ = timed(f"{url}/index.html")
        figures["run page"], _ = timed(f"{url}/run/0/index.html")
        figures["tasks page"], _ = timed(f"{url}/run/0/tasks.html")
        figures["tasks table, first 50"], _ = timed(f"{url}/api/run/0/tasks")
        figures["tasks table, status=infra_error"], _ = timed(f"{url}/api/run/0/tasks?status=infra_error")
        figures["tasks table, sorted by reward"], _ = timed(f"{url}/api/run/0/tasks?sort=reward&desc=1")
        tasks = max(1, args.rows // 100)
        figures["tasks table, full-text search"], found = timed(f"{url}/api/run/0/tasks?q=Problem%20{tasks // 2}:")
        assert found.json()["total"] == 100, found.json()["total"]  # the 100 rollouts of that task
        rng = random.Random(0)
        pages = []
        for _ in range(args.pages):
            elapsed, page = timed(f"{url}/run/0/rollout/synthetic/{rng.randrange(tasks)}_{rng.randrange(100)}.html")
            assert 'id="reward"' in page.text
            pages.append(elapsed)
        figures[f"rollout page, median of {args.pages}"] = statistics.median(pages)
        figures[f"rollout page, worst of {args.pages}"] = max(pages)
        now, peak = memory_mb(server.pid)
        print(f"task=view on {args.rows:,} rollouts ({path.stat().st_size / 1e6:.0f} MB file)")
        for name, seconds in figures.items():
            print(f"  {name:<40} {seconds * 1000:>9.1f} ms")
        print(f"  {'server memory now / peak':<40} {now:>6.0f} MB / {peak:.0f} MB")
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)


if __name__ == "__main__":
    main()
