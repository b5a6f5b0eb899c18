"""gym's model proxy: one per trial, between a third-party agent and the run's model.

It serves the three dialects agents speak (gym.proxy.dialects) on one port: `POST /v1/chat/completions`,
`/v1/responses`, `/v1/messages` (and `/v1/messages/count_tokens`), `GET /v1/models`; the same paths
without `/v1` too, since agents join base URLs differently. Each call is read into chat messages and
forwarded through gym's model client (`model=...`: vLLM, an API, the reference server) without
streaming; the reply goes back in the agent's dialect, as an event stream when it asked for one. The
trial's budget (calls, tokens) is checked before each call; a spent budget is answered with a 400 that
says so (agents stop on a 4xx instead of retrying), and so is a request that cannot be read.

Keys: the agent is given the trial's own token as its API key (`token`), never the policy's; the proxy
checks it when set and forwards with the client's key, which it never sees. It binds loopback unless a
host is given (the container network's gateway), and then refuses to start without a token. Nothing of
a request's headers is recorded.

    with ModelProxy(client, Budget(max_calls=50)) as proxy:
        ... agent with OPENAI_BASE_URL=proxy.base_url + "/v1", OPENAI_API_KEY=proxy.token ...
    proxy.log.snapshot()  # the calls (gym.proxy.record)
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from gym.core.errors import GymError
from gym.proxy.dialects import BODIES, BadRequest, error_body, read_call
from gym.proxy.record import Budget, CallLog, call_record
from gym.proxy.streams import EVENTS

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_BODY = 64 * 1024 * 1024  # bytes; a conversation longer than this is refused, not read
ROUTES = {"chat/completions": "chat", "responses": "responses", "messages": "messages"}
STATUS_OF = {"model_error": 400, "infra_error": 502}


def route_of(path: str) -> tuple[str | None, bool]:
    """(dialect, count_tokens?) of a POST path; None for a path the proxy does not serve."""
    path = path.split("?", 1)[0].rstrip("/")
    path = path[len("/v1"):] if path.startswith("/v1/") else path
    if path == "/messages/count_tokens":
        return "messages", True
    return ROUTES.get(path.lstrip("/")), False


class ModelProxy:
    """A per-trial proxy in front of `client` (a gym.model.client.ModelClient, or anything with `complete`)."""

    def __init__(self, client: Any, budget: Budget | None = None, *, host: str = "127.0.0.1", port: int = 0,
                 token: str | None = None, model_name: str = "gym-policy"):
        if host not in LOOPBACK and not token:
            raise GymError(f"the model proxy binds {host}, beyond loopback: it needs a token")
        self.client, self.host, self.port = client, host, port
        self.token = token
        self.model_name = model_name
        self.log = CallLog(budget or Budget())
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def for_trial(cls, client: Any, budget: Budget, host: str = "127.0.0.1", model_name: str = "gym-policy"
                  ) -> "ModelProxy":
        """A proxy whose token is fresh and random: the only key the agent ever holds."""
        return cls(client, budget, host=host, token="gym-" + secrets.token_urlsafe(24), model_name=model_name)

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise GymError("the model proxy is not started")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self._server.server_address[1]}"

    def start(self) -> str:
        self._server = _Server((self.host, self.port), _Handler, self)
        self._thread = threading.Thread(target=self._server.serve_forever, name="gym-proxy", daemon=True)
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "ModelProxy":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def authorized(self, headers: Any) -> bool:
        if not self.token:
            return True
        given = headers.get("x-api-key") or ""
        bearer = headers.get("Authorization") or ""
        if bearer.lower().startswith("bearer "):
            given = given or bearer[7:].strip()
        return hmac.compare_digest(given.encode(), self.token.encode())

    def answer(self, dialect: str, raw: bytes) -> tuple[int, Any, Any]:
        """(HTTP status, the Call or None, the reply body or the event iterator) for one request."""
        started = time.perf_counter()
        try:
            call = read_call(dialect, raw)
        except BadRequest as exc:
            return 400, None, error_body(dialect, 400, f"gym proxy: {exc}", "invalid_request")
        spent = self.log.admit()
        if spent is not None:
            self.log.add(call_record(call, None, time.perf_counter() - started, "budget_exhausted", spent))
            return 400, call, error_body(dialect, 400, f"gym proxy: {spent}", "budget_exhausted")
        completion = self.client.complete(call.messages, tools=call.tools or None,
                                          tool_choice=call.tool_choice if call.tools else None)
        self.log.add(call_record(call, completion, time.perf_counter() - started, completion.status,
                                 completion.error))
        if completion.status != "ok":
            status = STATUS_OF.get(completion.status, 502)
            return status, call, error_body(dialect, status, f"gym proxy: the model call failed: {completion.error}",
                                            completion.status)
        if call.stream:
            return 200, call, EVENTS[dialect](call, completion)
        return 200, call, BODIES[dialect](call, completion)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type, owner: ModelProxy):
        self.owner = owner
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # an agent that drops its connection mid-reply is not the proxy's failure


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # request lines would echo paths only; the record is the log

    def _send_json(self, status: int, body: dict) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, events: Any) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(event)
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        owner = self.server.owner
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/health", "/v1/health"):
            self._send_json(200, {"status": "ok"})
        elif not owner.authorized(self.headers):
            self._send_json(401, error_body("chat", 401, "gym proxy: wrong or missing API key", "unauthorized"))
        elif path in ("/v1/models", "/models"):
            self._send_json(200, {"object": "list", "data": [{"id": owner.model_name, "object": "model",
                                                              "created": 0, "owned_by": "gym"}]})
        else:
            self._send_json(404, error_body("chat", 404, f"gym proxy: no route GET {path}", "not_found"))

    def do_POST(self) -> None:
        owner = self.server.owner
        dialect, count_only = route_of(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        if dialect is None or length > MAX_BODY:
            self.close_connection = True
            status = 404 if dialect is None else 413
            message = f"no route POST {self.path}" if dialect is None else "request body too large"
            self._send_json(status, error_body(dialect or "chat", status, f"gym proxy: {message}", "not_found"))
            return
        raw = self.rfile.read(length)
        if not owner.authorized(self.headers):
            self._send_json(401, error_body(dialect, 401, "gym proxy: wrong or missing API key", "unauthorized"))
        elif count_only:
            self._send_json(200, {"input_tokens": max(1, len(raw) // 4)})  # an estimate: no call is made
        else:
            status, _call, body = owner.answer(dialect, raw)
            if isinstance(body, dict):
                self._send_json(status, body)
            else:
                self._send_stream(body)
