"""Images in prompts, through the command line: hle_vision prepares HLE's image question with its image
beside the data, collect sends it to a local OpenAI-compatible server as a chat image_url part or a
Responses input_image item (a data URL of the file's bytes), the rollout key follows the image's bytes,
completions refuses image rows, and the reference server answers image prompts."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest
import requests

from conftest import UPSTREAM, assert_clean_failure, run_gym

HLE = UPSTREAM / "huggingface.co/datasets/cais/hle/resolve/main/data/test-00000-of-00001.parquet"
IMAGE_ROW = 2  # the fixture's question with an image (matplotlib's logo)


def fixture_image() -> bytes:
    url = pd.read_parquet(HLE, columns=["image"])["image"][IMAGE_ROW]
    return base64.b64decode(url.split(",", 1)[1])


class Recorder(ThreadingHTTPServer):
    """An OpenAI-compatible server that keeps every request body and answers 'Answer: Matplotlib'."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _RecordingHandler)
        self.bodies: list[tuple[str, dict]] = []
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        threading.Thread(target=self.serve_forever, daemon=True).start()


class _RecordingHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._send({"object": "list", "data": [{"id": "recorder", "object": "model"}]})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.bodies.append((self.path, body))
        text = "Explanation: the logo.\nAnswer: Matplotlib\nConfidence: 90%"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if self.path.endswith("/responses"):
            self._send({"id": "r", "object": "response", "status": "completed", "model": "recorder",
                        "output": [{"type": "message", "role": "assistant",
                                    "content": [{"type": "output_text", "text": text}]}],
                        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}})
        else:
            self._send({"id": "c", "object": "chat.completion", "model": "recorder", "usage": usage,
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}]})


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("vision")
    result = run_gym("task=prepare", "benchmark=hle_vision", "data.mirror=tests/fixtures/upstream",
                     f"data.root={root}", f"hydra.run.dir={root}/prepare")
    assert result.returncode == 0, result.stderr
    return root / "hle_vision"


def collect(data: Path, out: Path, base_url: str, *extra: str):
    return run_gym("task=collect", "benchmark=hle_vision", "model=vllm", f"model.base_url={base_url}",
                   "model.name=recorder", "judge=mock", f"data.root={data.parent}", "limit=3", "progress=false",
                   f"output={out}", f"hydra.run.dir={out.parent}/run", *extra)


def image_parts(body: dict, kind: str) -> list[dict]:
    items = body["messages"] if kind == "chat" else body["input"]
    return [part for item in items if isinstance(item.get("content"), list) for part in item["content"]
            if part.get("type") in ("image_url", "input_image")]


def decoded(url: str) -> bytes:
    head, payload = url.split(",", 1)
    assert head == "data:image/png;base64"
    return base64.b64decode(payload)


def test_hle_vision_prepares_all_questions_and_keeps_the_image_beside_the_data(prepared):
    rows = [json.loads(line) for line in (prepared / "hle_vision.jsonl").read_text().splitlines()]
    assert len(rows) == 5 and [r["has_image"] for r in rows] == [False, False, True, False, False]
    (name,) = rows[IMAGE_ROW]["images"]
    assert name.startswith("images/") and name.endswith(".png") and "images" not in rows[0]
    assert (prepared / name).read_bytes() == fixture_image()
    assert "base64" not in (prepared / "hle_vision.jsonl").read_text()


def test_collect_sends_the_image_and_its_key_follows_the_bytes(prepared, tmp_path):
    server, out = Recorder(), tmp_path / "chat" / "rollouts.jsonl"
    try:
        assert collect(prepared, out, server.url).returncode == 0
        sent = [body for path, body in server.bodies if path.endswith("/chat/completions")]
        with_images = [body for body in sent if image_parts(body, "chat")]
        assert len(sent) == 3 and len(with_images) == 1
        (part,) = image_parts(with_images[0], "chat")
        assert part["image_url"]["detail"] == "high" and decoded(part["image_url"]["url"]) == fixture_image()
        text = with_images[0]["messages"][-1]["content"][0]
        assert text == {"type": "text", "text": "The image is the logo of a Python library for plotting. "
                                                "Which library? Give its name."}
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert "base64" not in out.read_text() and {r["status"] for r in rows} == {"ok"}
        image_row = next(r for r in rows if r["task_index"] == IMAGE_ROW)
        assert image_row["reward"] == 1.0
        assert image_row["prompt"][-1]["content"][1]["sha256"] == hashlib.sha256(fixture_image()).hexdigest()

        again = collect(prepared, out, server.url, "resume=true")  # nothing changed: nothing is asked again
        assert again.returncode == 0, again.stderr
        assert len(server.bodies) == 3

        image = prepared / image_row["prompt"][-1]["content"][1]["file"]
        changed = image.read_bytes() + b"\0"
        image.write_bytes(changed)  # another image: a new key for its task only
        try:
            assert collect(prepared, out, server.url, "resume=true").returncode == 0
            assert len(server.bodies) == 4
            (part,) = image_parts(server.bodies[-1][1], "chat")
            assert decoded(part["image_url"]["url"]) == changed
        finally:
            image.write_bytes(fixture_image())
    finally:
        server.shutdown()


