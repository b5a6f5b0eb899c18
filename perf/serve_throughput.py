"""task=serve under load: /verify requests per second, server CPU per episode tool call, memory over time.

    .venv/bin/python perf/serve_throughput.py [--benchmark mmlu] [--clients 64] [--seconds 20]
                                              [--memory-requests 10000,200000] [--tool-calls 5000]
                                              [--only verify|tools|memory|in-process]

Starts `python -m gym task=serve` (the real CLI) on prepared fixture data, then:
1. /verify throughput: `--clients` concurrent keep-alive connections (a lean asyncio HTTP/1.1 client, so the
   load generator costs little of the machine it shares), each posting a gym row (task_index + a reply,
   right or wrong) as fast as answers come; requests/s and the server's CPU seconds per request.
2. Episode tool calls: /seed_session on tau2_retail, then gold tool calls one after another; the server's
   CPU time (utime + stime from /proc) per call.
3. Memory: the server's RSS after each count in `--memory-requests` /verify requests; `--only in-process`:
   the same service without HTTP to `--in-process-requests` (a million in a minute or two), with one whole
   τ² episode (seed_session, its gold tool calls, verify) every 100 verifies.
Figures go to stdout as one JSON object (docs/training.md quotes them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT / "tests" / "fixtures" / "upstream"
TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int) -> float:
    """utime + stime of the server and every process under it (math verifier workers included)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                children.setdefault(int(_stat(int(entry.name))[1]), []).append(int(entry.name))
            except (OSError, IndexError):
                continue
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = _stat(current)
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICKS
        todo += children.get(current, [])
    return total


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def gym(*args: str, env: dict) -> None:
    subprocess.run([sys.executable, "-m", "gym", *args], cwd=ROOT, env=env, check=True, capture_output=True)


