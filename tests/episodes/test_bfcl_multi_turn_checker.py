"""gym's BFCL multi-turn checker gives upstream's verdicts.

tests/fixtures/bfcl_multi_turn_expected/checker.json was computed by upstream's multi_turn_checker at the
pinned commit (tools/bfcl_multi_turn_checker_expected.py): for every tenth entry of each category, model
results made from the gold calls (as is, one call per step, a call dropped, a call made twice, a turn's
calls made a turn early, no calls) and upstream's verdict on each: valid, error type, the turn it names.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

from gym.episodes.bfcl.calls import build_instances
from gym.episodes.bfcl.checker import check_entry, play_gold
from gym.episodes.bfcl.upstream import long_context_constants
from tests.episodes.test_bfcl_multi_turn_apis import LONG_CONTEXT_PY

EXPECTED = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "bfcl_multi_turn_expected" / "checker.json")
                      .read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def long_context() -> dict:
    return long_context_constants(LONG_CONTEXT_PY.read_text(encoding="utf-8"))


def calls(turns: list) -> list:
    return [[(name, arguments) for name, arguments in turn] for turn in turns]


@pytest.mark.parametrize("category", ["base", "miss_func", "miss_param", "long_context"])
def test_verdicts_match_upstreams_checker(category):
    entries = {k: v for k, v in EXPECTED["entries"].items() if v["category"] == category}
    assert len(entries) == 20
    problems = []
    for entry_id, entry in entries.items():
        config = EXPECTED["configs"][entry["initial_config"]]
        extra = long_context() if category == "long_context" else None
        build = lambda: build_instances(entry["involved_classes"], json.loads(json.dumps(config)), extra)  # noqa: E731
        gold_turns = calls(entry["gold"])
        gold = play_gold(gold_turns, build)
        for name, case in entry["cases"].items():
            model = [[[(n, a) for n, a in step] for step in turn] for turn in case["model"]]
            got = check_entry(model, gold_turns, gold, build)
            want = {"valid": case["valid"], "error_type": case["error_type"], "turn": case["turn"]}
            if {"valid": got["valid"], "error_type": got.get("error_type"), "turn": got.get("turn")} != want:
                problems.append(f"{entry_id} {name}: gym {got.get('error_type')} turn {got.get('turn')}, upstream {want}")
    assert not problems, "\n".join(problems[:10])