def test_responses_api_sends_input_image_items(prepared, tmp_path):
    server, out = Recorder(), tmp_path / "responses" / "rollouts.jsonl"
    try:
        result = collect(prepared, out, server.url, "model.api=responses")
        assert result.returncode == 0, result.stderr
        bodies = [body for path, body in server.bodies if path.endswith("/responses")]
        (body,) = [body for body in bodies if image_parts(body, "responses")]
        text, image = body["input"][-1]["content"]
        assert text["type"] == "input_text" and text["text"].startswith("The image is the logo")
        assert image["type"] == "input_image" and image["detail"] == "high"
        assert decoded(image["image_url"]) == fixture_image()
    finally:
        server.shutdown()


def test_completions_refuses_image_rows_and_a_missing_image_is_one_line(prepared, tmp_path):
    result = collect(prepared, tmp_path / "c" / "rollouts.jsonl", "http://127.0.0.1:9/v1", "model.api=completions")
    assert_clean_failure(result, "model.api=completions cannot send images", "hle_vision.jsonl line 3")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr

    (image,) = (prepared / "images").iterdir()
    moved = image.rename(tmp_path / image.name)
    try:
        result = collect(prepared, tmp_path / "m" / "rollouts.jsonl", "http://127.0.0.1:9/v1")
        assert_clean_failure(result, "hle_vision.jsonl line 3", f"image file {image} is missing")
    finally:
        moved.rename(image)


def test_reference_server_answers_image_prompts_and_rejects_broken_images(prepared):
    from gym.mock.server import MockServer

    url = "data:image/png;base64," + base64.b64encode(fixture_image()).decode()
    question = "The image is the logo of a Python library for plotting. Which library? Give its name."
    with MockServer(data_paths=[prepared / "hle_vision.jsonl"], accuracy=1.0) as server:
        chat = requests.post(f"{server.base_url}/chat/completions", json={"model": "gym-mock", "messages": [
            {"role": "user", "content": [{"type": "text", "text": question},
                                         {"type": "image_url", "image_url": {"url": url}}]}]}, timeout=30)
        assert chat.status_code == 200 and "Matplotlib" in chat.json()["choices"][0]["message"]["content"]
        responses = requests.post(f"{server.base_url}/responses", json={"model": "gym-mock", "input": [
            {"role": "user", "content": [{"type": "input_text", "text": question},
                                         {"type": "input_image", "image_url": url, "detail": "high"}]}]}, timeout=30)
        assert responses.status_code == 200 and "Matplotlib" in json.dumps(responses.json()["output"])
        broken = requests.post(f"{server.base_url}/chat/completions", json={"model": "gym-mock", "messages": [
            {"role": "user", "content": [{"type": "text", "text": question},
                                         {"type": "image_url", "image_url": {"url": "data:image/png;base64,@@"}}]}]},
                               timeout=30)
        assert broken.status_code == 400 and "base64" in broken.json()["error"]["message"]


def test_e2e_offline_then_export_in_the_reference_form(tmp_path, data_dir):
    run = tmp_path / "run"
    result = run_gym("task=e2e", "benchmark=hle_vision", "model=mock", "judge=mock",
                     "data.mirror=tests/fixtures/upstream", f"hydra.run.dir={run}")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (run / "rollouts.jsonl").read_text().splitlines()]
    assert len(rows) == 5 and {r["status"] for r in rows} == {"ok"}
    exported = run_gym("task=export", "format=nemo_gym", f"rollouts={run}", f"output_dir={tmp_path / 'nemo'}")
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in (tmp_path / "nemo" / "hle_vision_rollouts.jsonl").read_text().splitlines()]
    (content,) = [line["responses_create_params"]["input"][-1]["content"] for line in lines
                  if line["_ng_task_index"] == IMAGE_ROW]
    assert content[0]["type"] == "input_text" and content[1]["type"] == "input_image"
    assert content[1]["detail"] == "high" and decoded(content[1]["image_url"]) == fixture_image()


def test_serve_run_and_reset_send_the_image_row_as_collect_does(prepared, tmp_path):
    """task=serve's /reset and /run of hle_vision's image question: the image read from the data folder with
    the benchmark's image_detail (high), as collect sends it; /run's policy (a request's own endpoint) gets it
    as a chat image_url part carrying the file's bytes."""
    from tests.serve_helpers import post, served

    recorder = Recorder()
    with served(tmp_path / "serve", prepared.parent, "benchmark=hle_vision", "judge=mock") as url:
        reset = post(url, "/reset", {"task_index": IMAGE_ROW})
        assert reset.status_code == 200, reset.text
        (image,) = [part for message in reset.json()["observation"] if isinstance(message["content"], list)
                    for part in message["content"] if part["type"] == "image"]
        assert image["detail"] == "high" and image["sha256"] == hashlib.sha256(fixture_image()).hexdigest()
        ran = post(url, "/run", {"task_index": IMAGE_ROW, "policy": {"base_url": recorder.url, "model": "recorder"}})
        assert ran.status_code == 200, ran.text
        assert ran.json()["status"] == "ok" and ran.json()["rollout"]["extracted_answer"] == "Matplotlib"
    recorder.shutdown()
    ((_, body),) = [(path, body) for path, body in recorder.bodies if path.endswith("/chat/completions")]
    (sent,) = image_parts(body, "chat")
    assert decoded(sent["image_url"]["url"]) == fixture_image() and sent["image_url"]["detail"] == "high"
