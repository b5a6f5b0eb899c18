"""A loopback HTTP server that replays recorded exchanges (tests/fixtures/replies/*.json).

Each record holds the request (method, path) and the server's response (status, headers, body). The
server answers a request with the record registered for its method and path (404 otherwise) and keeps
the requests it was sent, so tests drive gym's real HTTP client against real reply bodies.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPLIES = Path(__file__).resolve().parent / "fixtures" / "replies"


def load(name: str) -> dict[str, Any]:
    return json.loads((REPLIES / f"{name}.json").read_text())


class ReplayServer:
    def __init__(self, *records: dict[str, Any], prefix: str = ""):
        """`prefix` is put before every recorded path (e.g. "/api" to serve a server mounted elsewhere)."""
        self.routes: dict[tuple[str, str], dict[str, Any]] = {}
        self.requests: list[tuple[str, str, Any]] = []
        for record in records:
            self.add(record, prefix)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                owner.requests.append((method, self.path, json.loads(raw) if raw else None))
                record = owner.routes.get((method, self.path))
                response = record["response"] if record else {
                    "status": 404, "headers": {"Content-Type": "application/json"},
                    "body": {"error": {"message": "File Not Found", "type": "not_found_error", "code": 404}}}
                body = json.dumps(response["body"]).encode()
                self.send_response_only(response["status"])  # no Server header of our own: the recorded one
                self.send_header("Date", self.date_time_string())
                for key, value in response.get("headers", {}).items():
                    if key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._answer("GET")

            def do_POST(self) -> None:
                self._answer("POST")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.root = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def add(self, record: dict[str, Any], prefix: str = "") -> None:
        request = record["request"]
        self.routes[(request.get("method", "POST"), prefix + request["path"])] = record

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "ReplayServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
