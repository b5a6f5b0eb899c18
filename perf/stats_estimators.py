"""Timing of the error-bar estimators on synthetic data at RL scale (what aggregate, compare and noise add).

    .venv/bin/python perf/stats_estimators.py [--tasks 100000] [--repeats 8]

Prints seconds per step: the interval of one metric (Wilson / t), the cluster-robust interval (1,000
clusters), the repeats split, a paired comparison with McNemar and the power statement, the noise floor,
and the agreement of 3 judges over 10,000 items.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def timed(label: str, fn) -> None:
    start = time.perf_counter()
    fn()
    print(f"{label:<58} {time.perf_counter() - start:8.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=8)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    tasks, k = args.tasks, args.repeats
    rates = rng.beta(0.7, 0.7, size=tasks)
    task = np.repeat(np.arange(tasks), k)
    reward = (rng.random(tasks * k) < rates[task]).astype(float)
    per_task = np.bincount(task, reward) / k

    from gym.metrics import intervals, paired, repeats
    from gym.metrics.agreement import cohen_kappa, krippendorff_alpha
    from gym.metrics.noise import flip_rate

    timed(f"Wilson interval, {tasks:,} 0/1 per-task values", lambda: intervals.interval(per_task >= 0.5))
    timed(f"t interval, {tasks:,} per-task means", lambda: intervals.interval(per_task))
    clusters = rng.integers(0, 1000, size=tasks)
    timed(f"cluster-robust interval, {tasks:,} tasks in 1,000 clusters", lambda: intervals.interval(per_task, clusters))
    timed(f"repeats split, {tasks * k:,} rollouts", lambda: repeats.variance_split(task, reward, tasks))
    timed("import statsmodels (compare=, judges=, once a process)", lambda: (
        __import__("statsmodels.stats.power"), __import__("statsmodels.stats.contingency_tables"),
        __import__("statsmodels.stats.inter_rater")))
    other = np.clip(per_task + rng.normal(0, 0.1, size=tasks), 0, 1)
    timed(f"paired t + McNemar + power, {tasks:,} paired tasks", lambda: (
        paired.paired_t(other - per_task), paired.mcnemar(per_task >= 0.5, other >= 0.5),
        paired.power_statement(per_task, other, (task, reward, tasks), (task, reward, tasks), 1.0)))
    timed(f"noise floor (flip rate), {tasks * k:,} rollouts", lambda: flip_rate(task, reward, tasks))
    verdicts = [["correct" if rng.random() < 0.8 else "incorrect" for _ in range(3)] for _ in range(10_000)]
    timed("Cohen's kappa x3 + Krippendorff's alpha, 3 judges x 10,000 items", lambda: (
        [cohen_kappa([v[i] for v in verdicts], [v[j] for v in verdicts]) for i, j in ((0, 1), (0, 2), (1, 2))],
        krippendorff_alpha(verdicts)))


if __name__ == "__main__":
    main()
