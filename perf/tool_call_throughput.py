"""Tool-call verification throughput on the BFCL fixture rows (real BFCL v4 rows, every category).

Each verification is what collect runs per rollout: decode the reply (native calls, or BFCL's Python-list
text parsed with ast) and check it by BFCL's AST rules. The cases cycle through the gold calls of every
fixture row and one wrong variant each (an unexpected parameter), in native and prompt mode, plus the
irrelevance/relevance rows. Prints verifications per second (one thread, and a pool of threads as collect
uses) and CPU-seconds per verification.

    .venv/bin/python perf/tool_call_throughput.py [--n 20000] [--threads 8]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gym.toolcalls import ToolCall, render_calls  # noqa: E402
from gym.toolcalls.gold import gold_calls, language_of  # noqa: E402
from gym.verifiers.tool_call import ToolCallVerifier  # noqa: E402

DATA = (ROOT / "tests/fixtures/upstream/raw.githubusercontent.com/ShishirPatil/gorilla"
        / "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8/berkeley-function-call-leaderboard/bfcl_eval/data")


def rows() -> list[dict]:
    out = []
    for path in sorted(DATA.glob("BFCL_v4_*.json")):
        category = path.stem.removeprefix("BFCL_v4_")
        answers_path = DATA / "possible_answer" / path.name
        answers = {a["id"]: a["ground_truth"] for a in map(json.loads, answers_path.read_text().splitlines())} \
            if answers_path.exists() else {}
        for item in map(json.loads, path.read_text().splitlines()):
            out.append({"functions": item["function"], "ground_truth": answers.get(item["id"]),
                        "metadata": {"id": item["id"], "category": category}})
    return out


def cases() -> list[tuple[dict, str, list | None]]:
    """(row, reply text, native calls or None) for every row: gold and a wrong variant, both modes."""
    out = []
    for row in rows():
        category = row["metadata"]["category"]
        if row["ground_truth"] is None:
            name = row["functions"][0]["name"]
            out += [(row, "No function fits.", []), (row, f"[{name}()]", None)]
            continue
        for native in (True, False):
            gold = gold_calls(row["functions"], row["ground_truth"], language_of(category), native)
            wrong = [ToolCall(c.name, {**(c.arguments or {}), "unexpected": 1}) for c in gold]
            for calls in (gold, wrong):
                out.append((row, "", calls) if native else (row, render_calls(calls, "python_list"), None))
    return out


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    verifier = ToolCallVerifier()
    pool = cases()
    work = [pool[i % len(pool)] for i in range(args.n)]
    for threads in (1, args.threads):
        started, cpu_started = time.perf_counter(), cpu()
        if threads == 1:
            rewards = [verifier.verify(row, text, calls).reward for row, text, calls in work]
        else:
            with ThreadPoolExecutor(threads) as executor:
                rewards = list(executor.map(lambda case: verifier.verify(*case).reward, work))
        seconds, cpu_seconds = time.perf_counter() - started, cpu() - cpu_started
        print(f"{threads} thread(s): {args.n} verifications ({len(pool)} distinct cases, {sum(rewards):.0f} right) "
              f"in {seconds:.2f}s = {args.n / seconds:,.0f}/s; {1e6 * cpu_seconds / args.n:.0f} CPU-µs each")


if __name__ == "__main__":
    main()
