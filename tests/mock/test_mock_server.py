"""gym's reference server, exercised over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from gym.mock.policy import AnswerPolicy, UNKNOWN_ANSWER
from gym.mock.tasks import TaskIndex
from gym.mock.server import FAULTS, MockServer
from tests.conftest import wait_until

MATH_TEMPLATE = "Solve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{{}}.\n\n{question}"
ANSWER = re.compile(r"\\boxed\{(.*)\}\.\nAnswer: (.*)$", re.S)


def math_rows(count: int, start: int = 0) -> list[dict]:
    return [{"question": f"Task {n}: Ana has {n + 3} marbles and buys {2 * n + 1} more at the fair. "
                         f"How many marbles does she have now?", "expected_answer": str(3 * n + 4), "metadata": {}}
            for n in range(start, start + count)]


MCQ_ROW = {"question": "Which planet is known as the red planet in our solar system?",
           "options": {"A": "Venus", "B": "Mars", "C": "Jupiter", "D": "Saturn"}, "expected_answer": "B", "metadata": {}}
TEXT_ROWS = [{"question": f"Name the capital city of country number {n} in the atlas list.",
              "expected_answer": city, "metadata": {}} for n, city in enumerate(["Paris", "Rome", "Oslo", "Lima"])]
LATEX_ROW = {"question": "Simplify the fraction six over eight and give it in lowest terms please.",
             "expected_answer": "\\frac{3}{4}", "metadata": {}}
ROWS = math_rows(200) + [MCQ_ROW, LATEX_ROW] + TEXT_ROWS


def chat(question: str, **extra) -> dict:
    return {"model": "gym-mock", "messages": [{"role": "user", "content": MATH_TEMPLATE.format(question=question)}], **extra}


def final_answer(content: str) -> str | None:
    match = ANSWER.search(content)
    if not match:
        return None
    assert match.group(1) == match.group(2)
    return match.group(2)


@pytest.fixture(scope="module")
def server():
    with MockServer(rows=ROWS, accuracy=0.7, seed=3) as srv:
        yield srv


@pytest.fixture()
def http():
    with requests.Session() as session:
        yield session


def test_models_endpoint(server, http):
    body = http.get(f"{server.base_url}/models", timeout=5).json()
    assert body["object"] == "list"
    (model,) = body["data"]
    assert model["id"] == "gym-mock" and model["object"] == "model"
    assert model["owned_by"] and model["max_model_len"] > 0


def test_chat_completion_shape_and_usage(server, http):
    response = http.post(f"{server.base_url}/chat/completions", json=chat(ROWS[0]["question"], seed=1), timeout=5)
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion" and body["model"] == "gym-mock" and body["id"] and body["created"]
    (choice,) = body["choices"]
    assert choice["index"] == 0 and choice["finish_reason"] == "stop" and choice["message"]["role"] == "assistant"
    assert final_answer(choice["message"]["content"]) is not None
    usage = body["usage"]
    assert usage["prompt_tokens"] == len(chat(ROWS[0]["question"])["messages"][0]["content"].split())
    assert usage["completion_tokens"] == len(choice["message"]["content"].split()) > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_responses_and_completions_shapes(server, http):
    question = ROWS[1]["question"]
    body = http.post(f"{server.base_url}/responses", timeout=5, json={
        "model": "gym-mock", "instructions": "Be brief.",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": f"Q: {question}"}]}]}).json()
    assert body["object"] == "response" and body["status"] == "completed"
    (message,) = body["output"]
    assert message["type"] == "message" and message["content"][0]["type"] == "output_text"
    assert final_answer(message["content"][0]["text"]) is not None
    assert body["usage"]["input_tokens"] > 0 and body["usage"]["output_tokens"] > 0
    assert body["usage"]["total_tokens"] == body["usage"]["input_tokens"] + body["usage"]["output_tokens"]

    body = http.post(f"{server.base_url}/completions", timeout=5,
                     json={"model": "gym-mock", "prompt": f"Question: {question}\nAnswer:"}).json()
    assert body["object"] == "text_completion"
    assert final_answer(body["choices"][0]["text"]) is not None and body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]


def _ask_all(base_url: str, bodies: list[dict], workers: int = 16) -> list[dict]:
    local = threading.local()

    def one(body: dict) -> dict:
        if not hasattr(local, "session"):
            local.session = requests.Session()
        response = local.session.post(f"{base_url}/chat/completions", json=body, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, bodies))


def test_accuracy_is_close_to_configured_and_reproducible():
    rows = math_rows(200)
    bodies = [chat(row["question"]) for row in rows for _ in range(10)]  # 2000 requests, no request seed
    runs = []
    for _ in range(2):
        with MockServer(rows=rows, accuracy=0.7, seed=11) as srv:
            answers = _ask_all(srv.base_url, bodies)
            stats = srv.stats
        per_task = defaultdict(list)
        correct = 0
        for row, body in zip((r for r in rows for _ in range(10)), answers):
            got = final_answer(body["choices"][0]["message"]["content"])
            correct += got == row["expected_answer"]
            per_task[row["question"]].append(got)
        assert abs(correct / len(bodies) - 0.7) < 0.04
        assert stats["answers"]["correct"] == correct and stats["answers"]["wrong"] == len(bodies) - correct
        # Concurrent arrival order may differ, so compare each task's answers as a multiset.
        runs.append({question: sorted(got) for question, got in per_task.items()})
    assert runs[0] == runs[1]


def test_request_seed_pins_the_answer_and_server_seed_changes_it():
    rows = math_rows(50)
    bodies = [chat(row["question"], seed=s) for row in rows for s in range(4)]
    with MockServer(rows=rows, seed=1) as one, MockServer(rows=rows, seed=1) as same, MockServer(rows=rows, seed=2) as other:
        first = [final_answer(b["choices"][0]["message"]["content"]) for b in _ask_all(one.base_url, bodies)]
        again = [final_answer(b["choices"][0]["message"]["content"]) for b in _ask_all(one.base_url, bodies)]
        twin = [final_answer(b["choices"][0]["message"]["content"]) for b in _ask_all(same.base_url, bodies[::-1])][::-1]
        changed = [final_answer(b["choices"][0]["message"]["content"]) for b in _ask_all(other.base_url, bodies)]
    assert first == again == twin  # same seed: same answers whatever the order or repeat count
    assert first != changed


def test_repeats_without_seed_follow_the_repeat_count(http):
    with MockServer(rows=math_rows(5), accuracy=0.5, seed=0) as srv:
        seen = [http.post(f"{srv.base_url}/chat/completions", json=chat(math_rows(5)[0]["question"]), timeout=5)
                .json()["choices"][0]["message"]["content"] for _ in range(40)]
    with MockServer(rows=math_rows(5), accuracy=0.5, seed=0) as srv:
        again = [http.post(f"{srv.base_url}/chat/completions", json=chat(math_rows(5)[0]["question"]), timeout=5)
                 .json()["choices"][0]["message"]["content"] for _ in range(40)]
    assert seen == again
    assert len({final_answer(c) for c in seen}) > 1  # k-th repeat draws afresh


@pytest.mark.parametrize("row", [ROWS[7], MCQ_ROW, LATEX_ROW, TEXT_ROWS[2]], ids=["number", "letter", "latex", "text"])
def test_wrong_answers_differ_from_gold(row, http):
    with MockServer(rows=ROWS, accuracy=0.0, seed=5) as srv:
        answers = {final_answer(http.post(f"{srv.base_url}/chat/completions", json=chat(row["question"], seed=s),
                                          timeout=5).json()["choices"][0]["message"]["content"]) for s in range(30)}
    assert None not in answers and row["expected_answer"] not in answers
    if "options" in row:
        assert answers <= set(row["options"]) - {row["expected_answer"]} and len(answers) > 1
    elif row is ROWS[7]:
        assert all(re.fullmatch(r"\d+", a) for a in answers)
    elif row is TEXT_ROWS[2]:
        assert answers <= {r["expected_answer"] for r in TEXT_ROWS}  # another plausible value from the data


def test_correct_answer_format(http):
    with MockServer(rows=[MCQ_ROW], accuracy=1.0) as srv:
        content = http.post(f"{srv.base_url}/chat/completions", json=chat(MCQ_ROW["question"]),
                            timeout=5).json()["choices"][0]["message"]["content"]
    assert content.endswith("\n\nThe answer is \\boxed{B}.\nAnswer: B")


def test_unknown_prompt_gets_no_answer(server, http):
    body = http.post(f"{server.base_url}/chat/completions", json=chat("What is the airspeed of a swallow?"), timeout=5).json()
    assert body["choices"][0]["message"]["content"] == UNKNOWN_ANSWER


def test_max_tokens_cuts_and_reports_length(server, http):
    body = http.post(f"{server.base_url}/chat/completions", json=chat(ROWS[2]["question"], max_tokens=4), timeout=5).json()
    choice = body["choices"][0]
    assert choice["finish_reason"] == "length" and len(choice["message"]["content"].split()) == 4
    assert body["usage"]["completion_tokens"] == 4
    body = http.post(f"{server.base_url}/responses", json={"input": ROWS[2]["question"], "max_output_tokens": 3},
                     timeout=5).json()
    assert body["status"] == "incomplete" and body["incomplete_details"] == {"reason": "max_output_tokens"}


def test_reasoning_modes(http):
    question = ROWS[4]["question"]
    with MockServer(rows=ROWS, reasoning="think_tags") as srv:
        content = http.post(f"{srv.base_url}/chat/completions", json=chat(question), timeout=5).json()["choices"][0]["message"]["content"]
    assert content.startswith("<think>") and "</think>" in content and final_answer(content)
    with MockServer(rows=ROWS, reasoning="reasoning_content") as srv:
        message = http.post(f"{srv.base_url}/chat/completions", json=chat(question), timeout=5).json()["choices"][0]["message"]
        cut = http.post(f"{srv.base_url}/chat/completions", json=chat(question, max_tokens=3), timeout=5).json()["choices"][0]
        output = http.post(f"{srv.base_url}/responses", json={"input": question}, timeout=5).json()["output"]
    assert message["reasoning_content"] and "<think>" not in message["content"] and final_answer(message["content"])
    assert cut["finish_reason"] == "length" and cut["message"]["content"] is None  # cut mid-reasoning
    assert [item["type"] for item in output] == ["reasoning", "message"]


def test_n_choices(server, http):
    body = http.post(f"{server.base_url}/chat/completions", json=chat(ROWS[3]["question"], n=3, seed=0), timeout=5).json()
    assert [choice["index"] for choice in body["choices"]] == [0, 1, 2]


def test_error_paths(server, http):
    base = server.base_url
    for response in (http.get(f"{base}/nope", timeout=5), http.post(f"{base}/chat/nope", json={}, timeout=5)):
        assert response.status_code == 404 and response.json()["error"]["message"]
    response = http.post(f"{base}/chat/completions", data=b'{"messages": [', timeout=5)
    assert response.status_code == 400 and set(response.json()["error"]) >= {"message", "type", "code"}
    response = http.post(f"{base}/chat/completions", json={"messages": "hi"}, timeout=5)
    assert response.status_code == 400
    response = http.post(f"{base}/chat/completions", json=chat(ROWS[0]["question"], model="other"), timeout=5)
    assert response.status_code == 404 and response.json()["error"]["code"] == "model_not_found"
    # The connection stays usable after errors (keep-alive framing intact).
    assert http.get(f"{base}/models", timeout=5).status_code == 200


def test_context_length_exceeded(http):
    with MockServer(rows=ROWS, max_context_tokens=20) as srv:
        response = http.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[0]["question"]), timeout=5)
        short = http.post(f"{srv.base_url}/completions", json={"prompt": "two words"}, timeout=5)
    assert response.status_code == 400 and response.json()["error"]["code"] == "context_length_exceeded"
    assert short.status_code == 200


def test_chunked_request_body(server, http):
    payload = json.dumps(chat(ROWS[0]["question"])).encode()
    response = http.post(f"{server.base_url}/chat/completions", data=iter([payload[:50], payload[50:]]), timeout=5)
    assert response.status_code == 200 and final_answer(response.json()["choices"][0]["message"]["content"])


def _one_fault(name: str, **kwargs) -> MockServer:
    return MockServer(rows=ROWS, faults={name: 1.0}, **kwargs)


@pytest.mark.parametrize("name,status", [("error_500", 500), ("error_503", 503), ("error_429", 429)])
def test_error_faults(name, status, http):
    with _one_fault(name) as srv:
        response = http.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[0]["question"]), timeout=5)
        assert http.get(f"{srv.base_url}/models", timeout=5).status_code == 200  # discovery is never faulted
        stats = srv.stats
    assert response.status_code == status and response.json()["error"]["type"]
    assert stats["faults"] == {name: 1}
    if name == "error_429":
        assert response.headers["Retry-After"] == "1"


def test_retry_after_is_configurable(http):
    with _one_fault("error_429", retry_after=7) as srv:
        assert http.post(f"{srv.base_url}/completions", json={"prompt": "x"}, timeout=5).headers["Retry-After"] == "7"


def test_payload_faults(http):
    with _one_fault("malformed_json") as srv:
        response = http.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[0]["question"]), timeout=5)
        assert response.status_code == 200
        with pytest.raises(ValueError):
            response.json()
    with _one_fault("empty_choices") as srv:
        body = http.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[0]["question"]), timeout=5).json()
        assert body["choices"] == [] and body["object"] == "chat.completion"
        assert http.post(f"{srv.base_url}/responses", json={"input": "x"}, timeout=5).json()["output"] == []


def test_reset_fault_drops_the_connection(http):
    with _one_fault("reset") as srv:
        with pytest.raises(requests.ConnectionError):
            http.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[0]["question"]), timeout=5)


def test_hang_fault_trips_client_timeout_and_stop_is_prompt(http):
    with _one_fault("hang") as srv:
        started = time.monotonic()
        with pytest.raises(requests.ReadTimeout):
            http.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[0]["question"]), timeout=0.3)
        assert time.monotonic() - started < 10  # the client's timeout fired; the hang itself never ends
    outcome = []
    srv = _one_fault("hang")
    srv.start()

    def waiting_client() -> None:
        try:
            requests.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[0]["question"]), timeout=30)
            outcome.append("answered")
        except requests.ConnectionError:
            outcome.append("dropped")

    client = threading.Thread(target=waiting_client)
    client.start()
    wait_until(lambda: srv.stats["faults"].get("hang"), "the request to reach its hang")
    started = time.monotonic()
    srv.stop()
    assert time.monotonic() - started < 10  # not held until the client's 30 s timeout
    client.join(timeout=5)
    assert outcome == ["dropped"]


def test_fault_rates_mix_and_repeat():
    faults = {"error_500": 0.2, "empty_choices": 0.1}
    counts = []
    for _ in range(2):
        with MockServer(rows=ROWS, faults=faults, seed=4) as srv, requests.Session() as http:
            codes = [http.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[0]["question"]), timeout=5).status_code
                     for _ in range(400)]
            counts.append((codes, srv.stats["faults"]))
    assert counts[0] == counts[1]
    codes, faults_seen = counts[0]
    assert 50 < Counter(codes)[500] < 110 and faults_seen["error_500"] == Counter(codes)[500]
    assert 15 < faults_seen["empty_choices"] < 65


def test_bad_settings_raise():
    with pytest.raises(ValueError, match="valid: " + ", ".join(FAULTS)):
        MockServer(rows=ROWS, faults={"explode": 0.1})
    with pytest.raises(ValueError):
        MockServer(rows=ROWS, faults={"error_500": 0.7, "hang": 0.7})
    with pytest.raises(ValueError):
        MockServer(rows=ROWS, latency={"dist": "gamma"})
    with pytest.raises(ValueError):
        MockServer(rows=ROWS, reasoning="loud")


def test_concurrent_requests_overlap():
    rows = math_rows(64)
    with MockServer(rows=rows, latency=0.5) as srv:
        _ask_all(srv.base_url, [chat(row["question"]) for row in rows], workers=64)
        assert srv.stats["max_in_flight"] >= 8  # served side by side, not one after another (speed: perf/)


def test_256_keep_alive_connections():
    rows = math_rows(256)
    with MockServer(rows=rows, latency={"dist": "uniform", "low": 0.2, "high": 0.4}) as srv:
        sessions = [requests.Session() for _ in range(256)]
        barrier = threading.Barrier(256)

        def twice(number: int) -> int:
            barrier.wait()  # all 256 connections open at once
            for _ in range(2):
                response = sessions[number].post(f"{srv.base_url}/chat/completions", json=chat(rows[number]["question"]), timeout=20)
                assert response.status_code == 200
            return number

        with ThreadPoolExecutor(256) as pool:
            assert sorted(pool.map(twice, range(256))) == list(range(256))
        assert srv.stats["max_in_flight"] >= 64  # the connections were served at once
        assert srv.stats["endpoints"]["/v1/chat/completions"] == 512
        for session in sessions:
            session.close()


def test_latency_distributions():
    uniform = MockServer(rows=ROWS, latency={"dist": "uniform", "low": 0.1, "high": 0.2})
    delays = [uniform._delay(n) for n in range(500)]
    assert 0.1 <= min(delays) and max(delays) <= 0.2 and max(delays) - min(delays) > 0.08
    lognormal = MockServer(rows=ROWS, latency={"dist": "lognormal", "median": 0.05, "sigma": 0.5})
    delays = sorted(lognormal._delay(n) for n in range(2001))
    assert 0.045 < delays[1000] < 0.055 and delays[-1] > 0.1


def test_index_finds_questions_in_templates_quickly():
    rows = math_rows(12000)
    index = TaskIndex(rows + [MCQ_ROW])
    assert index.find(MATH_TEMPLATE.format(question=rows[9876]["question"])) == 9876
    assert index.find(f'Question: "{rows[42]["question"]}"\nReply with a number.') == 42
    assert index.find(rows[7]["question"]) == 7
    # A few-shot prompt: the example questions come first, the asked one last.
    few_shot = f"{rows[1]['question']}\nAnswer: 10\n\n{rows[2]['question']}\nAnswer: 13\n\n{rows[3]['question']}"
    assert index.find(few_shot) == 3
    assert index.find("An unrelated prompt about marbles and Ana.") is None
    prompts = [MATH_TEMPLATE.format(question=rows[n]["question"]) for n in range(0, 12000, 6)]
    assert [index.find(p) for p in prompts] == list(range(0, 12000, 6))


def test_rows_from_prepared_files(tmp_path, http):
    path = tmp_path / "prepared.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS[:5]))
    with MockServer(data_paths=[path], accuracy=1.0) as srv:
        body = http.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[4]["question"]), timeout=5).json()
    assert final_answer(body["choices"][0]["message"]["content"]) == ROWS[4]["expected_answer"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "expected_answer": "1"}\n{"question": "no answer"}\n')
    from gym.core.errors import GymError

    with pytest.raises(GymError, match=r"bad.jsonl:2"):
        MockServer(data_paths=[bad])


def test_policy_is_thread_safe_on_repeat_counts():
    policy = AnswerPolicy(math_rows(1), accuracy=0.5, seed=0)
    prompt = math_rows(1)[0]["question"]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: policy.answer(prompt, None, 1, None), range(400)))
    assert policy._claim(prompt, 1) == 400


def test_standalone_command(tmp_path):
    path = tmp_path / "prepared.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    process = subprocess.Popen([sys.executable, "-m", "gym.mock", "--data", str(path), "--accuracy", "1",
                                "--fault", "error_500=0", "--latency", "uniform:0:0.01"], stdout=subprocess.PIPE, text=True)
    try:
        base_url = process.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", base_url)
        body = requests.post(f"{base_url}/chat/completions", json=chat(ROWS[9]["question"]), timeout=5).json()
        assert final_answer(body["choices"][0]["message"]["content"]) == ROWS[9]["expected_answer"]
    finally:
        process.terminate()
        assert process.wait(timeout=5) == 0
        process.stdout.close()
    failed = subprocess.run([sys.executable, "-m", "gym.mock", "--fault", "boom=0.1"],
                            capture_output=True, text=True, timeout=30)
    assert failed.returncode == 2 and failed.stderr.count("\n") == 1 and "boom" in failed.stderr


def test_server_bug_becomes_500_with_trace(http, capsys):
    with MockServer(rows=ROWS) as srv:
        def broken(*args, **kwargs):
            raise KeyError("boom")

        srv.policy.answer = broken
        response = http.post(f"{srv.base_url}/chat/completions", json=chat(ROWS[0]["question"]), timeout=5)
        assert http.get(f"{srv.base_url}/models", timeout=5).status_code == 200
    assert response.status_code == 500 and "boom" in response.json()["error"]["message"]
    assert "KeyError" in capsys.readouterr().err


def test_the_reference_server_writes_answers_in_the_named_familys_shape(tmp_path):
    """`python -m gym.mock --family sql`: answers in the sql family's shape (a ```sql block); an unknown family
    is one line and exit 2, before the server starts."""
    data = tmp_path / "bird.jsonl"
    data.write_text(json.dumps({"question": "How many singers are there?", "expected_answer": "SELECT count(*) FROM singer"})
                    + "\n")
    bad = subprocess.run([sys.executable, "-m", "gym.mock", "--data", str(data), "--family", "sqll"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "unknown verifier family 'sqll'" in bad.stderr
    assert "did you mean" in bad.stderr and "Traceback" not in bad.stderr
    server = subprocess.Popen([sys.executable, "-m", "gym.mock", "--data", str(data), "--family", "sql",
                               "--accuracy", "1"], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        reply = requests.post(f"{url}/chat/completions", timeout=60, json={"model": "gym-mock", "messages": [
            {"role": "user", "content": "Answer in a ```sql block.\n\nHow many singers are there?"}]})
        content = reply.json()["choices"][0]["message"]["content"]
        assert content.endswith("```sql\nSELECT count(*) FROM singer\n```")
    finally:
        server.terminate()
        server.wait(timeout=30)
