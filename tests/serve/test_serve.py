"""task=serve through its HTTP API: `python -m gym task=serve ...` in a subprocess, real requests.

NeMo Gym's resources-server routes for answer and episode benchmarks, gym's own layouts and answer
shapes, per-benchmark prefixes and the single-benchmark root, bad input, sessions, auth, the step
interface and /run."""

from __future__ import annotations

import json
import threading

import pytest
import requests

from gym.episodes.agents import gold_turn
from gym.episodes.users import gold_actions
from tests.conftest import assert_clean_failure, run_gym, wait_until
from tests.serve_helpers import post, prepare, rows_of, served

TOKEN = "s3cret-token-for-tests"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("serve_data")
    prepare(path, "gsm8k", "tau2_mock", "bfcl")
    return path


@pytest.fixture(scope="module")
def many(data, tmp_path_factory):
    """Three benchmarks under their prefixes; the reference server plays /run's policy."""
    with served(tmp_path_factory.mktemp("many") / "run", data, "benchmarks=[gsm8k,tau2_mock,bfcl]", "user=mock",
                "model=mock", "model.mock.accuracy=1.0") as url:
        yield url


@pytest.fixture(scope="module")
def single(data, tmp_path_factory):
    """One benchmark at the root too, few sessions with a short TTL, a bearer token."""
    with served(tmp_path_factory.mktemp("single") / "run", data, "benchmark=tau2_mock", "user=mock",
                "serve.max_sessions=3", "serve.session_ttl=1.5", "serve.token_env=GYM_TEST_TOKEN",
                env={"GYM_TEST_TOKEN": TOKEN}) as url:
        yield url


AUTH = {"Authorization": f"Bearer {TOKEN}"}


def responses_text(text: str) -> dict:
    return {"id": "resp_1", "object": "response", "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "thinking 17?"}]},
        {"type": "message", "id": "msg_1", "role": "assistant",
         "content": [{"type": "output_text", "text": text, "annotations": []}]}]}


def test_health_benchmarks_and_every_answer_shape(many, data):
    assert requests.get(many + "/health").json()["status"] == "ok"
    listed = {b["name"]: b for b in requests.get(many + "/benchmarks").json()}
    assert listed["gsm8k"]["kind"] == "answer" and listed["gsm8k"]["rows"] == len(rows_of(data / "gsm8k" / "gsm8k.jsonl"))
    assert listed["tau2_mock"]["kind"] == "episode" and "create_task" in listed["tau2_mock"]["tools"]
    assert requests.get(many + "/tau2_mock/reverify_mode").json() == "stateless"
    assert requests.get(many + "/reverify_mode").status_code == 404  # several served: name one
    row = rows_of(data / "gsm8k" / "gsm8k.jsonl")[0]
    gold = row["expected_answer"]
    shapes = [f"so \\boxed{{{gold}}}", responses_text(f"#### {gold}"), responses_text(f"#### {gold}")["output"],
              {"role": "assistant", "content": f"<think>maybe 3</think>\\boxed{{{gold}}}"},
              {"choices": [{"message": {"role": "assistant", "content": f"\\boxed{{{gold}}}"}, "finish_reason": "stop"}]}]
    for shape in shapes:
        out = post(many, "/gsm8k/verify", {"task_index": 0, "response": shape}).json()
        assert (out["reward"], out["status"], out["extracted_answer"]) == (1.0, "ok", str(gold)), out
    # NeMo Gym's layout: the row's own fields beside responses_create_params and response; the request comes back
    nemo = {"responses_create_params": {"input": [{"role": "user", "content": row["question"]}]},
            "response": responses_text("\\boxed{-1}"), "question": row["question"], "expected_answer": gold}
    out = post(many, "/gsm8k/verify", nemo).json()
    assert out["reward"] == 0.0 and out["responses_create_params"] == nemo["responses_create_params"]
    assert out["question"] == row["question"] and out["details"]["gold"] == str(gold)


def test_tool_call_benchmark_grades_the_calls_of_the_reply(many, data):
    rows = rows_of(data / "bfcl" / "bfcl.jsonl")
    index, row = next((i, r) for i, r in enumerate(rows) if r.get("tools") and r.get("ground_truth"))
    name, allowed = next(iter(row["ground_truth"][0].items()))
    arguments = {param: values[0] for param, values in allowed.items() if values and values[0] != ""}
    call = {"type": "function_call", "call_id": "c1", "name": name, "arguments": json.dumps(arguments)}
    right = post(many, "/bfcl/verify", {"task_index": index, "response": {"output": [call]}}).json()
    wrong = post(many, "/bfcl/verify", {"task_index": index, "response": {"output": [{**call, "name": "nope"}]}}).json()
    assert (right["reward"], wrong["reward"]) == (1.0, 0.0), (right, wrong)


