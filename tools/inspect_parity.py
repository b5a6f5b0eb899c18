"""Compute Inspect AI's own stderr, ci (t, clustered t), ci_wilson and krippendorff_alpha on fixed numbers and
store them as tests/fixtures/stats/inspect_parity.json, which tests/metrics/test_intervals.py and
tests/verifiers/test_judge_panel.py check gym's estimators against.

inspect-ai is heavy (a web stack, many dependencies), so it is not a dev dependency: run this once in a
separate environment and commit its output.

    python3 -m venv /tmp/inspect && /tmp/inspect/bin/pip install inspect-ai numpy
    /tmp/inspect/bin/python tools/inspect_parity.py            # writes the fixture
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from inspect_ai.scorer import Score, SampleScore, ci, ci_wilson, krippendorff_alpha, stderr

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "stats" / "inspect_parity.json"


def _samples(values, clusters=None):
    return [SampleScore(score=Score(value=v), sample_id=i,
                        sample_metadata=None if clusters is None else {"cluster": clusters[i]})
            for i, v in enumerate(values)]


def _data():
    rng = random.Random(40)
    clustered_values, clustered_labels = [], []
    for cluster in range(8):  # 8 passages of 5 questions, each passage with its own difficulty
        p = rng.random()
        for _ in range(5):
            clustered_values.append(1.0 if rng.random() < p else 0.0)
            clustered_labels.append(f"p{cluster}")
    return {
        "binary_3_of_3": [1.0, 1.0, 1.0],
        "binary_7_of_10": [1, 0, 1, 1, 0, 1, 1, 1, 0, 1],
        "per_task_means": [0.75, 0.25, 1.0, 0.5],
        "continuous_50": [round(rng.random() ** 2, 4) for _ in range(50)],
    }, {"values": clustered_values, "clusters": clustered_labels}


def _ratings():
    rng = random.Random(7)
    items = []
    for _ in range(30):  # three judges, mostly agreeing on correct / incorrect
        truth = rng.choice(["C", "I"])
        items.append([truth if rng.random() < 0.8 else ("I" if truth == "C" else "C") for _ in range(3)])
    return items


def main() -> None:
    plain, clustered = _data()
    out = {"plain": {}, "clustered": {}, "krippendorff": {}}
    for name, values in plain.items():
        scores = _samples([float(v) for v in values])
        entry = {"values": [float(v) for v in values], "stderr": stderr()(scores), "ci_t": ci()(scores)}
        if all(v in (0, 1) for v in values):
            entry["ci_wilson"] = ci_wilson()(scores)
        out["plain"][name] = entry
    scores = _samples(clustered["values"], clustered["clusters"])
    out["clustered"] = {**clustered, "stderr": stderr(cluster="cluster")(scores),
                        "ci_t": ci(cluster="cluster")(scores)}
    ratings = _ratings()
    two = [r[:2] for r in ratings]
    out["krippendorff"] = {
        "three_judges": {"ratings": ratings,
                         "alpha": krippendorff_alpha()([SampleScore(score=Score(value=r), sample_id=i)
                                                         for i, r in enumerate(ratings)])},
        "two_judges": {"ratings": two,
                       "alpha": krippendorff_alpha()([SampleScore(score=Score(value=r), sample_id=i)
                                                       for i, r in enumerate(two)])},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"inspect_ai": __import__("inspect_ai").__version__, **out}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
