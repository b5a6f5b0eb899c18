"""The viewer's web server (FastAPI on uvicorn): the pages of gym.view.pages at their relative paths,
the tasks table's JSON, a version number the pages poll for rows that landed, and the static files.

It binds loopback unless told otherwise; on any other address every request needs the token (from the
environment variable `view.token_env` names), given once as `?token=` and then kept in a cookie."""

from __future__ import annotations

import hmac
import html
import ipaddress
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from gym.core.errors import GymError
from gym.view import pages
from gym.view.runs import PLOTS, Runs
from gym.view.tasks_table import Query, page

STATIC = Path(__file__).resolve().parent / "static"
REFRESH_EVERY = 1.0  # seconds between looks at the files for new rows


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Versions:
    """A number that changes when any run gained rows (or a sweep gained a run); files looked at once a second."""

    def __init__(self, runs: Runs):
        self.runs, self._at, self._lock = runs, 0.0, threading.Lock()

    def current(self) -> int:
        with self._lock:
            if time.monotonic() - self._at >= REFRESH_EVERY:
                self.runs.refresh()
                self._at = time.monotonic()
            return sum(run.index.version for run in self.runs) + 1000 * len(self.runs)


def make_app(runs: Runs, task_row_of: Callable | None = None, token: str | None = None) -> FastAPI:
    app = FastAPI(title="gym view", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    _guard(app, token)
    versions = Versions(runs)
    _page_routes(app, runs, versions, task_row_of)
    _api_routes(app, runs, versions)
    return app


def _guard(app: FastAPI, token: str | None) -> None:
    """The token check (when there is one) and one-line errors: JSON under /api/, a short page elsewhere."""
    if token:
        @app.middleware("http")
        async def check_token(request: Request, call_next: Any) -> Any:
            given = request.query_params.get("token") or request.cookies.get("gym_view_token") or ""
            if not hmac.compare_digest(given, token):
                return JSONResponse({"error": "this viewer wants its token: open the URL with ?token=<token>"}, 401)
            response = await call_next(request)
            if request.query_params.get("token"):
                response.set_cookie("gym_view_token", token, httponly=True, samesite="strict")
            return response

    @app.exception_handler(GymError)
    async def gym_error(request: Request, exc: GymError) -> Any:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": str(exc)}, 404)
        return HTMLResponse(f"<!doctype html><title>not found</title><p>{html.escape(str(exc))}</p>"
                            '<p><a href="/index.html">runs</a></p>', 404)


def _run_of(runs: Runs, number: int) -> Any:
    if number >= len(runs):  # a sweep's run that started after the viewer
        runs.refresh()
    return runs[number]


def _page_routes(app: FastAPI, runs: Runs, versions: Versions, task_row_of: Callable | None) -> None:
    compare_cache: dict = {}

    @app.get("/")
    def home() -> Any:
        return RedirectResponse("/index.html")

    @app.get("/index.html", response_class=HTMLResponse)
    def runs_page() -> str:
        return pages.runs_page(runs, live=versions.current())

    @app.get("/run/{number}/", response_class=HTMLResponse)
    @app.get("/run/{number}/index.html", response_class=HTMLResponse)
    def run_page(number: int) -> str:
        return pages.run_page(_run_of(runs, number), live=versions.current())

    @app.get("/run/{number}/tasks.html", response_class=HTMLResponse)
    def tasks_page(number: int) -> str:
        return pages.tasks_page(_run_of(runs, number), live=versions.current())

    @app.get("/run/{number}/tasks-data.js")
    def tasks_data(number: int) -> Any:  # served pages ask the API instead
        return Response("window.GYM_TASKS = null;\n", media_type="text/javascript")

    @app.get("/run/{number}/rollout/{benchmark}/{name}.html", response_class=HTMLResponse)
    def rollout_page(number: int, benchmark: str, name: str) -> str:
        task, _, rollout = name.partition("_")
        if not (task.isdigit() and rollout.isdigit()):
            raise GymError(f"no rollout page '{name}.html' (pages are named <task>_<rollout>.html)")
        run = _run_of(runs, number)
        return pages.rollout_page(run, pages.find_rollout(run, benchmark, int(task), int(rollout)), task_row_of)

    @app.get("/run/{number}/files/{name}")
    def run_file(number: int, name: str) -> Any:
        path = _run_of(runs, number).dir / name
        if name not in PLOTS or not path.is_file():
            raise GymError(f"no plot {name}")
        return FileResponse(path)

    @app.get("/compare/{a}-{b}.html", response_class=HTMLResponse)
    def compare_page(a: int, b: int, target_delta: str | None = None) -> Any:
        try:  # ?target_delta=5: what detecting a 5-point difference takes (compare.target_delta's meaning)
            delta = None if target_delta in (None, "") else float(target_delta)
        except ValueError:
            delta = -1.0
        if delta is not None and not 0 < delta <= 100:
            return HTMLResponse(f"<!doctype html><title>bad request</title><p>target_delta={html.escape(target_delta or '')} "
                                "must be a difference in percent points within (0, 100]</p>", 400)
        return pages.compare_page(runs, a, b, compare_cache, delta, served=True)


def _api_routes(app: FastAPI, runs: Runs, versions: Versions) -> None:
    @app.get("/api/version")
    def version() -> dict:
        return {"version": versions.current()}

    @app.get("/api/runs")
    def api_runs() -> Any:
        versions.current()
        return pages.run_rows(runs)

    @app.get("/api/run/{number}/tasks")
    def api_tasks(number: int, request: Request) -> Any:
        return page(_run_of(runs, number), Query.from_params(dict(request.query_params)))


def bind(host: str, port: int | None) -> socket.socket:
    """A listening socket on host:port (port None or 0 = a free one); GymError when it is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, int(port or 0)))
    except OSError as exc:
        sock.close()
        raise GymError(f"view: cannot listen on {host}:{port or 0} ({exc.strerror or exc}); "
                       "choose another view.port= (or leave it null for a free one)") from None
    sock.listen(128)
    return sock


def serve(runs: Runs, host: str, port: int | None, token_env: str | None, task_row_of: Callable | None) -> None:
    """Serve until Ctrl-C, printing the URL first."""
    import uvicorn

    token = None
    if not is_loopback(host):
        token = os.environ.get(token_env or "") or None
        if not token:
            raise GymError(f"view.host={host} is not loopback: set a token in ${token_env} (view.token_env) first; "
                           "anyone who can reach the port sees the rollouts")
    sock = bind(host, port)
    pages.warm_up()
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/index.html"
    print(f"gym view: {url}{'?token=<the token in $' + str(token_env) + '>' if token else ''} "
          f"({len(runs)} run(s), {sum(len(r.index) for r in runs)} rollout(s)); Ctrl-C stops it", flush=True)
    config = uvicorn.Config(make_app(runs, task_row_of, token), log_level="warning", access_log=False)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shut down cleanly and re-raised the Ctrl-C: stopping is the normal end
        pass
    print("gym view: stopped", flush=True)