def start(benchmarks: list[str], env: dict, run_dir: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "gym", "task=serve", f"benchmarks=[{','.join(benchmarks)}]",
                             "serve.max_sessions=100000", f"hydra.run.dir={run_dir}"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    info = run_dir / "serve.json"
    deadline = time.monotonic() + 120
    while not info.is_file():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("task=serve did not start")
        time.sleep(0.1)
    return proc, json.loads(info.read_text())["url"]


async def load(host: str, port: int, bodies: list[bytes], clients: int, total: int | None, seconds: float | None) -> int:
    """POST the bodies round-robin over `clients` connections; returns the number of answers."""
    done, started = 0, time.monotonic()

    async def client(number: int) -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection(host, port)
        i = number
        while (total is None or done < total) and (seconds is None or time.monotonic() - started < seconds):
            writer.write(bodies[i % len(bodies)])
            i += clients
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length"))
            answer = await reader.readexactly(length)
            if not head.startswith(b"HTTP/1.1 200"):
                raise SystemExit(f"request failed: {head[:80]!r} {answer[:200]!r}")
            done += 1
        writer.close()

    await asyncio.gather(*(client(n) for n in range(clients)))
    return done


def requests_for(host: str, path: str, rows: list[dict]) -> list[bytes]:
    out = []
    for index, row in enumerate(rows):
        for reply in (f"Answer: {row['expected_answer']}", "Answer: Z", f"\\boxed{{{row['expected_answer']}}}"):
            body = json.dumps({"task_index": index, "response": reply}).encode()
            out.append(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    return out


def throughput(url: str, pid: int, benchmark: str, data: Path, clients: int, seconds: float) -> dict:
    host, port = url.removeprefix("http://").split(":")
    rows = [json.loads(line) for line in (data / benchmark / f"{benchmark}.jsonl").read_text().splitlines()]
    bodies = requests_for(host, f"/{benchmark}/verify", rows)
    asyncio.run(load(host, int(port), bodies, clients, 2000, None))  # warm up
    cpu, mine, wall = cpu_seconds(pid), time.process_time(), time.monotonic()
    n = asyncio.run(load(host, int(port), bodies, clients, None, seconds))
    wall, cpu, mine = time.monotonic() - wall, cpu_seconds(pid) - cpu, time.process_time() - mine
    return {"benchmark": benchmark, "clients": clients, "requests": n, "requests_per_s": round(n / wall),
            "server_cpu_ms_per_request": round(1000 * cpu / n, 3),
            "server_capacity_per_core": round(n / cpu) if cpu else None,
            "load_generator_cpu_ms_per_request": round(1000 * mine / n, 3), "load_average": os.getloadavg()[0]}


def tool_calls(url: str, pid: int, data: Path, calls: int) -> dict:
    import requests

    from gym.episodes.users import gold_actions

    rows = [json.loads(line) for line in (data / "tau2_retail" / "tau2_retail.jsonl").read_text().splitlines()]
    plan = [(row, action) for row in rows for action in gold_actions(row, "assistant")]
    http, made, seeded = requests.Session(), 0, 0
    before, wall = cpu_seconds(pid), time.monotonic()
    while made < calls:
        for row, action in plan:
            if made % 20 == 0:  # a fresh episode every 20 calls: its state is reset and deep-copied too
                http.cookies.clear()
                http.post(f"{url}/tau2_retail/seed_session", json={"task_id": row["task_id"]}).raise_for_status()
                seeded += 1
            http.post(f"{url}/tau2_retail/{action['name']}", json=action.get("arguments") or {}).raise_for_status()
            made += 1
    cpu, wall = cpu_seconds(pid) - before, time.monotonic() - wall
    return {"tool_calls": made, "sessions": seeded, "server_cpu_ms_per_call": round(1000 * cpu / made, 3),
            "wall_ms_per_call": round(1000 * wall / made, 3)}


def memory(url: str, pid: int, benchmark: str, data: Path, clients: int, marks: list[int]) -> dict:
    host, port = url.removeprefix("http://").split(":")
    rows = [json.loads(line) for line in (data / benchmark / f"{benchmark}.jsonl").read_text().splitlines()]
    bodies = requests_for(host, f"/{benchmark}/verify", rows)
    out, sent = {}, 0
    for mark in marks:
        sent += asyncio.run(load(host, int(port), bodies, clients, mark - sent, None))
        out[str(mark)] = round(rss_mb(pid), 1)
    first, last = out[str(marks[0])], out[str(marks[-1])]
    return {"rss_mb_after_requests": out, "growth": round(last / first, 3)}


def in_process_memory(data: Path, benchmark: str, marks: list[int]) -> dict:
    """The service without HTTP (gym.serve.service, what every route calls): /verify and whole
    seed_session -> tool -> verify episodes, RSS of this process after each count."""
    from contextlib import ExitStack

    from gym.core.config import compose
    from gym.episodes.users import gold_actions
    from gym.serve.catalog import load
    from gym.serve.service import Service
    from gym.serve.sessions import Sessions

    os.environ["GYM_DATA_DIR"] = str(data)
    with ExitStack() as stack:
        served = {}
        for name in (benchmark, "tau2_retail"):
            cfg = compose([f"benchmark={name}"])
            served[name] = load(cfg, cfg.benchmark, stack)
        service = Service(served, Sessions(1000, 600))
        rows = served[benchmark].rows
        bodies = [{"task_index": i, "response": f"Answer: {r['expected_answer']}"} for i, r in enumerate(rows)]
        retail = served["tau2_retail"].rows
        episodes = [(r["task_id"], gold_actions(r, "assistant")) for r in retail]
        out, done, started = {}, 0, time.monotonic()
        for mark in marks:
            while done < mark:
                service.handle(benchmark, "verify", bodies[done % len(bodies)], None)
                if done % 100 == 0:  # one whole episode every 100 verifies
                    task_id, actions = episodes[(done // 100) % len(episodes)]
                    _, sid = service.handle("tau2_retail", "seed_session", {"task_id": task_id}, None)
                    for action in actions:
                        service.handle("tau2_retail", action["name"], dict(action.get("arguments") or {}), sid)
                    service.handle("tau2_retail", "verify", {"response": {"output": []}}, sid)
                done += 1
            out[str(mark)] = round(rss_mb(os.getpid()), 1)
        return {"rss_mb_after_requests": out, "growth": round(out[str(marks[-1])] / out[str(marks[0])], 3),
                "open_sessions_at_end": len(service.sessions), "seconds": round(time.monotonic() - started, 1)}


def main() -> None:
    try:  # the load generator shares the machine: uvloop keeps its own CPU cost low
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    parser = argparse.ArgumentParser()
    parser.add_argument("--benchmark", default="mmlu")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--memory-requests", default="10000,200000")
    parser.add_argument("--tool-calls", type=int, default=5000)
    parser.add_argument("--only", choices=("verify", "tools", "memory", "in-process"), default=None)
    parser.add_argument("--in-process-requests", default="10000,1000000")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gym-serve-perf-"))
    env = {**os.environ, "GYM_DATA_DIR": str(root / "data")}
    names = sorted({args.benchmark, "gsm8k", "tau2_retail"})
    gym("task=prepare", f"benchmarks=[{','.join(names)}]", f"data.mirror={MIRROR}", "data.offline=true", env=env)
    if args.only == "in-process":
        marks = [int(n) for n in args.in_process_requests.split(",")]
        print(json.dumps({"in_process_memory": in_process_memory(root / "data", args.benchmark, marks)}, indent=2))
        return
    proc, url = start(names, env, root / "run")
    try:
        figures: dict = {"cores": os.cpu_count()}
        if args.only in (None, "verify"):
            figures["verify"] = [throughput(url, proc.pid, name, root / "data", args.clients, args.seconds)
                                 for name in dict.fromkeys([args.benchmark, "gsm8k"])]
        if args.only in (None, "tools"):
            figures["episode_tools"] = tool_calls(url, proc.pid, root / "data", args.tool_calls)
        if args.only in (None, "memory"):
            figures["memory"] = memory(url, proc.pid, args.benchmark, root / "data", args.clients,
                                       [int(n) for n in args.memory_requests.split(",")])
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
