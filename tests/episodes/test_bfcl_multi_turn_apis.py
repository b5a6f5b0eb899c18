"""gym's BFCL multi-turn API classes answer and change state as upstream's own classes do.

tests/fixtures/bfcl_multi_turn_expected/<UpstreamClass>.json was computed by upstream's code at the pinned
commit (tools/bfcl_multi_turn_expected.py): every entry's ground-truth calls of the four multi-turn
categories, turn by turn, with each call's result text and the class's state after each turn, plus wrong
calls whose error texts must match too. A class with a fixture but not yet in API_CLASSES is skipped.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import pytest

from gym.episodes.bfcl.apis import API_CLASSES, STATELESS, api_class
from gym.episodes.bfcl.calls import execute, method_owners
from gym.episodes.bfcl.upstream import COMMIT, long_context_constants

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = ROOT / "fixtures" / "bfcl_multi_turn_expected"
LONG_CONTEXT_PY = (ROOT / "fixtures" / "upstream" / "raw.githubusercontent.com" / "ShishirPatil" / "gorilla" / COMMIT
                   / "berkeley-function-call-leaderboard" / "bfcl_eval" / "eval_checker" / "multi_turn_eval"
                   / "func_source_code" / "long_context.py")
CATEGORIES = ("base", "miss_func", "miss_param", "long_context")
LONG = 160  # the harness stores longer texts as their sha256


def shown(text: str):
    return text if len(text) <= LONG else {"sha256": hashlib.sha256(text.encode()).hexdigest()}


def state_shown(instance) -> object:
    return shown(json.dumps(instance.state(), sort_keys=True, separators=(",", ":"), ensure_ascii=False))


@lru_cache(maxsize=None)
def expected(name: str) -> dict:
    return json.loads((EXPECTED / f"{name}.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def long_context() -> dict:
    return long_context_constants(LONG_CONTEXT_PY.read_text(encoding="utf-8"))


def classes_with_fixture() -> list:
    return [pytest.param(path.stem, marks=() if path.stem in API_CLASSES else
                         pytest.mark.skip(reason=f"{path.stem} is not built in gym yet"))
            for path in sorted(EXPECTED.glob("*.json")) if path.stem != "checker"]  # checker.json: the checker test's


def fresh(name: str, record: dict, configs: dict):
    instance = api_class(name)()
    if name not in STATELESS:
        extra = long_context() if record["category"] == "long_context" else None
        instance.load_scenario(json.loads(json.dumps(configs[record["initial_config"]])), long_context=extra)
    return instance


def replay(name: str, entry_id: str, record: dict, configs: dict) -> tuple[object, list[str]]:
    """The entry's gold calls on a fresh gym instance: (the instance, every mismatch with upstream)."""
    instance = fresh(name, record, configs)
    instances = {name: instance}
    owners = method_owners(instances)
    problems = []
    for number, turn in enumerate(record["turns"]):
        for call in turn["calls"]:
            got = shown(execute(instances, owners, call["name"], call["arguments"]))
            if got != call["result"]:
                problems.append(f"{entry_id} turn {number} {call['name']}({call['arguments']}): {got!r} != {call['result']!r}")
        if state_shown(instance) != turn["state"]:
            problems.append(f"{entry_id} turn {number}: state {instance.state()} differs from upstream's")
    return instance, problems


@pytest.mark.parametrize("category", CATEGORIES)
@pytest.mark.parametrize("name", classes_with_fixture())
def test_gold_calls_answer_and_change_state_as_upstream(name, category):
    data = expected(name)
    entries = {k: v for k, v in data["entries"].items() if v["category"] == category}
    assert entries, f"no {category} entries for {name}"
    problems = []
    for entry_id, record in sorted(entries.items()):
        problems += replay(name, entry_id, record, data["configs"])[1]
    assert not problems, f"{len(problems)} mismatches, first ones:\n" + "\n".join(problems[:8])


@pytest.mark.parametrize("name", classes_with_fixture())
def test_wrong_calls_fail_with_upstreams_texts(name):
    data = expected(name)
    after = data["wrong_calls_after"]
    instance, problems = replay(name, after, data["entries"][after], data["configs"])
    assert not problems
    instances = {name: instance}
    owners = method_owners(instances)
    for call in data["wrong_calls"]:
        got = shown(execute(instances, owners, call["name"], call["arguments"]))
        problems += [f"{call['name']}({call['arguments']}): {got!r} != {call['result']!r}"] if got != call["result"] else []
        if "state" in call and state_shown(instance) != call["state"]:
            problems.append(f"after {call['name']}({call['arguments']}): state {instance.state()} differs")
    assert not problems, "\n".join(problems[:8])


def test_every_class_in_the_registry_has_a_fixture_and_upstreams_tools():
    """A registered class is pinned, and its tools are exactly upstream's public methods (from the doc file)."""
    for name in API_CLASSES:
        assert (EXPECTED / f"{name}.json").is_file(), f"{name} has no parity fixture"
        called = {c["name"] for e in expected(name)["entries"].values() for t in e["turns"] for c in t["calls"]}
        assert called <= set(method_owners({name: api_class(name)()})), f"{name} lacks {sorted(called - set(method_owners({name: api_class(name)()})))}"