def test_bad_input_gets_one_line_4xx_and_the_server_keeps_serving(many):
    cases = [
        (requests.post(many + "/gsm8k/verify", data=b"{not json", timeout=30), 400, "malformed JSON"),
        (post(many, "/gsmk8/verify", {}), 404, "did you mean gsm8k"),
        (post(many, "/verify", {}), 404, "several benchmarks are served"),
        (post(many, "/gsm8k/verify", {"task_index": 0}), 422, "missing field: response"),
        (post(many, "/gsm8k/verify", {"response": "x"}), 422, "missing field"),
        (post(many, "/gsm8k/verify", {"task_index": 10**6, "response": "1"}), 404, "out of range"),
        (post(many, "/gsm8k/verify", {"task_index": 0, "response": 5}), 422, "response must be"),
        (post(many, "/tau2_mock/create_task", {"title": "x"}), 404, "missing session"),
        (post(many, "/tau2_mock/no_such_tool", {}, cookies={"gym_session": "forged"}), 404, "unknown session"),
        (post(many, "/tau2_mock/step", {"session_id": "forged", "message": "hi"}), 404, "unknown session"),
        (post(many, "/gsm8k/frobnicate", {}), 404, "unknown route /frobnicate"),
        (requests.post(many + "/gsm8k/verify", data=b"x" * (17 * 1024 * 1024), timeout=60), 413, "max_body_bytes"),
    ]
    for response, status, needle in cases:
        assert response.status_code == status, (needle, response.status_code, response.text)
        body = response.json()
        assert list(body) == ["error"] and needle in body["error"] and "\n" not in body["error"], body
    seeded = post(many, "/tau2_mock/seed_session", {"task_index": 0})
    unknown = post(many, "/tau2_mock/no_such_tool", {}, cookies=seeded.cookies)
    assert unknown.status_code == 404 and "unknown tool 'no_such_tool'" in unknown.json()["error"]
    assert requests.get(many + "/health").json()["status"] == "ok"


def test_an_undecided_verify_is_verifier_error_with_the_configured_reward(many):
    before = requests.get(many + "/health").json()["counts"].get("verifier_error", 0)
    out = post(many, "/gsm8k/verify", {"row": {"expected_answer": "7", "unscorable": "no gold upstream"},
                                       "response": "\\boxed{7}"})
    assert out.status_code == 200 and out.json()["status"] == "verifier_error" and out.json()["reward"] == 0.0
    assert "unscorable" in out.json()["error"]
    assert requests.get(many + "/health").json()["counts"]["verifier_error"] == before + 1


def play_gold_over_the_contract(url: str, row: dict, prefix: str = "", headers: dict | None = None) -> dict:
    """/seed_session -> each gold call as /<tool> (the session in its cookie) -> /verify."""
    session = requests.Session()
    session.headers.update(headers or {})
    seeded = session.post(f"{url}{prefix}/seed_session", json={"task_id": row["task_id"]}).json()
    assert session.cookies.get("gym_session") == seeded["session_id"] and len(seeded["session_id"]) >= 22
    output = []
    for number, action in enumerate(gold_actions(row, "assistant")):
        result = session.post(f"{url}{prefix}/{action['name']}", json=action.get("arguments") or {})
        assert result.status_code == 200 and result.headers["x-gym-tool-error"] == "false", result.text
        output += [{"type": "function_call", "call_id": f"c{number}", "name": action["name"],
                    "arguments": json.dumps(action.get("arguments") or {})},
                   {"type": "function_call_output", "call_id": f"c{number}", "output": result.text}]
    criteria = row["task"].get("evaluation_criteria") or {}
    closing = " ".join(["Done.", *(criteria.get("communicate_info") or [])])
    output.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": closing}]})
    verified = session.post(f"{url}{prefix}/verify", json={"responses_create_params": {"input": seeded["input"]},
                                                           "response": {"output": output}})
    assert verified.status_code == 200, verified.text
    return verified.json()


