"""The model proxy's cost per call: the reference server asked directly by gym's model client, then through the
proxy with the real OpenAI and Anthropic SDKs (chat, chat streamed, Responses, Anthropic Messages), sequential.

    .venv/bin/python perf/proxy_overhead.py [--calls 300]

Prints the median and p90 wall time per call of each path and the median difference to the direct call.
"""

from __future__ import annotations

import argparse
import statistics
import time

import anthropic
import openai

from gym.mock.server import MockServer
from gym.model.client import ModelClient
from gym.proxy import Budget, ModelProxy

ASK = [{"role": "user", "content": "What is 2+2?"}]


def timed(call, count: int) -> list[float]:
    call()  # warm-up: connections, imports
    out = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    with MockServer() as mock:
        client = ModelClient(mock.base_url, model="gym-mock", max_retries=0)
        with ModelProxy.for_trial(client, Budget()) as proxy:
            oa = openai.OpenAI(base_url=proxy.base_url + "/v1", api_key=proxy.token, max_retries=0)
            an = anthropic.Anthropic(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
            paths = {
                "gym client → reference server (direct)": lambda: client.complete(ASK),
                "openai SDK chat → proxy": lambda: oa.chat.completions.create(model="m", messages=ASK),
                "openai SDK chat, streamed → proxy": lambda: list(oa.chat.completions.create(model="m", messages=ASK,
                                                                                                stream=True)),
                "openai SDK responses → proxy": lambda: oa.responses.create(model="m", input="What is 2+2?"),
                "anthropic SDK messages → proxy": lambda: an.messages.create(model="c", max_tokens=64, messages=ASK),
            }
            results = {name: timed(call, args.calls) for name, call in paths.items()}
    base = statistics.median(results["gym client → reference server (direct)"])
    print(f"{'path':42} {'median ms':>10} {'p90 ms':>8} {'over direct':>12}")
    for name, times in results.items():
        times.sort()
        median, p90 = statistics.median(times), times[int(0.9 * len(times))]
        print(f"{name:42} {median * 1e3:10.2f} {p90 * 1e3:8.2f} {(median - base) * 1e3:+11.2f}")


if __name__ == "__main__":
    main()
