"""task=serve as trainers' own clients call it: NeMo Gym's simple_agent sequence on an answer benchmark,
NeMo RL's /run rows, a tool call that carries its session twice, rewards safe to train on (strict mode,
mask_sample) and NeMo Gym's newer contract fields."""

from __future__ import annotations

import json
import re

import pytest
import requests

from gym.episodes.users import gold_actions
from tests.conftest import ROOT
from tests.serve_helpers import post, prepare, rows_of, served

DOC = ROOT / "docs" / "training.md"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("trainer_data")
    prepare(path, "gsm8k", "tau2_mock")
    return path


@pytest.fixture(scope="module")
def many(data, tmp_path_factory):
    with served(tmp_path_factory.mktemp("clients") / "run", data, "benchmarks=[gsm8k,tau2_mock]", "user=mock",
                "model=mock", "model.mock.accuracy=1.0") as url:
        yield url


@pytest.fixture(scope="module")
def strict(data, tmp_path_factory):
    with served(tmp_path_factory.mktemp("strict") / "run", data, "benchmark=gsm8k", "reward.strict=true") as url:
        yield url


def docs_nemo_gym_command() -> list[str]:
    """The overrides of the page's NeMo Gym server command (its fixed port left to the OS here)."""
    line = next(line for line in DOC.read_text().splitlines() if line.startswith("python -m gym task=serve benchmark="))
    return [word for word in line.split()[4:] if not word.startswith("serve.port=")]


def message_output(text: str) -> dict:
    return {"id": "resp_1", "created_at": 0, "model": "policy", "object": "response", "parallel_tool_calls": True,
            "tool_choice": "auto", "tools": [], "output": [
                {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": text, "annotations": []}]}]}


def test_simple_agent_sequence_on_the_docs_nemo_gym_config(data, tmp_path):
    """NeMo Gym's simple_agent: /seed_session (raise_for_status), the model, /verify, at the server's root."""
    rows = rows_of(data / "gsm8k" / "gsm8k.jsonl")
    with served(tmp_path / "run", data, *docs_nemo_gym_command()) as url:
        http = requests.Session()
        for row, said in ((rows[0], f"so \\boxed{{{rows[0]['expected_answer']}}}"), (rows[1], "\\boxed{-4}")):
            request = {"responses_create_params": {"input": [{"role": "user", "content": row["question"]}]},
                       "question": row["question"], "expected_answer": row["expected_answer"]}
            seeded = http.post(f"{url}/seed_session", json=request, timeout=30)
            seeded.raise_for_status()
            assert seeded.json() == {}
            verified = http.post(f"{url}/verify", json={**request, "response": message_output(said)}, timeout=30)
            verified.raise_for_status()
            assert verified.json()["reward"] == (1.0 if row is rows[0] else 0.0)
            assert verified.json()["mask_sample"] is False


def test_run_takes_nemo_rls_row_layout(many, data):
    """NeMo RL posts each row to /run: the prompt in responses_create_params.input, the gold beside it."""
    row = rows_of(data / "gsm8k" / "gsm8k.jsonl")[2]
    prompt = [{"role": "user", "content": row["question"] + "\nPut the final answer in \\boxed{}."}]
    out = post(many, "/gsm8k/run", {"responses_create_params": {"input": prompt},
                                    "expected_answer": row["expected_answer"]})
    assert out.status_code == 200, out.text
    body = out.json()
    assert body["rollout"]["prompt"] == prompt and body["status"] == "ok"
    assert body["expected_answer"] == row["expected_answer"] and body["mask_sample"] is False


def test_a_tool_call_carrying_its_session_twice_runs_the_tool(many, data):
    """The session as the cookie and as session_id in the body: the tool never gets session_id as an argument."""
    row = rows_of(data / "tau2_mock" / "tau2_mock.jsonl")[0]
    http = requests.Session()
    seeded = http.post(f"{many}/tau2_mock/seed_session", json={"task_id": row["task_id"]}).json()
    output = []
    for number, action in enumerate(gold_actions(row, "assistant")):
        body = {**(action.get("arguments") or {}), "session_id": seeded["session_id"]}
        result = http.post(f"{many}/tau2_mock/{action['name']}", json=body)
        assert result.headers["x-gym-tool-error"] == "false", result.text
        output += [{"type": "function_call", "call_id": f"c{number}", "name": action["name"],
                    "arguments": json.dumps(action.get("arguments") or {})},
                   {"type": "function_call_output", "call_id": f"c{number}", "output": result.text}]
    output.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]})
    verified = http.post(f"{many}/tau2_mock/verify", json={"responses_create_params": {"input": seeded["input"]},
                                                           "response": {"output": output}}).json()
    assert verified["reward"] == 1.0, verified
    assert verified["reward_components"] and all(0.0 <= v <= 1.0 for v in verified["reward_components"].values())


def test_an_undecided_verdict_is_masked_not_a_silent_zero(many):
    out = post(many, "/gsm8k/verify", {"row": {"expected_answer": "7", "unscorable": "no gold upstream"},
                                       "response": "\\boxed{7}"}).json()
    assert out["status"] == "verifier_error" and out["mask_sample"] is True


def test_strict_rewards_over_http(strict, data):
    """The reward hack a GRPO run found: a cut-off reply whose last number is copied from the question."""
    row = rows_of(data / "gsm8k" / "gsm8k.jsonl")[0]
    gold = row["expected_answer"]
    cut = {"choices": [{"message": {"role": "assistant", "content": f"First, she has {gold}"},
                        "finish_reason": "length"}]}
    cases = [(cut, 0.0, "truncated"), (f"The answer is {gold}", 0.0, "unmarked"),
             (f"The answer is \\boxed{{{gold}}}", 1.0, None), (f"work...\n#### {gold}", 1.0, None)]
    for response, reward, why in cases:
        out = post(strict, "/verify", {"task_index": 0, "response": response}).json()
        assert (out["reward"], out["details"].get("strict"), out["mask_sample"]) == (reward, why, False), out