def test_episode_contract_isolated_sessions_and_the_single_benchmark_root(single, data):
    rows = rows_of(data / "tau2_mock" / "tau2_mock.jsonl")
    assert requests.get(single + "/benchmarks").status_code == 401  # the token is wanted, even on loopback
    assert requests.get(single + "/health").status_code == 200
    out = play_gold_over_the_contract(single, rows[0], "", AUTH)  # at the root: one benchmark served
    assert (out["reward"], out["status"]) == (1.0, "ok") and out["details"]["db_match"] is True
    # two sessions of one task: the writes of one are not seen by the other (each its own copy)
    first = post(single, "/tau2_mock/seed_session", {"task_index": 0}, headers=AUTH)
    second = post(single, "/tau2_mock/seed_session", {"task_index": 0}, headers=AUTH)
    assert first.json()["session_id"] != second.json()["session_id"]
    action = gold_actions(rows[0], "assistant")[0]
    beside = {**action["arguments"], "session_id": first.json()["session_id"]}  # no cookie: the id beside the args
    assert post(single, f"/{action['name']}", beside, headers=AUTH).ok
    unchanged = post(single, "/verify", {"response": {"output": []}}, headers=AUTH, cookies=second.cookies).json()
    assert unchanged["details"]["db_match"] is False and unchanged["reward"] == 0.0
    closed = post(single, "/verify", {"response": {"output": []}}, headers=AUTH, cookies=second.cookies)
    assert closed.status_code == 404  # /verify closed it
    changed = post(single, "/verify", {"session_id": first.json()["session_id"], "response": {"output": []}},
                   headers=AUTH).json()
    assert changed["details"]["db_match"] is True  # the call ran in the session named beside its arguments
    third = post(single, "/seed_session", {"task_index": 2}, headers=AUTH).json()["session_id"]
    assert post(single, "/close", {"session_id": third}, headers=AUTH).json() == {"closed": True, "already_closed": False}
    again = post(single, "/close", {"session_id": third}, headers=AUTH)  # idempotent, as NeMo Gym's /close
    assert again.status_code == 200 and again.json() == {"closed": False, "already_closed": True}
    assert post(single, "/close", {"session_id": "never-opened-here"}, headers=AUTH).status_code == 404


def test_max_sessions_gives_429_and_idle_sessions_expire(single):
    opened = [post(single, "/seed_session", {"task_index": 1}, headers=AUTH) for _ in range(3)]
    assert all(r.status_code == 200 for r in opened)
    over = post(single, "/seed_session", {"task_index": 1}, headers=AUTH)
    assert over.status_code == 429 and "serve.max_sessions=3" in over.json()["error"]
    wait_until(lambda: requests.get(single + "/health").json()["sessions"]["open"] == 0, "idle sessions closed", 30)
    assert post(single, "/seed_session", {"task_index": 1}, headers=AUTH).status_code == 200
    health = requests.get(single + "/health").json()["sessions"]
    assert health["refused"] >= 1 and health["expired"] >= 3


def play_gold_steps(step, row: dict, seen: list[dict]) -> dict:
    """Step an episode with the gold replies until it ends; `step(message)` posts one: the last step's answer."""
    for _ in range(20):
        turn = gold_turn(row, seen)
        message = {"role": "assistant", "content": turn.text}
        if turn.tool_calls:
            message["tool_calls"] = [call.to_chat(n) for n, call in enumerate(turn.tool_calls)]
        answer = step(message)
        seen += [message, *answer["observation"]]
        if answer["terminated"] or answer["truncated"]:
            return answer
        assert answer["reward"] is None
    raise AssertionError("the episode did not end in 20 steps")


def test_step_interface_plays_an_episode_with_the_simulated_user(many, data):
    rows = rows_of(data / "tau2_mock" / "tau2_mock.jsonl")
    reset = post(many, "/tau2_mock/reset", {"task_index": 0, "seed": 300}).json()
    assert {t["name"] for t in reset["tools"]} >= {"create_task"} and reset["terminated"] is False
    seen, sid = list(reset["observation"]), reset["session_id"]
    assert seen[0]["role"] == "system" and seen[-1]["role"] == "user"  # the mock user spoke first
    step = play_gold_steps(lambda message: post(many, "/tau2_mock/step", {"session_id": sid, "message": message}).json(),
                           rows[0], seen)
    assert (step["reward"], step["info"]["termination"], step["info"]["status"]) == (1.0, "user_stop", "ok")
    assert post(many, "/tau2_mock/step", {"session_id": sid, "message": "again"}).status_code == 404  # closed
    one = post(many, "/gsm8k/reset", {"task_index": 0}).json()
    assert one["observation"][-1]["role"] == "user"
    gold = rows_of(data / "gsm8k" / "gsm8k.jsonl")[0]["expected_answer"]
    done = post(many, "/gsm8k/step", {"session_id": one["session_id"], "message": f"\\boxed{{{gold}}}"}).json()
    assert (done["reward"], done["terminated"]) == (1.0, True)


