"""task=serve at RL batch sizes: N concurrent /run of gsm8k against a policy that takes seconds to answer.

    .venv/bin/python perf/trainer_concurrency.py [--runs 4096] [--latency 2] [--verifies 16000]
                                                 [--episodes 1024] [--only run|verify|episodes|disconnect]

A fake policy (an asyncio OpenAI-compatible server in this process's child: every chat completion waits
`--latency` seconds, then answers the gold of the task as `#### <n>`) stands in for vLLM; `python -m gym
task=serve` (the real CLI) plays each /run against it. All requests go out at once (one connection each);
the figures: wall time, completions/s, the server's CPU seconds per rollout, its peak resident memory,
errors (must be 0). `--only disconnect`: clients that leave mid-rollout, and the server's count of them.
Figures go to stdout as one JSON object (docs/training.md quotes them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from perf.serve_throughput import MIRROR, cpu_seconds, gym, rss_mb  # noqa: E402

POLICY = r'''
import asyncio, json, sys
import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

LATENCY = float(sys.argv[2])
answers = {}

async def chat(request):
    body = await request.json()
    text = body["messages"][-1]["content"]
    await asyncio.sleep(LATENCY)
    gold = next((g for q, g in answers.items() if q in text), None)
    said = f"#### {gold}" if gold is not None else "###STOP###"  # an episode's agent ends at once
    return JSONResponse({"id": "c", "object": "chat.completion", "model": "fake", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": said}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}})

async def models(request):
    return JSONResponse({"object": "list", "data": [{"id": "fake", "object": "model"}]})

for line in open(sys.argv[3]):
    row = json.loads(line)
    answers[row["question"]] = str(row["expected_answer"])
app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]), Route("/v1/models", models)])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", backlog=8192, limit_concurrency=20000)
'''


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Peak:
    """The server's peak RSS, sampled every 50 ms while the load runs."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._stop = pid, 0.0, threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, rss_mb(self.pid))

    def stop(self) -> float:
        self._stop.set()
        return round(self.peak, 1)


async def fire(url: str, path: str, bodies: list[dict], leave_after: float | None = None) -> tuple[int, int, list]:
    """Every body at once, one connection each (a lean asyncio HTTP/1.1 client: the load generator shares the
    server's 2 cores); (answers 200, errors, error samples). `leave_after`: each client hangs up then."""
    host, port = url.removeprefix("http://").split(":")

    async def one(body: dict) -> int | str:
        data = json.dumps(body).encode()
        try:
            reader, writer = await asyncio.open_connection(host, int(port), limit=1 << 22)
            writer.write(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                         f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
            if leave_after is not None:  # a client that gives up mid-rollout
                await asyncio.sleep(leave_after)
                writer.close()
                return 200
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length"))
            answer = await reader.readexactly(length)
            writer.close()
            return 200 if head.startswith(b"HTTP/1.1 200") else f"{head[:40]!r} {answer[:200]!r}"
        except Exception as exc:  # noqa: BLE001 - counted and shown
            return f"{exc.__class__.__name__}: {exc}"

    results = await asyncio.gather(*(one(body) for body in bodies))
    errors = [r for r in results if r != 200]
    return len(results) - len(errors), len(errors), errors[:3]


def measure(url: str, pid: int, path: str, bodies: list[dict], leave_after: float | None = None) -> dict:
    before_rss = rss_mb(pid)
    peak = Peak(pid)
    cpu, wall = cpu_seconds(pid), time.monotonic()
    ok, errors, samples = asyncio.run(fire(url, path, bodies, leave_after))
    wall, cpu = time.monotonic() - wall, cpu_seconds(pid) - cpu
    return {"requests": len(bodies), "ok": ok, "errors": errors, "error_samples": samples, "wall_s": round(wall, 2),
            "per_s": round(len(bodies) / wall, 1), "server_cpu_ms_each": round(1000 * cpu / len(bodies), 2),
            "server_rss_mb_before": round(before_rss, 1), "server_rss_mb_peak": peak.stop(),
            "load_average": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=4096)
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--verifies", type=int, default=16000)
    parser.add_argument("--episodes", type=int, default=1024)
    parser.add_argument("--only", choices=("run", "verify", "episodes", "disconnect"), default=None)
    parser.add_argument("--rollout-threads", type=int, default=4096, help="serve.rollout_threads (64: the old pool)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gym_trainer_perf_"))
    data = work / "data"
    env = {**os.environ, "GYM_DATA_DIR": str(data)}
    gym("task=prepare", "benchmarks=[gsm8k,tau2_mock]", f"data.mirror={MIRROR}", "data.offline=true", env=env)
    rows_file = data / "gsm8k" / "gsm8k.jsonl"
    rows = [json.loads(line) for line in rows_file.read_text().splitlines() if line.strip()]
    port = free_port()
    script = work / "policy.py"
    script.write_text(POLICY)
    policy = subprocess.Popen([sys.executable, str(script), str(port), str(args.latency), str(rows_file)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run_dir = work / "serve"
    server = subprocess.Popen([sys.executable, "-m", "gym", "task=serve", "benchmarks=[gsm8k,tau2_mock]", "user=mock",
                               "model=vllm", f"model.base_url=http://127.0.0.1:{port}/v1", "model.name=fake",
                               "serve.max_sessions=100000", f"serve.rollout_threads={args.rollout_threads}",
                               f"hydra.run.dir={run_dir}"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=open(work / "serve.log", "w"))
    figures: dict = {"cores": os.cpu_count(), "policy_latency_s": args.latency, "rollout_threads": args.rollout_threads}
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / "serve.json").is_file():
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("task=serve did not start: " + (work / "serve.log").read_text()[-2000:])
            time.sleep(0.1)
        url = json.loads((run_dir / "serve.json").read_text())["url"]
        import requests

        requests.post(f"{url}/gsm8k/run", json={"task_index": 0}, timeout=60).raise_for_status()  # warm up
        if args.only in (None, "run"):
            bodies = [{"task_index": i % len(rows), "rollout_index": i} for i in range(args.runs)]
            figures["run_gsm8k"] = measure(url, server.pid, "/gsm8k/run", bodies)
        if args.only in (None, "verify"):
            bodies = [{"task_index": i % len(rows), "response": f"#### {rows[i % len(rows)]['expected_answer']}"}
                      for i in range(args.verifies)]
            figures["verify_gsm8k"] = measure(url, server.pid, "/gsm8k/verify", bodies)
        if args.only in (None, "episodes"):
            episodes = [{"task_index": i % 3, "rollout_index": i} for i in range(args.episodes)]
            figures["run_tau2_mock_episodes"] = measure(url, server.pid, "/tau2_mock/run", episodes)
        if args.only in (None, "disconnect"):
            bodies = [{"task_index": i % len(rows)} for i in range(256)]
            figures["disconnect"] = measure(url, server.pid, "/gsm8k/run", bodies, leave_after=args.latency / 4)
            time.sleep(args.latency * 2)
            figures["disconnect"]["server_counted"] = requests.get(f"{url}/health").json()["counts"].get("disconnected")
    finally:
        server.terminate()
        policy.terminate()
        server.wait(30)
        policy.wait(30)
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
