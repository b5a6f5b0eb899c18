"""Baseline throughput: a bare `requests` loop against gym's reference server.

Starts `python -m gym.mock` in a subprocess on a synthetic prepared file of math rows, sends
--requests chat completions from a thread pool of --concurrency workers (one requests.Session each,
pool size = concurrency) and prints rollouts/s. gym's collect task is measured against this figure.

    .venv/bin/python perf/bare_loop.py --requests 4000 --concurrency 64 --latency 0
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import requests
from requests.adapters import HTTPAdapter

TEMPLATE = "Solve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{{}}.\n\n{question}"


@contextmanager
def served(data: Path, *args: str) -> Iterator[str]:
    """The reference server in its own process (its CPU is not gym's), with extra `python -m gym.mock`
    arguments; yields its base URL."""
    server = subprocess.Popen([sys.executable, "-m", "gym.mock", "--data", str(data), "--port", "0", *args],
                              stdout=subprocess.PIPE, text=True)
    try:
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait(timeout=10)
        server.stdout.close()


def write_rows(path: Path, count: int) -> list[str]:
    """Synthetic word problems; returns their questions."""
    rng = random.Random(0)
    questions = []
    with path.open("w", encoding="utf-8") as handle:
        for number in range(count):
            a, b, c = rng.randint(2, 999), rng.randint(2, 999), rng.randint(2, 99)
            question = (f"Problem {number}: a shop sells {a} apples on Monday and {b} apples on Tuesday, "
                        f"then packs them in crates of {c}. How many apples were sold in total?")
            handle.write(json.dumps({"question": question, "expected_answer": str(a + b), "metadata": {}}) + "\n")
            questions.append(question)
    return questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "math.jsonl"
        questions = write_rows(data, args.rows)
        with served(data, "--latency", str(args.latency)) as base_url:
            if not base_url.startswith("http"):
                sys.exit("server did not start")
            local = threading.local()

            def session() -> requests.Session:
                if not hasattr(local, "session"):
                    local.session = requests.Session()
                    adapter = HTTPAdapter(pool_connections=1, pool_maxsize=args.concurrency)
                    local.session.mount("http://", adapter)
                return local.session

            def one(number: int) -> bool:
                question = questions[number % len(questions)]
                body = {"model": "gym-mock", "seed": number // len(questions),
                        "messages": [{"role": "user", "content": TEMPLATE.format(question=question)}]}
                response = session().post(f"{base_url}/chat/completions", json=body, timeout=60)
                return response.status_code == 200 and "\\boxed" in response.json()["choices"][0]["message"]["content"]

            with ThreadPoolExecutor(args.concurrency) as pool:
                list(pool.map(one, range(min(args.concurrency, args.requests))))  # warm the connections
                start = time.perf_counter()
                answered = sum(pool.map(one, range(args.requests)))
                elapsed = time.perf_counter() - start
    print(f"requests={args.requests} concurrency={args.concurrency} latency={args.latency}s "
          f"answered={answered} elapsed={elapsed:.2f}s rollouts/s={args.requests / elapsed:.1f}")


if __name__ == "__main__":
    main()