def test_step_sessions_close_as_nemo_gyms_gymnasium_agent_closes_them(many, data):
    """NeMo Gym's gymnasium_agent: /reset, /step on the session's cookie, and, when /reset's info says
    `supports_explicit_close`, /close with an empty body after the rollout, finished or failed."""
    row = rows_of(data / "tau2_mock" / "tau2_mock.jsonl")[0]
    agent = requests.Session()  # carries the session cookie, as the agent's client does

    def closed() -> int:
        return requests.get(many + "/health").json()["sessions"]["closed"]

    reset = agent.post(f"{many}/tau2_mock/reset", json={"task_index": 0, "seed": 300}).json()
    assert reset["info"]["supports_explicit_close"] is True
    before = closed()  # a failed rollout (its model call failed): closed mid-episode, its state let go
    assert agent.post(f"{many}/tau2_mock/close", json={}).json() == {"closed": True, "already_closed": False}
    assert closed() == before + 1
    assert agent.post(f"{many}/tau2_mock/step", json={"message": "still there?"}).status_code == 404
    reset = agent.post(f"{many}/tau2_mock/reset", json={"task_index": 0, "seed": 300}).json()
    last = play_gold_steps(lambda message: agent.post(f"{many}/tau2_mock/step", json={"message": message}).json(),
                           row, list(reset["observation"]))
    assert last["reward"] == 1.0 and last["terminated"] is True  # the last step closed the session
    done = agent.post(f"{many}/tau2_mock/close", json={})  # the agent's cleanup after a finished rollout: no error
    assert done.status_code == 200 and done.json() == {"closed": False, "already_closed": True}
    assert closed() == before + 2


def test_run_plays_answers_and_episodes_against_the_policy(many, data):
    out = post(many, "/gsm8k/run", {"task_index": 1}).json()
    assert out["reward"] == 1.0 and out["status"] == "ok"  # model.mock.accuracy=1.0: the gold answer
    assert out["response"]["output"][-1]["type"] == "message" and out["rollout"]["task_index"] == 1
    assert out["responses_create_params"]["input"][-1]["role"] == "user"
    episode = post(many, "/tau2_mock/run", {"task_index": 0, "seed": 300}).json()
    assert episode["reward"] == 1.0 and episode["rollout"]["episode"]["termination"] == "user_stop"
    kinds = {item["type"] for item in episode["response"]["output"]}
    assert {"function_call", "function_call_output", "message"} <= kinds
    assert all(item.get("id") for item in episode["response"]["output"])
    aggregated = post(many, "/gsm8k/aggregate_metrics", {"verify_responses": [
        {"_ng_task_index": 0, "reward": 1.0}, {"_ng_task_index": 0, "reward": 0.0}, {"_ng_task_index": 1, "reward": 1.0},
        {"_ng_task_index": 1, "reward": 1.0}]}).json()
    assert aggregated["agent_metrics"]["mean/reward"] == 0.75 and aggregated["agent_metrics"]["pass@2"] == 1.0
    assert len(aggregated["group_level_metrics"]) == 2


def test_concurrent_clients_get_their_own_answers(many, data):
    rows = rows_of(data / "gsm8k" / "gsm8k.jsonl")
    results: dict[int, float] = {}

    def client(index: int) -> None:
        row = rows[index % len(rows)]
        answer = row["expected_answer"] if index % 2 else "-12345"
        results[index] = post(many, "/gsm8k/verify", {"task_index": index % len(rows),
                                                     "response": f"\\boxed{{{answer}}}"}).json()["reward"]

    threads = [threading.Thread(target=client, args=(i,)) for i in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {i: float(i % 2) for i in range(32)}


def test_command_line_checks(data):
    assert_clean_failure(run_gym("task=serve", "benchmark=gsm8k", "serve.prot=1"), "serve.port")
    assert_clean_failure(run_gym("task=serve", "benchmark=gsm8k", "serve.max_sessions=lots"), "max_sessions")
    refused = run_gym("task=serve", "benchmark=gsm8k", "serve.host=0.0.0.0", env={"GYM_DATA_DIR": str(data)})
    assert_clean_failure(refused, "serve.token_env", "allow_unauthenticated")
    missing = run_gym("task=serve", "benchmark=gsm8k", "serve.token_env=GYM_NO_SUCH_VAR", env={"GYM_DATA_DIR": str(data)})
    assert_clean_failure(missing, "GYM_NO_SUCH_VAR is not set")
    assert_clean_failure(run_gym("task=serve", "benchmarks=[aime24]", env={"GYM_DATA_DIR": str(data)}),
                         "aime24 is not prepared")


def test_a_judged_benchmark_is_graded_by_the_judge_endpoint(tmp_path):
    data = tmp_path / "data"
    prepare(data, "simpleqa")
    assert_clean_failure(run_gym("task=serve", "benchmark=simpleqa", env={"GYM_DATA_DIR": str(data)}), "judge=")
    gold = rows_of(data / "simpleqa" / "simpleqa.jsonl")[0]["expected_answer"]
    with served(tmp_path / "run", data, "benchmark=simpleqa", "judge=mock") as url:
        right = post(url, "/verify", {"task_index": 0, "response": f"Answer: {gold}"}).json()
        wrong = post(url, "/verify", {"task_index": 0, "response": "Answer: Atlantis"}).json()
    assert (right["reward"], wrong["reward"]) == (1.0, 0.0), (right, wrong)
    assert right["details"]["judged"] is True and right["details"]["judge_model"] == "gym-mock-judge"
