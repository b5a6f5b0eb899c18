"""Prime Intellect's `verifiers` (a real client, v0.4) drives gym's task=serve as a NeMo Gym resources server:
its `NeMoGymTaskset` reads NeMo Gym rows, its task's setup POSTs /seed_session, its toolset POSTs each tool
call with the session cookie, and its reward POSTs /verify with the trace turned into a Responses object.
The agent's turns are written here (the gold answer, the gold tool calls): the rest is verifiers' code."""

from __future__ import annotations

import asyncio
import json

import pytest

from gym.episodes.users import gold_actions
from tests.serve_helpers import prepare, rows_of, served

nemo_gym = pytest.importorskip("verifiers.v1.tasksets.nemo_gym")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("verifiers_data")
    prepare(path, "gsm8k", "tau2_mock")
    return path


def load_tasks(tmp_path, rows: list[dict], url: str) -> list:
    """verifiers' own loader over a NeMo Gym JSONL file, each task pointed at gym's server."""
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    config = nemo_gym.NeMoGymConfig(dataset=dataset, task=nemo_gym.NeMoGymTaskConfig(resources_url=url))
    return list(nemo_gym.NeMoGymTaskset(config).load())


def trace_of(task, turns: list) -> object:
    """A finished trace: the task's prompt, then the agent's turns as sampled messages (what a harness records)."""
    from verifiers.v1.graph import MessageNode
    from verifiers.v1.trace import Trace

    messages = list(task.data.prompt)
    nodes = [MessageNode(parent=i - 1 if i else None, message=m, sampled=False) for i, m in enumerate(messages)]
    for message, sampled in turns:
        nodes.append(MessageNode(parent=len(nodes) - 1, message=message, sampled=sampled))
    return Trace.model_construct(nodes=nodes, calls=[], state=nemo_gym.taskset.NeMoGymState(), info={},
                                 metrics={}, id="t1", mm_token_type_id_map={})


async def play(task, trace, calls: list[dict] | None = None) -> float:
    from verifiers.v1.mcp.server import _call_state
    from verifiers.v1.mcp import SharedToolsetConfig
    from verifiers.v1.types import AssistantMessage, ToolCall, ToolMessage

    await task.setup(trace, None)  # POST /seed_session with the row
    toolset = nemo_gym.toolset.NeMoGymToolset(SharedToolsetConfig())
    token = _call_state.set(trace.state)
    try:
        for number, call in enumerate(calls or []):
            result = await toolset.call_tool(call["name"], call.get("arguments") or {})  # POST /<tool>
            assert not result.is_error, result
            trace.nodes.append(type(trace.nodes[0])(parent=len(trace.nodes) - 1, sampled=True, message=AssistantMessage(
                tool_calls=[ToolCall(id=f"c{number}", name=call["name"], arguments=json.dumps(call.get("arguments") or {}))])))
            trace.nodes.append(type(trace.nodes[0])(parent=len(trace.nodes) - 1, message=ToolMessage(
                tool_call_id=f"c{number}", content=result.content[0].text)))
    finally:
        _call_state.reset(token)
    return await task.nemo_gym(trace)  # POST /verify


def test_verifiers_nemo_gym_taskset_on_gsm8k(data, tmp_path):
    from verifiers.v1.types import AssistantMessage

    rows = rows_of(data / "gsm8k" / "gsm8k.jsonl")[:2]
    nemo_rows = [{"responses_create_params": {"input": [{"role": "user", "content": r["question"]}]},
                  "question": r["question"], "expected_answer": r["expected_answer"]} for r in rows]
    with served(tmp_path / "run", data, "benchmark=gsm8k") as url:
        tasks = load_tasks(tmp_path, nemo_rows, url)
        rewards = []
        for task, row, said in zip(tasks, rows, [None, "-4"]):
            answer = said if said is not None else row["expected_answer"]
            trace = trace_of(task, [(AssistantMessage(content=f"So \\boxed{{{answer}}}."), True)])
            rewards.append(asyncio.run(play(task, trace)))
            assert trace.info["nemo_gym"]["status"] == "ok" and trace.info["nemo_gym"]["mask_sample"] is False
    assert rewards == [1.0, 0.0]


def test_verifiers_nemo_gym_taskset_on_a_tau2_benchmark(data, tmp_path):
    import requests

    rows = rows_of(data / "tau2_mock" / "tau2_mock.jsonl")[:1]
    with served(tmp_path / "run", data, "benchmark=tau2_mock", "user=mock") as url:
        opening = requests.post(f"{url}/seed_session", json={"task_id": rows[0]["task_id"]}, timeout=60).json()
        tools = [{"type": "function", **tool} for tool in opening["tools"]]
        nemo_rows = [{"responses_create_params": {"input": opening["input"], "tools": tools},
                      "task_id": rows[0]["task_id"]}]
        task = load_tasks(tmp_path, nemo_rows, url)[0]
        criteria = rows[0]["task"].get("evaluation_criteria") or {}
        closing = " ".join(["Done.", *(criteria.get("communicate_info") or [])])
        trace = trace_of(task, [])
        calls = gold_actions(rows[0], "assistant")
        reward = asyncio.run(play_then_close(task, trace, calls, closing))
    assert reward == 1.0, trace.info["nemo_gym"]
    assert trace.info["nemo_gym"]["reward_components"]


async def play_then_close(task, trace, calls, closing: str) -> float:
    from verifiers.v1.types import AssistantMessage

    original = task.nemo_gym

    async def with_closing(trace_):
        trace_.nodes.append(type(trace_.nodes[0])(parent=len(trace_.nodes) - 1, sampled=True,
                                                  message=AssistantMessage(content=closing)))
        return await original(trace_)

    task.nemo_gym = with_closing
    return await play(task, trace, calls)
