"""A SLURM job's overhead over the same run on this machine: seconds from the command to the model's first request.

    .venv/bin/python perf/slurm_overhead.py [--repeats 5]

Needs root and Debian's slurm-wlm and munge (apt-get install -y slurm-wlm munge): it starts the test suite's
single-node cluster (tests/slurm_cluster.py: the scheduler looks at pending jobs every second), a reference
server (python -m gym.mock) behind a loopback recorder that notes when the first chat request arrives, and
runs the same one-rollout collect, alternately, as

    python -m gym task=collect benchmark=gsm8k model=vllm model.base_url=<recorder> limit=1 num_repeats=1
    python -m gym -m <the same> hydra/launcher=slurm hydra.launcher.cpus_per_task=1 hydra.launcher.mem_gb=1

Reported: median and fastest time to the first request of each, and the difference (the SLURM job's
overhead: sbatch, scheduling, srun, submitit unpickling the job, on top of gym's own start).
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.slurm_cluster import ClusterUnavailable, SlurmCluster  # noqa: E402
from tests.tasks.test_collect import gsm8k_rows  # noqa: E402


class Recorder:
    """A loopback proxy in front of the reference server; `first_chat` is when the first chat request came."""

    def __init__(self, upstream: str):
        self.first_chat: float | None = None
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _forward(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if method == "POST" else None
                if method == "POST" and recorder.first_chat is None and "chat/completions" in self.path:
                    recorder.first_chat = time.monotonic()
                reply = requests.request(method, upstream + self.path[len("/v1"):], data=body, timeout=60,
                                         headers={"Content-Type": "application/json"})
                self.send_response(reply.status_code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply.content)))
                self.end_headers()
                self.wfile.write(reply.content)

            def do_GET(self):
                self._forward("GET")

            def do_POST(self):
                self._forward("POST")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def time_to_first_request(recorder: Recorder, argv: list[str], env: dict) -> float:
    recorder.first_chat = None
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "gym", *argv], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0 or recorder.first_chat is None:
        raise SystemExit(f"run failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return recorder.first_chat - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gym-slurm-perf-"))
    data = work / "data" / "gsm8k" / "gsm8k.jsonl"
    data.parent.mkdir(parents=True)
    data.write_text("".join(json.dumps(row) + "\n" for row in gsm8k_rows(5)))
    mock = subprocess.Popen([sys.executable, "-m", "gym.mock", "--port", "0", "--data", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        recorder = Recorder(mock.stdout.readline().strip())
        run = ["task=collect", "benchmark=gsm8k", "model=vllm", f"model.base_url={recorder.url}", "limit=1",
               "num_repeats=1", "progress=false", "cache.dir=null"]
        try:
            with SlurmCluster() as cluster:
                env = {**os.environ, **cluster.env, "GYM_DATA_DIR": str(data.parents[1])}
                local, on_slurm = [], []
                for i in range(args.repeats):
                    local.append(time_to_first_request(recorder, [*run, f"hydra.run.dir={work / f'local{i}'}"], env))
                    on_slurm.append(time_to_first_request(recorder, [
                        "-m", *run, "hydra/launcher=slurm", "hydra.launcher.cpus_per_task=1", "hydra.launcher.mem_gb=1",
                        f"hydra.sweep.dir={work / f'slurm{i}'}"], env))
        except ClusterUnavailable as exc:
            raise SystemExit(f"no SLURM cluster: {exc}")
    finally:
        mock.terminate()
    load = os.getloadavg()[0]
    print(f"command to first request, {args.repeats} runs each (load average {load:.1f} on {os.cpu_count()} cores):")
    for name, values in (("local", local), ("SLURM job", on_slurm)):
        print(f"  {name:<10} median {statistics.median(values):5.2f} s, fastest {min(values):5.2f} s")
    print(f"  overhead   median {statistics.median(on_slurm) - statistics.median(local):5.2f} s, "
          f"fastest {min(on_slurm) - min(local):5.2f} s")


if __name__ == "__main__":
    main()
