"""Verifier throughput: 10,000 synthetic answers per family, verified from a pool of 64 threads.

Prints verifications per second, CPU-seconds per verification (this process plus its children, from
resource.getrusage, start-up included), the math pool's start-up time, and whether any worker process
is left after close().

    .venv/bin/python perf/verify_throughput.py [--n 10000] [--threads 64] [--workers N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import time
from concurrent.futures import ThreadPoolExecutor


def math_cases(n: int, rng: random.Random) -> list[tuple[dict, str, float]]:
    cases = []
    filler = "First I add the parts: {a} + {b} = {c}. Then I check the units and multiply by {k}.\n"
    for i in range(n):
        a, b, k = rng.randint(2, 999), rng.randint(2, 999), rng.randint(2, 9)
        gold = (a + b) * k
        steps = filler.format(a=a, b=b, c=a + b, k=k) * rng.randint(1, 4)
        kind = i % 6
        if kind == 0:
            cases.append(({"expected_answer": str(gold)}, steps + rf"So the total is $\boxed{{{gold}}}$.", 1.0))
        elif kind == 1:
            cases.append(({"expected_answer": str(gold)}, steps + f"#### {gold:,}", 1.0))
        elif kind == 2:
            cases.append(({"expected_answer": str(gold)}, steps + rf"\boxed{{{gold + rng.randint(1, 50)}}}", 0.0))
        elif kind == 3:
            cases.append(({"expected_answer": rf"\frac{{{a}}}{{{3 * b}}}"},
                          steps + rf"\boxed{{\frac{{{2 * a}}}{{{6 * b}}}}}", 1.0))
        elif kind == 4:
            cases.append(({"expected_answer": str(gold)}, steps + f"Therefore the answer is {gold + k}.", 0.0))
        else:
            cases.append(({"expected_answer": str(gold)}, steps + f"The answer is {gold}.", 1.0))
    return cases


def mcq_cases(n: int, rng: random.Random) -> list[tuple[dict, str, float]]:
    cases = []
    letters = "ABCD"
    for i in range(n):
        gold = rng.choice(letters)
        other = rng.choice([x for x in letters if x != gold])
        options = {x: f"option text {x} {rng.randint(1, 10**6)}" for x in letters}
        body = "Let me weigh each option against the facts given in the question.\n" * rng.randint(1, 8)
        kind = i % 5
        if kind == 0:
            cases.append(({"expected_answer": gold, "options": options}, body + f"Answer: {gold}", 1.0))
        elif kind == 1:
            cases.append(({"expected_answer": gold, "options": options}, body + f"**Answer:** ({other})", 0.0))
        elif kind == 2:
            answer = f"**Answer: {gold}) {options[gold]}**"
            cases.append(({"expected_answer": gold, "options": options}, body + answer, 1.0))
        elif kind == 3:
            cases.append(({"expected_answer": gold, "options": options}, body + f"Answer: {gold} or {other}", 0.0))
        else:
            cases.append(({"expected_answer": gold, "options": options}, body + f"Answer: {other}", 0.0))
    return cases


def instruction_cases(n: int, rng: random.Random, family: str) -> list[tuple[dict, str, float]]:
    """IFEval/IFBench-style rows (2-3 instructions) with a response that follows all or breaks one."""
    vocab = ("river stone light garden window morning quiet paper music winter bridge forest careful simple "
             "silver market travel friendly ocean summer").split()

    def prose(words: int) -> str:
        return " ".join(rng.choice(vocab) for _ in range(words)) + "."

    cases = []
    for i in range(n):
        kind, follows = i % 4, rng.random() < 0.5
        if family == "ifeval" and kind == 0:
            ids = ["punctuation:no_comma", "length_constraints:number_words", "detectable_format:number_highlighted_sections"]
            kwargs = [{}, {"num_words": 120, "relation": "at least"}, {"num_highlights": 2}]
            text = f"*{prose(3)}*\n{prose(rng.randint(130, 400))}\n*{prose(3)}*"
            text = text if follows else text.replace(" ", ", ", 1)
        elif family == "ifeval" and kind == 1:
            ids = ["change_case:english_lowercase", "startend:end_checker"]
            kwargs = [{}, {"end_phrase": "Is there anything else I can help with?"}]
            text = "the garden is quiet in the morning and the river runs past the old stone bridge. " * rng.randint(2, 8)
            text = (text if follows else text.capitalize()) + "is there anything else i can help with?"
        elif family == "ifeval" and kind == 2:
            ids = ["detectable_format:json_format", "keywords:existence"]
            kwargs = [{}, {"keywords": ["alpha"]}]
            text = json.dumps({"alpha": prose(20)}) if follows else "alpha: " + prose(20)
        elif family == "ifeval":
            ids = ["detectable_format:number_bullet_lists", "detectable_content:postscript", "language:response_language"]
            kwargs = [{"num_bullets": 3}, {"postscript_marker": "P.S."}, {"language": "en"}]
            bullets = 3 if follows else 2
            text = "Here are the points about the garden.\n" + "".join(f"* {prose(12)}\n" for _ in range(bullets))
            text += "P.S. The morning light in the garden was lovely."
        elif kind == 0:
            ids, kwargs = ["count:numbers", "words:repeats"], [{"N": 3}, {"small_n": 40}]
            text = f"{prose(30)} 12 {prose(30)} 7 {prose(30)} 2024" + ("" if follows else " and 5")
        elif kind == 1:
            ids, kwargs = ["format:title_case", "count:word_count_range"], [{}, {"min_words": 20, "max_words": 400}]
            text = prose(rng.randint(30, 300)).title() if follows else prose(rng.randint(30, 300))
        elif kind == 2:
            ids, kwargs = ["sentence:keyword", "ratio:stop_words"], [{"word": "lantern", "N": 2}, {"percentage": 60}]
            text = f"{prose(12)} The lantern {prose(12)} {prose(40)}" if follows else f"{prose(12)} {prose(12)} {prose(40)}"
        else:
            source = prose(25)
            ids, kwargs = ["repeat:repeat_span"], [{"prompt_to_repeat": source, "n_start": 3, "n_end": 9}]
            text = " ".join(source.split()[3:10] if follows else source.split()[3:9])
        label = 1.0 if follows else (0.0 if family == "ifeval" or len(ids) == 1 else 0.5)
        cases.append(({"question": "Write something.", "instruction_id_list": ids, "kwargs": kwargs}, text, label))
    return cases


def cpu_seconds() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def descendants() -> set[int]:
    todo, seen = [os.getpid()], set()
    while todo:
        parent = todo.pop()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                    state, ppid = handle.read().rsplit(")", 1)[1].split()[:2]
            except OSError:
                continue
            if int(ppid) == parent and state != "Z" and int(entry) not in seen:
                seen.add(int(entry))
                todo.append(int(entry))
    return seen


def run_family(family: str, options: dict, cases: list, threads: int, probe: tuple[dict, str]) -> None:
    """`probe` is verified first, alone: its latency is the start-up cost a caller sees."""
    from gym.verifiers import make_verifier

    before_children = descendants()
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    verifier = make_verifier(family, options)
    first = verifier.verify(*probe)
    startup = time.perf_counter() - wall0
    workers = verifier.worker_pids() if hasattr(verifier, "worker_pids") else []

    run0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        verdicts = list(pool.map(lambda case: verifier.verify(case[0], case[1]), cases))
    run_wall = time.perf_counter() - run0
    verifier.close()
    cpu = cpu_seconds() - cpu0

    wrong = sum(v.reward != case[2] for v, case in zip(verdicts, cases))
    errors = sum("error" in v.details for v in verdicts)
    shortcuts = sum(bool(v.details.get("shortcut")) for v in verdicts)
    left = descendants() - before_children
    print(f"{family}: {len(cases)} verifications, {threads} threads" + (f", {len(workers)} workers" if workers else ""))
    print(f"  first verification after {startup * 1000:.0f} ms (start-up included); reward {first.reward}")
    print(f"  {len(cases) / run_wall:,.0f} verifications/s ({run_wall:.2f} s wall)")
    print(f"  {cpu / len(cases) * 1000:.3f} ms CPU per verification (parent + children, start-up included)")
    print(f"  rewards differing from the synthetic label: {wrong}; errors: {errors}; shortcut (no worker): {shortcuts}")
    print(f"  processes left after close(): {len(left)}" + (f" {sorted(left)}" if left else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--workers", type=int, default=None, help="math workers (default: CPU count)")
    args = parser.parse_args()
    rng = random.Random(1234)
    print(f"{os.cpu_count()} CPUs")
    run_family("mcq", {"mode": "answer_colon"}, mcq_cases(args.n, rng), args.threads,
               ({"expected_answer": "B"}, "Answer: B"))
    run_family("math", {"workers": args.workers} if args.workers else {}, math_cases(args.n, rng), args.threads,
               ({"expected_answer": "1/2"}, r"\boxed{0.5}"))  # needs a worker: start-up is in its latency
    probe = ({"question": "q", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}, "No commas.")
    for family in ("ifeval", "ifbench"):  # start-up includes importing the checkers
        run_family(family, {}, instruction_cases(args.n, rng, family), args.threads, probe)


if __name__ == "__main__":
    main()
