"""The HTTP face of task=serve: routes, body checks, auth, one-line JSON errors.

Every benchmark answers under `/<benchmark>/`; with a single benchmark the same routes answer at `/` too,
so a NeMo Gym config can point at gym as at one of its own resources servers. Routes (POST unless said):

    GET  /health                 {"status": "ok", ...}
    GET  /benchmarks             name, kind, verifier, tools, rows of each
    GET  /<b>/reverify_mode      "stateless" (NeMo Gym asks before re-verifying stored rollouts)
    /<b>/verify                  NeMo Gym's verify contract: the request back with `reward`, and gym's verdict
    /<b>/seed_session            an episode's state (session id in the body and in the `gym_session` cookie)
    /<b>/<tool_name>             one tool call in that session
    /<b>/aggregate_metrics       {"verify_responses": [...]} -> NeMo Gym's AggregateMetrics fields
    /<b>/reset, /step, /close    the step interface (gym.serve.steps)
    /<b>/run                     a whole rollout or episode against a policy endpoint (gym.serve.agent)

Bodies over `serve.max_body_bytes`, malformed JSON, unknown benchmarks, tools or sessions, missing fields:
a 4xx whose body is {"error": "<one line>"}; nothing a client sends makes the server stop serving.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from gym.core.errors import GymError
from gym.serve.catalog import RequestError
from gym.serve.service import Service, ToolReply

log = logging.getLogger("gym.serve")
COOKIE = "gym_session"
OPEN_PATHS = ("/health",)  # answered without the token (a liveness probe says nothing about the data)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")


class FastJSON(JSONResponse):
    def render(self, content: Any) -> bytes:
        return _dumps(content)


def error(status: int, message: str) -> Response:
    return FastJSON({"error": " ".join(str(message).split())[:500]}, status_code=status)


async def read_json(request: Request, limit: int) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RequestError(f"request body of {declared} bytes is over serve.max_body_bytes={limit}", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError(f"request body is over serve.max_body_bytes={limit}", 413)
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise RequestError(f"malformed JSON: {exc}", 400) from None


def tool_response(reply: ToolReply) -> Response:
    """A tool's output as the whole body (what NeMo Gym's agents put in function_call_output as it is)."""
    text = reply.content
    kind = "application/json" if text[:1] in ("{", "[", '"') else "text/plain; charset=utf-8"
    return Response(text, media_type=kind, headers={"x-gym-tool-error": "true" if reply.error else "false"})


def build_app(service: Service, token: str | None, max_body_bytes: int, threads: int = 40,
              rollout_threads: int = 4096) -> Any:
    from contextlib import asynccontextmanager

    import anyio.to_thread

    rollouts: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # blocking work (math workers, tool calls) runs on this many threads
        anyio.to_thread.current_default_thread_limiter().total_tokens = threads
        # /run mostly waits on the policy: its own, much larger pool, so a trainer's whole batch is in flight
        rollouts["limiter"] = anyio.CapacityLimiter(rollout_threads)
        yield

    app = FastAPI(title="gym serve", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        hint = "; see GET /benchmarks" if exc.status_code == 404 else ""
        return error(exc.status_code, f"{exc.detail}: {request.method} {request.url.path}{hint}")

    @app.get("/health")
    async def health() -> Response:
        return FastJSON(service.health())

    @app.get("/benchmarks")
    async def benchmarks() -> Response:
        return FastJSON(service.benchmarks())

    @app.get("/reverify_mode")
    @app.get("/{benchmark}/reverify_mode")
    async def reverify_mode(benchmark: str | None = None) -> Response:
        """NeMo Gym's question before re-verifying stored rollouts: every gym verify is stateless (an episode
        without its session is scored by replaying its trajectory, as task=reverify does)."""
        try:
            service.benchmark(benchmark)
        except RequestError as exc:
            return error(exc.status, str(exc))
        return FastJSON("stateless")

    async def answer(request: Request, benchmark: str | None, action: str) -> Response:
        try:
            body = await read_json(request, max_body_bytes)
            session = request.cookies.get(COOKIE)
            if service.inline(benchmark, action):  # a verifier that answers in microseconds: no thread hop
                result, new_session = service.handle(benchmark, action, body, session)
            elif action == "run":
                outcome = await rollout(request, benchmark, body, session)
                if outcome is None:
                    return Response(status_code=499)  # nobody is listening any more
                result, new_session = outcome
            else:
                result, new_session = await run_in_threadpool(service.handle, benchmark, action, body, session)
        except RequestError as exc:
            return error(exc.status, str(exc))
        except GymError as exc:  # bad data behind a request (a row the verifier cannot read, ...)
            return error(422, str(exc))
        response = tool_response(result) if isinstance(result, ToolReply) else FastJSON(result)
        if new_session:
            response.set_cookie(COOKIE, new_session, httponly=True, samesite="strict")
        return response

    async def rollout(request: Request, benchmark: str | None, body: Any, session: str | None) -> Any:
        """/run on the rollout threads, watching the client: one that disconnects or cancels stops the
        rollout at its next model call (None: the client is gone)."""
        cancelled = threading.Event()
        work = asyncio.ensure_future(anyio.to_thread.run_sync(
            lambda: service.handle(benchmark, "run", body, session, cancelled), limiter=rollouts["limiter"]))
        gone = asyncio.ensure_future(disconnected(request))
        await asyncio.wait({work, gone}, return_when=asyncio.FIRST_COMPLETED)
        if work.done():
            gone.cancel()
            return work.result()
        cancelled.set()
        service.count("disconnected")
        work.add_done_callback(lambda done: done.exception())  # its outcome has no reader
        return None

    @app.post("/{action}")
    async def at_root(request: Request, action: str) -> Response:
        return await answer(request, None, action)

    @app.post("/{benchmark}/{action}")
    async def at_benchmark(request: Request, benchmark: str, action: str) -> Response:
        return await answer(request, benchmark, action)

    return Guard(app, token)


async def disconnected(request: Request) -> None:
    """Returns when the client has gone (its body was read whole before, so the next message is this)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


class Guard:
    """Pure ASGI in front of the app: the bearer token (constant-time check) and a last-resort one-line 500
    (a bug of gym's, logged with its traceback; the server keeps serving). No per-request middleware stack."""

    def __init__(self, app: Any, token: str | None):
        self.app, self.token = app, token
        self.wanted = f"Bearer {token}".encode() if token else b""

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.token is not None and scope["path"] not in OPEN_PATHS:
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.wanted):
                reply = error(401, "missing or wrong bearer token (Authorization: Bearer <the serve.token_env value>)")
                return await reply(scope, receive, send)
        started = False

        async def tracked(message: dict) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            log.exception("request %s %s failed", scope.get("method"), scope.get("path"))
            if not started:
                await error(500, f"internal error: {exc.__class__.__name__}: {exc}")(scope, receive, send)
