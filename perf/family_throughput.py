"""Throughput of the sql, translation, long_context and label verifiers, and the cost of the family
metrics in task=aggregate (win rate bootstrap, corpus BLEU, length buckets) on large rollout files.

    .venv/bin/python perf/family_throughput.py [--n 5000] [--threads 16] [--rollouts 100000]

Prints verifications per second per family (from a thread pool, as collect calls them) and the
seconds a whole aggregate takes (family metrics included) for `--rollouts` pairwise and translation rollouts.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def rate(verifier, cases, threads: int) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda case: verifier.verify(*case), cases))
    return len(cases) / (time.perf_counter() - started)


def sql_cases(root: Path, n: int, rng: random.Random) -> list:
    (root / "shop").mkdir()
    connection = sqlite3.connect(root / "shop" / "shop.sqlite")
    connection.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL)")
    connection.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                           [(i, f"c{i % 97}", rng.random() * 100) for i in range(20_000)])
    connection.commit()
    connection.close()
    cases = []
    for i in range(n):
        limit = rng.randint(1, 50)
        gold = f"SELECT customer, SUM(total) FROM orders WHERE id < {limit * 100} GROUP BY customer"
        answer = gold if i % 3 else gold.replace("SUM", "MAX")
        cases.append(({"db_id": "shop", "gold_sql": gold}, f"Here it is:\n```sql\n{answer}\n```"))
    return cases


def text_cases(n: int, rng: random.Random) -> list:
    words = "the river city museum opens early market bridge rain festival night train".split()
    cases = []
    for _ in range(n):
        reference = " ".join(rng.choice(words) for _ in range(rng.randint(8, 30))) + "."
        hypothesis = " ".join(w if rng.random() < 0.8 else rng.choice(words) for w in reference.split())
        cases.append(({"expected_answer": reference, "source_language": "en", "target_language": "de_DE"}, hypothesis))
    return cases


def graph_cases(n: int, rng: random.Random) -> list:
    cases = []
    for _ in range(n):
        gold = sorted({f"{rng.getrandbits(32):08x}" for _ in range(rng.randint(1, 40))})
        guess = gold[: max(1, len(gold) - 2)] + ["deadbeef"]
        cases.append(({"expected_answer": json.dumps(gold)}, "reasoning...\nFinal Answer: [" + ", ".join(guess) + "]"))
    return cases


def family_metrics_cost(tmp: Path, n: int, rng: random.Random) -> dict[str, float]:
    """Seconds of a whole aggregate (load included) of n rollouts: pairwise, translation as the verifier
    writes it now (with per-segment statistics), and translation rollouts without them (older files,
    scored from the texts)."""
    from gym.metrics.output import metrics_for
    from gym.verifiers import make_verifier

    verifier = make_verifier("translation")
    # 500 distinct segments of 8-30 words, verified for real; the rollouts cycle through them
    translated = [verifier.verify(row, hypothesis).details for row, hypothesis in text_cases(500, rng)]
    out = {}
    for family in ("pairwise", "translation", "translation (older rollouts)"):
        path = tmp / "rollouts.jsonl"
        with path.open("w") as handle:
            for i in range(n):
                task, rollout = divmod(i, 4)
                reward = rng.choice([0.0, 0.5, 1.0]) if family == "pairwise" else rng.random()
                if family == "pairwise":
                    details = {"family": "pairwise", "category": "hard_prompt", "outcome": "win", "valid_games": 2,
                               "games": [{}, {}], "label_model_first": "A>B", "label_model_second": "B>A"}
                else:
                    details = {**translated[task % len(translated)], "pair": f"en->{['de_DE', 'fr_FR'][task % 2]}"}
                    if family != "translation":
                        details.pop("stats")
                handle.write(json.dumps({"benchmark": "b", "model": "m", "task_index": task, "rollout_index": rollout,
                                         "key": f"k{i}", "status": "ok", "reward": reward,
                                         "extracted_answer": "win", "prompt": [{"role": "user", "content": "x" * 200}],
                                         "verifier": details}) + "\n")
        started = time.perf_counter()
        metrics, _ = metrics_for(str(path))
        out[family] = time.perf_counter() - started
        assert "family_metrics" in metrics["benchmarks"]["b"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--rollouts", type=int, default=100_000)
    args = parser.parse_args()
    rng = random.Random(0)
    from gym.verifiers import make_verifier

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        results = {
            "sql (20k-row table, GROUP BY)": rate(make_verifier("sql", {"db_root": str(root)}), sql_cases(root, args.n, rng), args.threads),
            "translation (sentence BLEU + chrF)": rate(make_verifier("translation"), text_cases(args.n, rng), args.threads),
            "long_context node_f1": rate(make_verifier("long_context", {"match": "node_f1"}), graph_cases(args.n, rng), args.threads),
            "label grade": rate(make_verifier("label", {"mode": "grade"}),
                                [({"expected_answer": "correct"}, "Fine work overall. almost")] * args.n, args.threads),
        }
        for name, value in results.items():
            print(f"{name}: {value:,.0f} verifications/s")
        for family, seconds in family_metrics_cost(root, args.rollouts, rng).items():
            print(f"aggregate of {args.rollouts:,} {family} rollouts incl. family metrics: {seconds:.2f} s")


if __name__ == "__main__":
    main()
