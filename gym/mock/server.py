"""gym's built-in OpenAI-compatible reference server (`model=mock`).

Serves GET /v1/models and POST /v1/chat/completions, /v1/responses and /v1/completions on loopback,
answering prepared benchmark tasks right with probability `accuracy` (see gym.mock.policy), with
optional latency and injected faults so clients can be tested against a misbehaving endpoint; and
POST /v1/embeddings (hashed bag-of-words vectors, gym.mock.embeddings), counted in `stats["embeddings"]`.

In process:   with MockServer(data_paths=["gsm8k.jsonl"], accuracy=0.7) as server: ... server.base_url
Standalone:   python -m gym.mock --data gsm8k.jsonl --port 0 --fault error_500=0.05
              (prints the base URL on stdout, serves until interrupted)
"""

from __future__ import annotations

import json
import math
import socket
import struct
import sys
import threading
import traceback
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from statistics import NormalDist
from typing import Any

from gym.mock.embeddings import embeddings_body, tally
from gym.mock.cli_agents import cli_agent_turn
from gym.mock.episodes import EpisodeIndex, episode_turn, is_episode_row, request_messages, shape_turn
from gym.mock.policy import AnswerPolicy, ApiError, count_tokens, prompt_text, shape_response, unparsed
from gym.mock.rows import RowStore
from gym.mock.tasks import unit_draw

FAULTS = ("error_500", "error_503", "error_429", "hang", "reset", "malformed_json", "empty_choices")
ROUTES = {"/v1/chat/completions": "chat", "/v1/responses": "responses", "/v1/completions": "completions",
          "/v1/embeddings": "embeddings"}
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error", 503: "Service Unavailable"}


def _check_latency(latency: float | Mapping) -> float | dict:
    if isinstance(latency, Mapping):
        spec = dict(latency)
        dist = spec.get("dist")
        needed = {"uniform": ("low", "high"), "lognormal": ("median", "sigma")}.get(dist)
        if needed is None:
            raise ValueError(f"latency dist must be 'uniform' or 'lognormal', got {dist!r}")
        values = [spec.get(key) for key in needed]
        if not all(isinstance(v, (int, float)) and v >= 0 for v in values) or dist == "uniform" and values[0] > values[1]:
            raise ValueError(f"{dist} latency needs numbers {' <= '.join(needed) if dist == 'uniform' else ', '.join(needed)} >= 0")
        return spec
    if not isinstance(latency, (int, float)) or latency < 0:
        raise ValueError(f"latency must be seconds >= 0 or a distribution dict, got {latency!r}")
    return float(latency)


def _check_faults(faults: Mapping | None) -> dict[str, float]:
    faults = dict(faults or {})
    unknown = sorted(set(faults) - set(FAULTS))
    if unknown:
        raise ValueError(f"unknown fault(s) {', '.join(unknown)}; valid: {', '.join(FAULTS)}")
    for name, rate in faults.items():
        if not isinstance(rate, (int, float)) or not 0.0 <= rate <= 1.0:
            raise ValueError(f"fault rate for {name} must be within [0, 1], got {rate!r}")
    if sum(faults.values()) > 1.0 + 1e-9:
        raise ValueError(f"fault rates add up to {sum(faults.values()):.3f} > 1")
    return {name: float(faults[name]) for name in FAULTS if faults.get(name)}


