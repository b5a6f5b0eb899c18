"""gym's ToolSandbox against upstream's own code (apple/ToolSandbox at the pinned commit).

tests/fixtures/toolsandbox/expected.json.gz was written by tools/toolsandbox_expected.py, which played
scripted conversations (the gold-ish play read off each scenario's milestones, and perturbations of it)
through upstream's execution environment and scored them with upstream's Evaluation, on the 95 base
scenarios that need no RapidAPI tool and their scrambled-name variants; and ran a battery of tool calls
(every tool, right and wrong) in one world.
Here gym replays the same plays: the message log, every database's state at every message, and the
evaluation (similarity, milestone and minefield mappings, turn count) must be upstream's.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from pathlib import Path

import pytest

from gym.episodes.toolsandbox.env import ToolSandboxEnvironment
from gym.episodes.toolsandbox.gold import chat
from gym.episodes.toolsandbox.matcher import evaluate
from gym.episodes.toolsandbox.world import NAMESPACES, SANDBOX

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT.parent / "benchmarks" / "toolsandbox" / "scenarios.json.gz"
EXPECTED = json.loads(gzip.decompress((ROOT / "fixtures" / "toolsandbox" / "expected.json.gz").read_bytes()))
ADDRESS = re.compile(r" at 0x[0-9A-F]+>")  # upstream's error text names a polars object's memory address


def digest(rows: list[dict]) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def trajectory(env: ToolSandboxEnvironment, row: dict, steps: list[dict]) -> list[dict]:
    return chat(env.initial_messages(row), steps)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    home = tmp_path_factory.mktemp("toolsandbox")
    (home / "scenarios.json.gz").write_bytes(SCENARIOS.read_bytes())
    return ToolSandboxEnvironment(home / "rows.jsonl")


def _states(world, first: int) -> dict:
    states = {}
    for namespace in NAMESPACES:
        if namespace == SANDBOX:
            continue
        changes, previous = [], None
        for index in range(first, world.max_index + 1):
            now = digest(world.rows(namespace, index))
            if now != previous:
                changes.append([index, now])
                previous = now
        states[namespace] = changes
    return states


PLAYS = [(name, play) for name, plays in sorted(EXPECTED["plays"].items()) for play in sorted(plays)
         if "upstream_error" not in plays[play]]


def test_the_fixture_covers_every_base_scenario_without_rapid_api_and_its_scrambled_names():
    document = json.loads(gzip.decompress(SCENARIOS.read_bytes()))
    chosen = {n for n, s in document["scenarios"].items() if not s["rapid_api_tools"] and (
        "NO_DISTRACTION_TOOLS" in s["categories"] or "TOOL_NAME_SCRAMBLED" in s["categories"])}
    assert set(EXPECTED["plays"]) == chosen and len(chosen) == 95 + 79  # 16 scrambled variants offer RapidAPI
    assert document["commit"] == EXPECTED["commit"]


@pytest.mark.parametrize("name,play", PLAYS, ids=[f"{n}-{p}" for n, p in PLAYS])
def test_plays_match_upstream(env, name, play):
    want = EXPECTED["plays"][name][play]
    row = {"scenario": name, "env_file": "scenarios.json.gz"}
    world = env.replay(row, trajectory(env, row, want["steps"]))
    first = world.first_user_index
    assert (first, world.max_index) == (want["first_user_index"], want["max_index"])
    def normal(rows: list[dict]) -> list[dict]:
        return [{k: ADDRESS.sub(">", v) if isinstance(v, str) else v for k, v in m.items()
                 if k != "sandbox_message_index"} for m in rows]

    assert normal(world.messages[first:]) == normal(want["messages"])
    assert _states(world, first) == want["states"]
    scenario = env.scenario(row)
    got = evaluate(world, scenario.world["milestones"], scenario.world["minefields"])
    expected = want["evaluation"]
    for key in ("similarity", "milestone_similarity", "minefield_similarity"):
        assert got[key] == pytest.approx(expected[key], abs=1e-7), key
    for key in ("milestone_mapping", "minefield_mapping"):
        assert {k: [v[0], pytest.approx(v[1], abs=1e-7)] for k, v in got[key].items()} == expected[key], key
    assert got["turn_count"] == expected["turn_count"]


def test_tool_battery_matches_upstream(env):
    """Every tool, with right and wrong arguments, in one world: upstream's answers (content, exception,
    trace) and final databases."""
    battery = EXPECTED["tools"]
    row = {"scenario": battery["scenario"], "env_file": "scenarios.json.gz"}
    steps = [{"agent": [{"id": f"call_t{n}", "name": name, "arguments": arguments}]}
             for n, (name, arguments) in enumerate(battery["calls"])]
    every_tool = {name: name for name, _ in battery["calls"]}  # upstream's console runs any tool it imports
    world = env.replay(row, trajectory(env, row, steps), names=every_tool, capped=False)  # 126 messages
    answers = [{k: v for k, v in m.items() if k not in ("sandbox_message_index", "visible_to")}
               for m in world.messages if m["sender"] == "EXECUTION_ENVIRONMENT"]
    assert len(answers) == len(battery["answers"])
    for (name, arguments), got, want in zip(battery["calls"], answers, battery["answers"]):
        normal = {k: ADDRESS.sub(">", v) if isinstance(v, str) else v for k, v in want.items()}
        mine = {k: ADDRESS.sub(">", v) if isinstance(v, str) else v for k, v in got.items()}
        assert mine == normal, (name, arguments)
    assert {ns: digest(world.rows(ns)) for ns in battery["final_states"]} == battery["final_states"]


def test_snapshot_similarity_is_upstreams_to_the_bit():
    """300 random snapshots and targets (ROUGE-L, exact-match, contains and always-one columns, 1-3 rows)
    scored by upstream's snapshot_similarity (polars Float32 arithmetic): gym's values are the same floats
    but for the last exp, where numpy's own differs by an ulp between versions (upstream pins numpy 1.26)."""
    from gym.episodes.toolsandbox.similarity import measures_for, snapshot_similarity

    cases = EXPECTED["similarities"]
    assert len(cases) == 300 and 0 < sum(0 < c["similarity"] < 1 for c in cases)
    for case in cases:
        columns = list(case["target"][0])
        overrides = {"content": {"name": "column_contains_similarity"}} if case["contains"] else {}
        target = {"schema": {c: "String" for c in columns}, "rows": case["target"]}
        got = snapshot_similarity(case["snapshot"], target, measures_for("SANDBOX", overrides))
        assert got == pytest.approx(case["similarity"], rel=0, abs=2e-16)


def test_the_assignment_matches_scipys_on_larger_tables():
    """The brute-force assignment (upstream's targets have at most 2 rows) and scipy's, which upstream
    calls, agree on random 3-6 row cost matrices with infinite (impossible) pairs."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    from gym.episodes.toolsandbox.similarity import _assign

    draw = np.random.default_rng(0)
    for _ in range(200):
        n = int(draw.integers(3, 7))
        cost = draw.random((n, n)) * 3
        cost[draw.random((n, n)) < 0.3] = np.inf
        try:
            rows, columns = linear_sum_assignment(cost)
            want = float(np.exp(-cost[rows, columns].mean()))
        except ValueError:
            want = None
        got = _assign(cost)
        assert (got is None and want is None) or got == pytest.approx(want, abs=1e-12)
