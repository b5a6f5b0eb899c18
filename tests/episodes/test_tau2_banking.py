"""τ²'s banking_knowledge domain in gym answers, hashes and scores as upstream's own evaluator does.

The expected values in tests/fixtures/tau2_expected/banking_knowledge.json were computed by upstream's code
at the pinned commit in the bm25_grep retrieval form (tools/tau2_banking_expected.py): every fixture task's
gold actions, variants that must fail, and probes of the discoverable-tool rules.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest

from gym.core.errors import TaskNotSent
from gym.episodes.tau2.env import Tau2Environment
from gym.episodes.tau2.state import replay
from tests.banking_helpers import prepare_form, tie_groups
from tests.conftest import run_gym

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT / "fixtures" / "upstream"
ALL = json.loads((ROOT / "fixtures" / "tau2_expected" / "banking_knowledge.json").read_text())
WANT = ALL["tasks"]
MISSING_TOOL = "some_new_tool_0001"  # a discoverable tool gym does not implement (every current one it does)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    path = prepare_form(tmp_path_factory, "bm25_grep")
    return path, {row["task_id"]: row for row in map(json.loads, path.read_text().splitlines())}


def play(env: Tau2Environment, row: dict, want: dict) -> tuple[list[dict], list[str], object]:
    state = env.reset(row)
    trajectory = env.initial_messages(row) + [{"role": "user", "content": "I need help with my request."}]
    hashes = []
    for number, (name, arguments, requestor) in enumerate(want["calls"]):
        call_id = f"gold-{number}"
        trajectory.append({"role": requestor, "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        output = env.call(state, name, arguments, requestor)
        trajectory.append({"role": "tool", "tool_call_id": call_id, "content": output.content})
        hashes.append(hashlib.sha256(output.content.encode()).hexdigest())
    trajectory += [{"role": "assistant", "content": "All done."}, {"role": "user", "content": "Thanks. ###STOP###"}]
    return trajectory, hashes, state


CASES = [pytest.param(task, case, id=f"{task}-{case}") for task, cases in sorted(WANT.items()) for case in sorted(cases)]


@pytest.mark.parametrize("task_id,case", CASES)
def test_scores_outputs_and_hashes_as_upstream(prepared, task_id, case):
    path, rows = prepared
    want = WANT[task_id][case]
    env = Tau2Environment(path)
    trajectory, hashes, state = play(env, rows[task_id], want)
    assert hashes == want["tool_output_sha256"]  # every tool answered upstream's exact text
    for final in (state, None):  # live, and from the stored trajectory
        score = env.score(rows[task_id], trajectory, "user_stop", final)
        assert score.reward == want["reward"], score.details
        assert score.details["breakdown"] == want["breakdown"]
    assert list(state.hashes()) == [want["db_hash"], want["user_db_hash"]]
    replayed = env._fresh(rows[task_id])
    replay(replayed, trajectory)
    assert list(replayed.hashes()) == [want["db_hash"], want["user_db_hash"]]


def test_gold_is_complete_and_tasks_gym_cannot_run_are_not_sent(prepared):
    """Upstream scores 1 on every fixture task's gold; a task whose gold actions need a discoverable tool
    gym lacks (a later upstream commit's) is refused with the tools it needs (collect leaves it out,
    saying why), never scored wrongly."""
    path, rows = prepared
    assert all(cases["gold"]["reward"] == 1.0 and cases["reads"]["reward"] == 1.0 for cases in WANT.values())
    row = json.loads(json.dumps(rows["task_046"]))
    row["task"]["evaluation_criteria"]["actions"].append(
        {"name": "call_discoverable_agent_tool", "arguments": {"agent_tool_name": MISSING_TOOL}, "requestor": "assistant"})
    env = Tau2Environment(path)
    for step in (env.initial_messages, env.reset):
        with pytest.raises(TaskNotSent, match=MISSING_TOOL):
            step(row)


def test_prepare_keeps_every_task_and_offers_the_variants_tools(prepared):
    path, rows = prepared
    assert sorted(rows) == sorted(WANT)
    data = json.loads((path.parent / "banking_bm25_grep.env.json").read_text())
    names = [schema["name"] for schema in data["tools"]]
    assert names[-2:] == ["KB_search", "grep"] and "shell" not in names
    assert {s["name"] for s in data["user_tools"]} == {"apply_for_credit_card", "submit_referral",
                                                        "call_discoverable_user_tool", "list_discoverable_user_tools",
                                                        "request_human_agent_transfer", "submit_transaction"}
    assert "KB_search" in data["policy"] and "{{component" not in data["policy"]
    listing = json.loads(next((MIRROR / "api.github.com").rglob("trees/*")).read_text())["tree"]
    assert [d["id"] + ".json" for d in data["documents"]] == [e["path"] for e in listing]
    assert len(data["discoverable"]["user"]) == 4 and len(data["discoverable"]["agent"]) > 40


@pytest.mark.parametrize("tool", ["bm25", "grep"])
def test_retrieval_ranks_as_upstreams_pipelines(prepared, tool):
    """KB_search (BM25) and grep rank the knowledge base as upstream's bm25 and grep pipelines: the same
    documents with the same scores in the same order (up to the order of equal scores at the cut-off)."""
    from gym.episodes.tau2.banking.kb import knowledge_base

    path, _ = prepared
    data = json.loads((path.parent / "banking_bm25_grep.env.json").read_text())
    kb = knowledge_base(("test", str(path)), data["documents"])
    for query, want in ALL["retrieval"][tool].items():
        got = kb.bm25_search(query) if tool == "bm25" else kb.grep(query)
        got_groups, want_groups = tie_groups(got), tie_groups(want)
        assert [s for s, _ in got_groups] == [s for s, _ in want_groups], query
        for (_, mine), (_, theirs) in zip(got_groups[:-1], want_groups[:-1]):
            assert mine == theirs, query


def test_retrieval_tools_answer_in_upstreams_format(prepared):
    """The tools' text: numbered title, id, score and content; KB_search's timing line; grep's no-match
    line; a retrieval tool the variant does not offer is refused."""
    path, rows = prepared
    env = Tau2Environment(path)
    state = env.reset(rows["task_001"])
    query = "gold rewards card annual fee"
    found = env.call(state, "KB_search", {"query": query}).content
    top, score = ALL["retrieval"]["bm25"][query][0]
    data = json.loads((path.parent / "banking_bm25_grep.env.json").read_text())
    title = next(d["title"] for d in data["documents"] if d["id"] == top)
    assert found.startswith(f"1. {title}\n   ID: {top}\n   Score: {score:.4f}\n   Content: ")
    # upstream's pipeline times its empty reranking step too (tests/fixtures/tau2_expected/banking_alltools.json)
    assert re.fullmatch(r"\[Timing: retrieval=\d+ms, reranking=0ms, total=\d+ms\]", found.rsplit("\n", 1)[-1])
    assert env.call(state, "grep", {"pattern": "zzzz"}).content == "No matches found for pattern: zzzz"
    refused = env.call(state, "shell", {"command": "ls"})
    assert refused.error and refused.content == "Error: Tool 'shell' not found."


def gym(*args: str) -> subprocess.CompletedProcess:
    return run_gym(*args, cwd=ROOT.parent, timeout=600, off_checkout=True)


def test_e2e_offline_through_the_command_line(tmp_path):
    """The documented offline run: prepare from the fixtures, the reference agent and mock user, every
    task run and scored; task=reverify scores the stored episodes the same; task=search finds it."""
    done = gym("task=e2e", "benchmark=banking_bm25_grep", "model=mock", "user=mock", "data.mirror=tests/fixtures/upstream",
               f"data.root={tmp_path}/data", f"output={tmp_path}/rollouts.jsonl", "num_repeats=1", "progress=false",
               f"hydra.run.dir={tmp_path}/run")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    assert len(rows) == len(WANT) and all(r["status"] == "ok" for r in rows)
    assert sum(r["reward"] for r in rows) >= len(WANT) // 2  # the reference agent and mock user solve most
    again = gym("task=reverify", f"rollouts={tmp_path}/rollouts.jsonl", f"data.root={tmp_path}/data",
                f"hydra.run.dir={tmp_path}/rev")
    assert again.returncode == 0, again.stderr[-2000:]
    report = json.loads((tmp_path / "rev" / "reverify.json").read_text())
    assert report["reverified"] == len(rows) and report["changed"] == 0
    found = gym("task=search", "query=banking", "format=json", f"hydra.run.dir={tmp_path}/search")
    assert found.returncode == 0 and "banking_bm25_grep" in found.stdout


def test_episodes_never_change_the_shared_parsed_database(prepared):
    """Every case of every fixture task (writes, task data merged in, tools of both sides) leaves the parsed
    database the episodes share as the file has it."""
    from gym.episodes.tau2.env import load_domain_file
    from gym.episodes.tau2.records import db_hash

    path, rows = prepared
    env = Tau2Environment(path)
    parsed = load_domain_file(path.parent / "banking_bm25_grep.env.json")
    before = db_hash(parsed["db"])
    for task_id, cases in WANT.items():
        for want in cases.values():
            trajectory, _, state = play(env, rows[task_id], want)
            env.score(rows[task_id], trajectory, "user_stop")
    assert db_hash(parsed["db"]) == before
