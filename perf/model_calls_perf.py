"""Asking the model less: n samples per request, the response cache, and concurrency=auto against a
rate-limited endpoint. The reference server runs in its own process (python -m gym.mock).

    .venv/bin/python perf/model_calls_perf.py            # all three
    .venv/bin/python perf/model_calls_perf.py --only n   # n | ignored_n | cache | auto

n per request: the reference server charges its latency once per request whatever n is (a real server
pays the decode of every sample but the prefill once), so the wall-time gain shown is the upper bound
that request overhead and prefill allow; the request count is exact.
ignored_n: a server that accepts n and answers one choice (--ignore-n); after the fallback each task's
other rollouts are spread over the workers, so the run should take about as long as with n off.
auto: the server answers 429 (Retry-After 1 s) above --rate-limit requests in flight; gym's fixed
concurrencies are compared with concurrency=auto (max_concurrency 256) on rollouts/s and infra errors.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bare_loop import served  # noqa: E402


def prepare(tasks: int) -> Path:
    root = Path(tempfile.mkdtemp(prefix="gym-calls-perf-"))
    os.environ["GYM_DATA_DIR"] = str(root / "data")
    path = root / "data" / "gsm8k" / "gsm8k.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"question": f"Item {i}: a bag holds {i} red and {i % 5 + 1} blue marbles. "
                                                    "How many marbles are in the bag?",
                                        "expected_answer": str(i + i % 5 + 1)}) + "\n" for i in range(tasks)))
    return path


def collect(base_url: str, run_dir: Path, *overrides: str) -> tuple[dict, float]:
    from gym.core.config import compose
    from gym.core.errors import GymError
    from gym.tasks import collect as task

    cfg = compose(["task=collect", "benchmark=gsm8k", "model=vllm", f"model.base_url={base_url}", "progress=false",
                   f"+run_dir={run_dir}", *overrides])
    started = time.perf_counter()
    try:
        summary = task.run(cfg)
    except GymError:  # infra errors: the summary is in run.json
        summary = json.loads((run_dir / "run.json").read_text())
    return summary, time.perf_counter() - started


def n_per_request(tasks: int, repeats: int) -> None:
    data = prepare(tasks)
    with served(data, "--latency", "0.05") as url:
        for n in (False, True):
            summary, wall = collect(url, data.parent / f"n-{n}", f"num_repeats={repeats}", "concurrency=32",
                                    f"model.n_per_request={str(n).lower()}")
            print(f"n_per_request={str(n).lower():5}: {summary['ran']} rollouts, {summary['model_requests']} requests, "
                  f"{wall:.2f}s wall (50 ms per request, concurrency 32)")


def ignored_n(tasks: int, repeats: int) -> None:
    data = prepare(tasks)
    with served(data, "--latency", "0.05", "--ignore-n") as url:
        for n in (False, True):
            summary, wall = collect(url, data.parent / f"ignored-{n}", f"num_repeats={repeats}", "concurrency=32",
                                    f"model.n_per_request={str(n).lower()}")
            print(f"server ignoring n, n_per_request={str(n).lower():5}: {summary['ran']} rollouts, "
                  f"{summary['model_requests']} requests, {wall:.2f}s wall (50 ms per request, concurrency 32)")


def cache(tasks: int, repeats: int) -> None:
    data = prepare(tasks)
    cache_dir = data.parent / "cache"
    with served(data, "--latency", "0.05") as url:
        for label in ("first run", "identical rerun"):
            summary, wall = collect(url, data.parent / label.replace(" ", "-"), f"num_repeats={repeats}",
                                    "concurrency=32", "model.n_per_request=false", f"cache.dir={cache_dir}")
            print(f"cache, {label}: {summary['ran']} rollouts, {summary['model_requests']} model calls, {wall:.2f}s wall")


def auto(tasks: int, repeats: int, rate_limit: int) -> None:
    data = prepare(tasks)
    results = {}
    with served(data, "--latency", "0.05", "--rate-limit", str(rate_limit), "--retry-after", "1") as url:
        for setting in ("8", "16", str(rate_limit), "32", "64", "auto"):
            summary, wall = collect(url, data.parent / f"c-{setting}", f"num_repeats={repeats}",
                                    f"concurrency={setting}", "model.n_per_request=false")
            rate = summary["ran"] / wall
            results[setting] = rate
            settled = summary["concurrency"]
            extra = (f"; settled at {settled['settled']} (peak {settled['peak']}, {settled['decreases']} decreases of which {settled['latency_decreases']} on latency, "
                     f"{settled['overload_replies']} 429s)" if setting == "auto" else "")
            print(f"concurrency={setting:>4}: {rate:6.1f} rollouts/s, infra_error "
                  f"{summary['counts'].get('infra_error', 0)}{extra}")
    best = max(v for k, v in results.items() if k != "auto")
    print(f"auto = {results['auto'] / best:.2f}x the best fixed concurrency (server limit {rate_limit} in flight)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=("n", "ignored_n", "cache", "auto"))
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--rate-limit", type=int, default=24)
    args = parser.parse_args()
    if args.only in (None, "n"):
        n_per_request(args.tasks, args.repeats)
    if args.only in (None, "ignored_n"):
        ignored_n(args.tasks, args.repeats)
    if args.only in (None, "cache"):
        cache(args.tasks, args.repeats)
    if args.only in (None, "auto"):
        auto(args.tasks, args.repeats, args.rate_limit)


if __name__ == "__main__":
    main()
