"""Run gym's reference server on its own: `python -m gym.mock --data prepared.jsonl --port 0` prints its URL.

For perf scripts and manual checks; a gym run with model=mock starts it in-process instead.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from typing import Any

from gym.mock.server import FAULTS, MockServer


def _parse_latency(text: str) -> float | dict:
    """`0.05`, `uniform:LOW:HIGH`, `lognormal:MEDIAN:SIGMA`, or a JSON object."""
    if text.lstrip().startswith("{"):
        return json.loads(text)
    dist, _, rest = text.partition(":")
    if rest:
        keys = {"uniform": ("low", "high"), "lognormal": ("median", "sigma")}.get(dist, ("a", "b"))
        values = [float(v) for v in rest.split(":")]
        return {"dist": dist, **dict(zip(keys, values))}
    return float(text)


def _parse_fault(text: str) -> tuple[str, float]:
    name, sep, rate = text.partition("=")
    if not sep:
        raise ValueError(f"--fault wants NAME=RATE, got {text!r}")
    return name.strip(), float(rate)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the server like Ctrl-C


def main(argv: list[str] | None = None) -> int:
    from gym.core.errors import GymError

    parser = argparse.ArgumentParser(prog="python -m gym.mock", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", action="append", default=[], help="prepared JSONL (repeatable)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--accuracy", type=float, default=0.7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", default="0", help="seconds, uniform:LOW:HIGH or lognormal:MEDIAN:SIGMA")
    parser.add_argument("--fault", action="append", default=[], metavar="NAME=RATE", help=f"one of {', '.join(FAULTS)}")
    parser.add_argument("--model-name", default="gym-mock")
    parser.add_argument("--reasoning", default="none", help="none | think_tags | reasoning_content")
    parser.add_argument("--max-context-tokens", type=int, default=1_000_000)
    parser.add_argument("--retry-after", type=float, default=1)
    parser.add_argument("--hang-seconds", type=float, default=3600.0)
    parser.add_argument("--task-accuracy", default=None, metavar="beta:A:B",
                        help="per-task accuracies drawn from Beta(A, B) instead of one --accuracy")
    parser.add_argument("--rate-limit", type=int, default=None, help="429 + Retry-After above this many requests in flight")
    parser.add_argument("--max-n", type=int, default=128, help="largest n accepted (1: refuse n > 1)")
    parser.add_argument("--ignore-n", action="store_true", help="accept n but answer one choice")
    parser.add_argument("--family", default=None,
                        help="the data's verifier family, whose answer shapes it writes (default: any family's)")
    args = parser.parse_args(argv)
    try:
        server = MockServer(data_paths=args.data, accuracy=args.accuracy, seed=args.seed,
                            latency=_parse_latency(args.latency), faults=dict(map(_parse_fault, args.fault)),
                            model_name=args.model_name, host=args.host, port=args.port, reasoning=args.reasoning,
                            max_context_tokens=args.max_context_tokens, retry_after=args.retry_after,
                            hang_seconds=args.hang_seconds, task_accuracy=args.task_accuracy,
                            rate_limit=args.rate_limit, max_n=args.max_n,
                            ignore_n=args.ignore_n, family=args.family)
        url = server.start()
    except (GymError, ValueError, OSError) as exc:
        print(f"gym: error: {exc}", file=sys.stderr)
        return 2
    print(url, flush=True)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
