"""Replicas: one of four reference servers killed mid-run. The run must finish with no infra_error, the
dead replica's work going to the other three; compared with the same run on four healthy replicas.

    .venv/bin/python perf/replica_failover.py [--tasks 500] [--repeats 4] [--latency 0.02]

Each server is `python -m gym.mock` in its own process (its CPU is not gym's); the victim is killed
(SIGKILL) once a quarter of the rollouts are written.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def start_servers(data: Path, count: int, latency: float) -> list[tuple[subprocess.Popen, str]]:
    servers = []
    for _ in range(count):
        process = subprocess.Popen([sys.executable, "-m", "gym.mock", "--data", str(data), "--port", "0",
                                    "--latency", str(latency)], stdout=subprocess.PIPE, text=True)
        servers.append((process, process.stdout.readline().strip()))
    return servers


def run(data: Path, urls: list[str], run_dir: Path, repeats: int) -> tuple[dict, float]:
    from gym.core.config import compose
    from gym.tasks import collect

    cfg = compose(["task=collect", "benchmark=gsm8k", "model=vllm", "model.name=gym-mock", "progress=false",
                   f"model.base_url=[{','.join(urls)}]", "model.n_per_request=false", f"num_repeats={repeats}",
                   "concurrency=32", f"+run_dir={run_dir}"])
    started = time.perf_counter()
    summary = collect.run(cfg)
    return summary, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.02)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gym-replicas-"))
    os.environ["GYM_DATA_DIR"] = str(root / "data")
    from tests.model_time_data import write_tasks

    data = write_tasks(root / "data", args.tasks)
    total = args.tasks * args.repeats
    for kill in (False, True):
        servers = start_servers(data, 4, args.latency)
        urls = [url for _, url in servers]
        victim, victim_url = servers[1]

        def kill_victim(rollouts: Path = root / f"run-{kill}" / "rollouts.jsonl") -> None:
            while not rollouts.is_file() or rollouts.read_bytes().count(b"\n") < total // 4:
                time.sleep(0.02)
            victim.kill()

        killer = threading.Thread(target=kill_victim, daemon=True)
        if kill:
            killer.start()
        try:
            summary, wall = run(data, urls, root / f"run-{kill}", args.repeats)
        finally:
            for process, _ in servers:
                process.kill()
                process.wait()
        label = "one of 4 killed mid-run" if kill else "4 healthy replicas    "
        per = ", ".join(f"{r['requests']}/{r['errors']}" + (f" (set aside {r['set_aside']}x)" if r["set_aside"] else "")
                        for r in summary["replicas"])
        print(f"{label}: {summary['ran']} rollouts, counts {json.dumps(summary['counts'])}, {wall:.2f}s wall; "
              f"requests/errors per replica: {per}")


if __name__ == "__main__":
    main()