def test_strict_knob_is_checked_at_the_door(data):
    from tests.conftest import assert_clean_failure, run_gym

    assert_clean_failure(run_gym("task=serve", "benchmark=gsm8k", "reward.strict=maybe",
                                 env={"GYM_DATA_DIR": str(data)}), "reward.strict")


def test_run_returns_routed_experts_beside_the_token_fields():
    from gym.model.replies import parse_chat

    body = {"prompt_token_ids": [1, 2], "choices": [{"message": {"role": "assistant", "content": "hi"},
                                                     "finish_reason": "stop", "token_ids": [3],
                                                     "routed_experts": [[[0, 5]]]}]}
    assert parse_chat(body).tokens == {"prompt_token_ids": [1, 2], "generation_token_ids": [3],
                                       "routed_experts": [[[0, 5]]]}


def test_docs_name_verls_current_keys():
    page = DOC.read_text()
    assert "reward.custom_reward_function.path=" in page and "reward.custom_reward_function.name=compute_score" in page
    assert not re.search(r"(?<![.\w])custom_reward_function\.path", page)


def test_generation_only_run_says_verification_was_skipped(many):
    out = post(many, "/gsm8k/run", {"task_index": 0, "skip_verification": True}).json()
    assert (out["reward"], out["verification_skipped"], out["mask_sample"]) == (0.0, True, True)
    assert out["response"]["output"][-1]["type"] == "message"


def test_strict_mcq_wants_its_own_marker(data, tmp_path):
    prepare(data, "mmlu")
    gold = rows_of(data / "mmlu" / "mmlu.jsonl")[0]["expected_answer"]
    with served(tmp_path / "run", data, "benchmark=mmlu", "benchmark.verifier.options.mode=auto",
                "reward.strict=true") as url:
        lone = post(url, "/verify", {"task_index": 0, "response": f"I think\n{gold}"}).json()
        marked = post(url, "/verify", {"task_index": 0, "response": f"Answer: {gold}"}).json()
    assert (lone["reward"], lone["details"].get("strict")) == (0.0, "unmarked")
    assert marked["reward"] == 1.0


def test_collect_honours_strict_rewards(data, tmp_path):
    from tests.conftest import run_gym

    run = tmp_path / "collect"
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "model.mock.accuracy=1.0", "limit=6",
                     "model.sampling.max_tokens=2", "reward.strict=true", "progress=false", f"hydra.run.dir={run}",
                     env={"GYM_DATA_DIR": str(data)})
    assert result.returncode == 0, result.stderr
    rows = rows_of(run / "rollouts.jsonl")
    cut = [row for row in rows if row["finish_reason"] == "length"]
    assert cut and all(row["reward"] == 0.0 and row["verifier"] == {"strict": "truncated"} for row in cut)


def test_a_client_that_disconnects_stops_its_rollout(data, tmp_path):
    """A /run whose client hangs up mid-rollout is counted and makes no further model call."""
    import socket
    import time

    from tests.conftest import wait_until

    with served(tmp_path / "run", data, "benchmark=tau2_mock", "user=mock", "model=mock",
                "model.mock.latency=1.0") as url:
        host, port = url.removeprefix("http://").split(":")
        body = json.dumps({"task_index": 0}).encode()
        client = socket.create_connection((host, int(port)))
        client.sendall(b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                       + str(len(body)).encode() + b"\r\n\r\n" + body)
        time.sleep(0.3)
        client.close()
        wait_until(lambda: requests.get(url + "/health").json()["counts"].get("disconnected") == 1, "disconnect", 30)
        assert requests.get(url + "/health").json()["status"] == "ok"


def test_reverify_honours_strict_rewards(data, tmp_path):
    """`python -m gym task=reverify ... reward.strict=true` scores stored replies as collect does with
    reward.strict=true: an answer that is not marked as final scores 0 (without it, the last number counts)."""
    from tests.conftest import run_gym

    run, env = tmp_path / "collect", {"GYM_DATA_DIR": str(data)}
    result = run_gym("task=collect", "benchmark=gsm8k", "model=mock", "model.mock.accuracy=1.0", "limit=4",
                     "progress=false", f"hydra.run.dir={run}", env=env)
    assert result.returncode == 0, result.stderr
    rows = rows_of(run / "rollouts.jsonl")
    unmarked = [{**row, "response": f"I think\n{row['expected_answer']}"} for row in rows]  # no \boxed{}, no Answer:
    (run / "rollouts.jsonl").write_text("".join(json.dumps(row) + "\n" for row in unmarked))
    rewards = {}
    for strict in ("true", "false"):
        out = tmp_path / f"strict_{strict}"
        result = run_gym("task=reverify", f"rollouts={run}", f"reward.strict={strict}", f"hydra.run.dir={out}", env=env)
        assert result.returncode == 0, result.stderr
        redone = rows_of(out / "rollouts.jsonl")
        assert [row["key"] for row in redone] == [row["key"] for row in rows]
        rewards[strict] = [(row["reward"], (row.get("verifier") or {}).get("strict")) for row in redone]
    assert rewards == {"true": [(0.0, "unmarked")] * len(rows), "false": [(1.0, None)] * len(rows)}