class MockServer:
    """An OpenAI-compatible endpoint over prepared benchmark rows, on a loopback port."""

    def __init__(self, data_paths: list[str | Path] | None = None, rows: list[dict] | None = None,
                 accuracy: float = 0.7, seed: int = 0, latency: float | dict = 0.0,
                 faults: dict[str, float] | None = None, model_name: str = "gym-mock",
                 host: str = "127.0.0.1", port: int = 0, reasoning: str = "none", *,
                 max_context_tokens: int = 1_000_000, retry_after: float = 1, hang_seconds: float = 3600.0,
                 task_accuracy: dict | str | None = None, rate_limit: int | None = None, max_n: int = 128,
                 ignore_n: bool = False, tool_parser: bool = True, family: str | None = None):
        self.rows = RowStore(data_paths or [], rows or [], aside=is_episode_row)  # read back by offset when asked
        self.episodes = EpisodeIndex(self.rows.aside_rows)  # episode rows: the server plays the gold agent (gym.mock.episodes)
        self.policy = AnswerPolicy(self.rows, accuracy=accuracy, seed=seed, reasoning=reasoning,
                                   task_accuracy=task_accuracy, family=family)  # family: whose answer shapes
        if rate_limit is not None and (isinstance(rate_limit, bool) or not isinstance(rate_limit, int) or rate_limit < 1):
            raise ValueError(f"rate_limit must be a positive number of requests in flight, got {rate_limit!r}")
        self.rate_limit = rate_limit  # more completion requests in flight than this get 429 + Retry-After
        self.max_n = max_n  # largest `n` (samples per request) accepted; 1 = a server without n
        self.ignore_n = ignore_n  # accept `n` but answer one choice, as some servers and proxies do
        self.tool_parser = tool_parser  # False: native calls are left as <tool_call> text (no tool parser)
        self._in_flight = 0
        self.seed = seed
        self.latency = _check_latency(latency)
        self.faults = _check_faults(faults)
        self.model_name = model_name
        self.host, self.port = host, port
        self.max_context_tokens = max_context_tokens
        self.retry_after = retry_after
        self.hang_seconds = hang_seconds
        self.base_url = ""
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._counter = 0
        self._stats: dict[str, Any] = {"requests": 0, "max_in_flight": 0, "endpoints": {}, "faults": {},
                                       "answers": {"correct": 0, "wrong": 0, "unknown": 0, "judge": 0, "episode_turn": 0,
                                                   "cli_agent_turn": 0},
                                       "embeddings": {"requests": 0, "inputs": 0, "with_key": 0, "encodings": {}}}
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self) -> str:
        if self._httpd is not None:
            raise RuntimeError("server already started")
        self.stopping.clear()
        self._httpd = _Server((self.host, self.port), _Handler, self)
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://{self.host}:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="gym-mock-server", daemon=True)
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving; open connections (including hanging requests) are closed at once."""
        if self._httpd is None:
            return
        self.stopping.set()
        self._httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self.rows.close()

    def __enter__(self) -> "MockServer":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def stats(self) -> dict:
        """Request counts: total, by endpoint, by fault injected, by answer outcome; most in flight at once."""
        with self._lock:
            return json.loads(json.dumps(self._stats))

    def _track(self, connection: socket.socket, add: bool) -> None:
        with self._lock:
            (self._connections.add if add else self._connections.discard)(connection)

    # -- per request -------------------------------------------------------------------------------
    def _admit(self, endpoint: str) -> int:
        """Count a request; returns its number (1-based, in arrival order)."""
        with self._lock:
            self._counter += 1
            self._stats["requests"] += 1
            self._stats["endpoints"][endpoint] = self._stats["endpoints"].get(endpoint, 0) + 1
            return self._counter

    def _enter(self) -> bool:
        """Admit one completion request under the rate limit (False: over it, answer 429)."""
        with self._lock:
            if self.rate_limit is not None and self._in_flight >= self.rate_limit:
                self._stats["faults"]["rate_limited"] = self._stats["faults"].get("rate_limited", 0) + 1
                return False
            self._in_flight += 1
            self._stats["max_in_flight"] = max(self._stats["max_in_flight"], self._in_flight)
            return True

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _draw_fault(self, number: int) -> str | None:
        """At most one fault per request, fixed by the seed and the request number."""
        draw, edge = unit_draw(self.seed, "fault", number), 0.0
        for name, rate in self.faults.items():
            edge += rate
            if draw < edge:
                with self._lock:
                    self._stats["faults"][name] = self._stats["faults"].get(name, 0) + 1
                return name
        return None

    def _delay(self, number: int) -> float:
        if isinstance(self.latency, float):
            return self.latency
        draw = unit_draw(self.seed, "latency", number)
        if self.latency["dist"] == "uniform":
            return self.latency["low"] + draw * (self.latency["high"] - self.latency["low"])
        normal = NormalDist().inv_cdf(min(max(draw, 1e-12), 1 - 1e-12))
        return self.latency["median"] * math.exp(self.latency["sigma"] * normal)

    def models_body(self) -> dict:
        return {"object": "list", "data": [{
            "id": self.model_name, "object": "model", "created": 0, "owned_by": "gym",
            "root": self.model_name, "parent": None, "max_model_len": self.max_context_tokens}]}

    def embed(self, request: dict, authorized: bool) -> dict:
        body = embeddings_body(request)
        with self._lock:
            tally(self._stats["embeddings"], request, body, authorized)
        return body

    def complete(self, kind: str, request: dict, number: int) -> dict:
        """The response body for one completion request (raises ApiError for bad requests)."""
        if request.get("stream"):
            raise ApiError(400, "streaming is not supported by this server", "invalid_request_error", "unsupported")
        model = request.get("model")
        if model is not None and model != self.model_name:
            raise ApiError(404, f"The model `{model}` does not exist.", "invalid_request_error", "model_not_found")
        prompt = prompt_text(kind, request)
        prompt_tokens = count_tokens(prompt)
        if prompt_tokens > self.max_context_tokens:
            raise ApiError(400, f"This model's maximum context length is {self.max_context_tokens} tokens. "
                                f"However, your prompt has {prompt_tokens} tokens.",
                           "invalid_request_error", "context_length_exceeded")
        limit_key = {"chat": "max_completion_tokens", "responses": "max_output_tokens", "completions": "max_tokens"}
        max_tokens = request.get(limit_key[kind]) if request.get(limit_key[kind]) is not None else request.get("max_tokens")
        n = request.get("n") or 1
        if not isinstance(n, int) or not 1 <= n <= self.max_n or kind == "responses" and n != 1:
            raise ApiError(400, f"n must be an integer within [1, {self.max_n}], got {n!r}", "invalid_request_error", None)
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
            raise ApiError(400, f"max tokens must be a positive integer, got {max_tokens!r}", "invalid_request_error", None)
        if self.episodes and kind != "completions":  # a CLI agent's protocol (gym.mock.cli_agents)
            turn = cli_agent_turn(self.episodes, request_messages(kind, request), request.get("tools"))
            if turn is not None:
                with self._lock:
                    self._stats["answers"]["cli_agent_turn"] += 1
                return shape_turn(kind, turn, prompt_tokens, self.model_name, number)
        if self.episodes:
            turn = episode_turn(self.episodes, kind, request, prompt, lambda question: unit_draw(
                self.seed, "episode", question, request.get("seed")) < self.policy.accuracy)
            if turn is not None:
                with self._lock:
                    self._stats["answers"]["episode_turn"] += 1
                return shape_turn(kind, turn, prompt_tokens, self.model_name, number)
        tools = request.get("tools") if isinstance(request.get("tools"), list) else []
        replies = self.policy.answer(prompt, request.get("seed"), 1 if self.ignore_n else n, max_tokens,
                                     native_tools=bool(tools), tools=tools)
        if not self.tool_parser:
            replies = [unparsed(reply) for reply in replies]
        with self._lock:
            for reply in replies:
                self._stats["answers"][reply.outcome] += 1
        return shape_response(kind, replies, prompt_tokens, self.model_name, number)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # many clients connect at once; a short backlog stalls them for a SYN retry

    def __init__(self, address: tuple[str, int], handler: type, owner: MockServer):
        self.owner = owner
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients dropping connections (their timeouts, our resets, stop()) are routine here.
        if isinstance(sys.exc_info()[1], OSError) or self.owner.stopping.is_set():
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    server_version = "gym-mock"
    sys_version = ""
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, True)

    def finish(self) -> None:
        self.server.owner._track(self.connection, False)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, headers: dict | None = None) -> None:
        # One write per response: status line, headers and body together.
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", "Content-Type: application/json",
                 f"Content-Length: {len(body)}", f"Date: {self.date_time_string()}"]
        lines += [f"{key}: {value}" for key, value in (headers or {}).items()]
        if self.close_connection:
            lines.append("Connection: close")
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)

    def _send_json(self, status: int, obj: dict, headers: dict | None = None) -> None:
        self._send(status, json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), headers)

    def _reset(self) -> None:
        """Drop the connection with a TCP reset and no response."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.rfile.close()  # the last file on the socket, so close() below really closes it
            self.connection.close()
        except OSError:
            pass

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while size := int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(chunks)
        length = self.headers.get("Content-Length")
        return self.rfile.read(int(length)) if length else b""

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        owner = self.server.owner
        owner._admit(path)
        if path == "/v1/models":
            self._send_json(200, owner.models_body())
        elif path == "/health":
            self._send(200, b"{}")
        else:
            self._send_json(404, ApiError(404, f"no route GET {path}", "not_found_error", "not_found").body())

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        owner = self.server.owner
        try:
            raw = self._read_body()
        except (ValueError, OSError):
            self.close_connection = True
            return
        number = owner._admit(path)
        kind = ROUTES.get(path)
        if kind is None:
            self._send_json(404, ApiError(404, f"no route POST {path}", "not_found_error", "not_found").body())
            return
        try:
            request = json.loads(raw)
            if not isinstance(request, dict):
                raise ValueError("body is not a JSON object")
        except ValueError as exc:
            self._send_json(400, ApiError(400, f"request body is not valid JSON: {exc}",
                                          "invalid_request_error", "invalid_json").body())
            return
        if not owner._enter():
            self._fail("error_429", owner)
            return
        try:
            self._answer(owner, kind, request, number)
        finally:
            owner._leave()

    def _answer(self, owner: MockServer, kind: str, request: dict, number: int) -> None:
        fault = owner._draw_fault(number) if owner.faults else None
        if fault in ("error_500", "error_503", "error_429", "reset"):
            self._fail(fault, owner)
            return
        wait = owner.hang_seconds if fault == "hang" else owner._delay(number)
        if wait > 0 and owner.stopping.wait(wait):
            self._reset()  # stopping: abandon the request
            return
        try:
            body = (owner.embed(request, self.headers.get("Authorization", "").startswith("Bearer "))
                    if kind == "embeddings" else owner.complete(kind, request, number))
        except ApiError as exc:
            self._send_json(exc.status, exc.body(), exc.headers)
            return
        except Exception as exc:  # a server bug: tell the client and leave a trace on stderr
            traceback.print_exc()
            self._send_json(500, ApiError(500, f"internal error: {exc!r}", "server_error", "internal_error").body())
            return
        if fault == "empty_choices":
            body["output" if kind == "responses" else "choices"] = []
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if fault == "malformed_json":
            data = data[: len(data) // 2]
        self._send(200, data)

    def _fail(self, fault: str, owner: MockServer) -> None:
        if fault == "reset":
            self._reset()
        elif fault == "error_429":
            after = owner.retry_after
            error = ApiError(429, "Rate limit reached; retry later", "rate_limit_error", "rate_limit_exceeded",
                             {"Retry-After": int(after) if float(after).is_integer() else after})
            self._send_json(429, error.body(), error.headers)
        else:
            status = 500 if fault == "error_500" else 503
            message = "Internal server error" if status == 500 else "Service temporarily unavailable"
            self._send_json(status, ApiError(status, message, "server_error", fault).body())
