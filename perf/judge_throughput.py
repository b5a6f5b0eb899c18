"""Judge-graded collect throughput against the reference server, the cost of reading verdicts, and what
the judge cache saves a reverify.

    .venv/bin/python perf/judge_throughput.py [--tasks 500] [--repeats 2] [--concurrency 32]

Each rollout is two HTTP calls (policy answer, then judge verdict) to the in-process reference server
(model=mock judge=mock), so this measures gym's own overhead per judged rollout, not a real judge.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import timeit
from pathlib import Path


def verdict_parsing() -> None:
    from gym.core.judge_prompts import FORMATS

    replies = {
        "letter_abc": "A careful look shows the response names a different river.\n\nB",
        "judgement_yes_no": "extracted_final_answer: 12\n\nreasoning: same value.\n\ncorrect: yes\n\nJudgement: yes",
        "boxed_correct": "<thinking>\n" + "notes " * 300 + "\n</thinking>\n\\boxed{Correct}",
        "last_judgement_yes_no": "step " * 500 + "\nJudgement: YES",
    }
    for name, reply in replies.items():
        runs = 20000
        seconds = timeit.timeit(lambda: FORMATS[name].read(reply), number=runs)
        print(f"read {name:<22} {1e6 * seconds / runs:7.2f} us per reply ({len(reply)} chars)")


def collect_run(tasks: int, repeats: int, concurrency: int) -> Path:
    root = Path(tempfile.mkdtemp(prefix="gym-judge-perf-"))
    os.environ["GYM_DATA_DIR"] = str(root / "data")
    from gym.core.config import compose
    from gym.tasks import collect

    path = root / "data" / "simpleqa" / "simpleqa.jsonl"
    path.parent.mkdir(parents=True)
    rows = [{"question": f"Perf question number {i}: which code word was assigned to item {i * 7919}?",
             "expected_answer": f"word-{i}"} for i in range(tasks)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    started = time.perf_counter()
    summary = collect.run(compose(["task=collect", "benchmark=simpleqa", "model=mock", "judge=mock",
                                   "model.mock.accuracy=0.7", f"num_repeats={repeats}", f"concurrency={concurrency}",
                                   "progress=false", f"+run_dir={root / 'run'}"]))
    elapsed = time.perf_counter() - started
    done = summary["ran"]
    print(f"collect simpleqa judge=mock: {done} rollouts ({2 * done} HTTP calls) in {elapsed:.2f}s -> "
          f"{done / elapsed:.0f} judged rollouts/s at concurrency {concurrency}; "
          f"accuracy {summary['accuracy_percent_this_run']}% (policy accuracy 70%)")
    return root


def reverify_runs(root: Path, concurrency: int) -> None:
    """task=reverify of the collected rollouts with a judge cache (twice: filling it, then from it) and without."""
    from gym.core.config import compose
    from gym.tasks import reverify

    cache = [f"cache.dir={root / 'cache'}"]
    for number, (label, knobs) in enumerate((("filling the judge cache", cache), ("from the judge cache", cache),
                                              ("without a cache", []))):
        started = time.perf_counter()
        reverify.run(compose(["task=reverify", f"rollouts={root / 'run'}", "judge=mock", f"concurrency={concurrency}",
                              *knobs, f"+run_dir={root / f'rev-{number}'}"]))
        elapsed = time.perf_counter() - started
        report = json.loads((root / f"rev-{number}" / "reverify.json").read_text())
        hits = (report.get("judge_cache") or {}).get("judge_hits", 0)
        print(f"reverify {report['reverified']} judged rollouts {label}: {report['reverified'] - hits} judge calls, "
              f"{elapsed:.2f}s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    verdict_parsing()
    root = collect_run(args.tasks, args.repeats, args.concurrency)
    reverify_runs(root, args.concurrency)


if __name__ == "__main__":
    main()
