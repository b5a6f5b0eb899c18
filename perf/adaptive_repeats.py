"""Adaptive repeats: model calls saved, buckets kept, and bias of the adaptive estimators.

    .venv/bin/python perf/adaptive_repeats.py [--tasks 500] [--max-repeats 32] [--replicates 400]
                                              [--only runs|simulation|bound]

1. Real runs against the reference server (model=mock) whose per-task accuracies are drawn from
   Beta(0.5, 0.5) (model.mock.task_accuracy=beta:0.5:0.5): a fixed run of max_repeats per task, then
   adaptive runs (three-bucket and five-bucket). With a sampling seed every rollout (task, index) is
   the same reply in both runs, so an adaptive run is a subset of the fixed one. Reported: model
   calls, share of tasks in the same profile bucket as the fixed run, pass@1 of both with CIs.
2. Simulation (no server): many replicates of the same setting; bias and CI coverage of pass@1/pass@k
   from the adaptive estimators (gym.metrics.adaptive_estimates) against the true mean over tasks, next to the
   naive mean reward per task.
3. The best any stopping rule could do: the Bayes-optimal policy for the true prior (backward
   induction), tuned to 95 % agreement with the fixed run; shows which targets are reachable at all.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

BUCKETS = ("unsolved", "hard", "medium", "easy", "solved")
COARSE = {"unsolved": "hard", "hard": "hard", "medium": "medium", "easy": "easy", "solved": "easy"}


def real_runs(tasks: int, max_repeats: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="gym-adaptive-perf-"))
    os.environ["GYM_DATA_DIR"] = str(root / "data")
    from gym.core.config import compose
    from gym.tasks import collect, profile

    path = root / "data" / "gsm8k" / "gsm8k.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"question": f"Task {i}: a crate holds {i} apples and {i % 9 + 2} pears. "
                                                    "How many pieces of fruit are in it?",
                                        "expected_answer": str(i + i % 9 + 2)}) + "\n" for i in range(tasks)))
    base = ["task=collect", "benchmark=gsm8k", "model=mock", "progress=false", "model.mock.task_accuracy=beta:0.5:0.5",
            "model.sampling.seed=0", f"num_repeats={max_repeats}", "concurrency=64"]

    def run(name: str, *extra: str) -> tuple[dict, dict]:
        out = root / name
        summary = collect.run(compose([*base, *extra, f"+run_dir={out}"]))
        prof = profile.run(compose(["task=profile", f"rollouts={out / 'rollouts.jsonl'}", "plots=false",
                                    "report=false", f"+run_dir={out / 'profile'}"]))
        buckets = {}
        for line in open(prof["files"]["reward_profile"]):
            row = json.loads(line)
            buckets[row["task_index"]] = row["bucket"]
        summary_json = json.loads(Path(prof["files"]["profile_summary"]).read_text())
        return summary, {"buckets": buckets, "pass@1": summary_json["overall"]["pass@1"]}

    fixed, fixed_prof = run("fixed")
    print(f"fixed {max_repeats}: {fixed['model_requests']} model calls, pass@1 {fmt(fixed_prof['pass@1'])}")
    for name, label, extra in (
            ("5b", "adaptive, 5 buckets (split_extremes=true)", ["adaptive.split_extremes=true"]),
            ("3b", "adaptive, 3 buckets (defaults)", []),
            ("3b-fast", "adaptive, 3 buckets, step=1 confidence=0.93", ["adaptive.step=1", "adaptive.confidence=0.93"])):
        summary, prof = run(name, "adaptive.enabled=true", *extra)
        same = sum(prof["buckets"][t] == fixed_prof["buckets"][t] for t in fixed_prof["buckets"]) / tasks
        same3 = sum(COARSE[prof["buckets"][t]] == COARSE[fixed_prof["buckets"][t]] for t in fixed_prof["buckets"]) / tasks
        print(f"{label}: {summary['model_requests']} model calls = {fixed['model_requests'] / summary['model_requests']:.2f}x "
              f"fewer; same 5-bucket {100 * same:.1f}%, same 3-bucket {100 * same3:.1f}%; "
              f"pass@1 {fmt(prof['pass@1'])}")


def fmt(ci: dict) -> str:
    return f"{ci['value']:.2f} [{ci['ci_low']:.2f}, {ci['ci_high']:.2f}]"


def simulate(tasks: int, max_repeats: int, replicates: int, split: bool) -> None:
    from gym.rollouts.adaptive import AdaptiveRule
    from gym.metrics.adaptive_estimates import per_task
    from gym.metrics.estimators import mean_ci

    rule = AdaptiveRule(max_repeats=max_repeats, split_extremes=split)
    rng = np.random.default_rng(7)
    ks = [1, 2, 4]
    errors = {k: [] for k in ks}
    naive_errors, shifts, covered, calls = [], [], {k: 0 for k in ks}, 0
    # the population's pass@k: 1 - E[(1-p)^k] for p ~ Beta(1/2, 1/2)
    population = {k: 1 - math.exp(math.lgamma(k + 0.5) - math.lgamma(k + 1)) / math.sqrt(math.pi) for k in ks}
    for _ in range(replicates):
        p = rng.beta(0.5, 0.5, tasks)
        draws = (rng.random((tasks, max_repeats)) < p[:, None]).astype(float)
        prefixes = []
        for row in draws:
            stop = rule.wanted(list(row))
            prefixes.append(list(row[:stop]))
            calls += stop
        table = per_task(rule, prefixes, ks)
        for col, k in enumerate(ks):
            truth = float(np.mean(1 - (1 - p) ** k))  # these tasks' own pass@k: the precise yardstick for bias
            ci = mean_ci(table[:, col])
            errors[k].append(ci["value"] / 100 - truth)
            covered[k] += ci["ci_low"] / 100 <= population[k] <= ci["ci_high"] / 100
            if k == 1:  # the fixed run on the same draws, and how far the adaptive figure moved from it
                fixed = mean_ci(draws.mean(axis=1))
                shifts.append(abs(ci["value"] - fixed["value"]) / (fixed["ci_high"] - fixed["value"]))
        naive_errors.append(float(np.mean([np.mean(x) for x in prefixes])) - float(np.mean(p)))
    mode = "5 buckets" if split else "3 buckets"
    print(f"simulation, {mode}, {replicates} x {tasks} tasks: {tasks * max_repeats * replicates / calls:.2f}x fewer calls")
    for k in ks:
        e = np.array(errors[k]) * 100
        print(f"  pass@{k} (unbiased estimator): bias {e.mean():+.3f} pts (+-{2 * e.std() / math.sqrt(len(e)):.3f}), "
              f"95% CI covers the population value in {100 * covered[k] / replicates:.1f}% of replicates")
    shift = np.array(shifts)
    print(f"  pass@1 adaptive vs the fixed run on the same draws: median shift {np.median(shift):.2f}, "
          f"max {shift.max():.2f} of the fixed run's CI half-width")
    n = np.array(naive_errors) * 100
    print(f"  pass@1 as the plain mean reward per task: bias {n.mean():+.3f} pts (+-{2 * n.std() / math.sqrt(len(n)):.3f})")


def optimal_bound(max_repeats: int, split: bool, target: float = 0.95) -> None:
    """Bayes-optimal stopping for tasks drawn from Beta(1/2, 1/2), checkpoints every rollout after 1:
    the fewest expected calls at which a rule can keep `target` of tasks in the fixed run's bucket."""
    from gym.rollouts.adaptive import AdaptiveRule

    rule = AdaptiveRule(min_repeats=1, max_repeats=max_repeats, step=1, split_extremes=split)
    n = max_repeats

    def predictive(x: int, d: int, s: int, m: int) -> float:
        a, b = s + 0.5, m - s + 0.5
        return math.exp(math.lgamma(d + 1) - math.lgamma(x + 1) - math.lgamma(d - x + 1)
                        + math.lgamma(x + a) + math.lgamma(d - x + b) - math.lgamma(d + a + b)
                        - math.lgamma(a) - math.lgamma(b) + math.lgamma(a + b))

    def solve(lam: float) -> tuple[float, float]:
        value, stop = {}, {}
        for m in range(n, -1, -1):
            for s in range(m + 1):
                err = 1 - max(rule.final_buckets(s, m)) if m else 1.0
                if m == n:
                    value[s, m], stop[s, m] = 0.0, True
                    continue
                go = 1 + sum(predictive(x, 1, s, m) * value[s + x, m + 1] for x in (0, 1))
                stop[s, m] = m > 0 and lam * err <= go
                value[s, m] = lam * err if stop[s, m] else go
        alive, cost, error = {(0, 0): 1.0}, 0.0, 0.0
        for m in range(n + 1):
            nxt = {}
            for (s, _), prob in alive.items():
                if stop[s, m]:
                    cost += prob * m
                    error += prob * (1 - max(rule.final_buckets(s, m)))
                else:
                    for x in (0, 1):
                        nxt[s + x, m + 1] = nxt.get((s + x, m + 1), 0.0) + prob * predictive(x, 1, s, m)
            alive = nxt
        return n / cost, 1 - error

    low, high = 1.0, 1e5
    for _ in range(40):
        mid = math.sqrt(low * high)
        low, high = (mid, high) if solve(mid)[1] < target else (low, mid)
    saving, agree = solve(high)
    print(f"best possible ({'5' if split else '3'} buckets): {saving:.2f}x fewer calls at {100 * agree:.1f}% same bucket")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--max-repeats", type=int, default=32)
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--only", choices=("runs", "simulation", "bound"))
    args = parser.parse_args()
    if args.only in (None, "runs"):
        real_runs(args.tasks, args.max_repeats)
    if args.only in (None, "simulation"):
        for split in (True, False):
            simulate(args.tasks, args.max_repeats, args.replicates, split)
    if args.only in (None, "bound"):
        for split in (True, False):
            optimal_bound(args.max_repeats, split)


if __name__ == "__main__":
    main()
