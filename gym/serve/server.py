"""Starting task=serve: the benchmarks, their users and judges, the app, uvicorn, the URL file.

The socket is bound and listening before the URL is written (`<run dir>/serve.json`, and
`serve.url_file` when set), so a client that reads the file can connect at once. Binding anything but
loopback needs a bearer token (`serve.token_env` names the environment variable that holds it; the token
is never logged or written) or an explicit `serve.allow_unauthenticated=true`. SIGINT / SIGTERM stop the
server; the verifiers, judges and any reference server it started stop with it.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from gym.core.errors import GymError
from gym.core.io import write_json_atomic
from gym.core.typed import RunConfig

log = logging.getLogger("gym.serve")
LOOPBACK = ("localhost",)


@dataclass(frozen=True)
class ServeSettings:
    host: str
    port: int
    max_sessions: int
    session_ttl: float
    max_body_bytes: int
    token: str | None
    on_verifier_error: float | None
    threads: int
    url_file: Path | None
    rollout_threads: int = 4096

    @classmethod
    def from_config(cls, run: RunConfig) -> "ServeSettings":
        knobs = run.knob("serve", {})
        host = str(knobs["host"])
        for name in ("max_sessions", "max_body_bytes", "threads", "rollout_threads"):
            if int(knobs[name]) < 1:
                raise GymError(f"serve.{name}={knobs[name]} must be at least 1")
        if float(knobs["session_ttl"]) <= 0:
            raise GymError(f"serve.session_ttl={knobs['session_ttl']} must be a positive number of seconds")
        if not 0 <= int(knobs["port"]) < 65536:
            raise GymError(f"serve.port={knobs['port']} is not a port (0 = a free one)")
        return cls(host, int(knobs["port"]), int(knobs["max_sessions"]), float(knobs["session_ttl"]),
                   int(knobs["max_body_bytes"]), _token(knobs, host), knobs.get("on_verifier_error"),
                   int(knobs["threads"]), Path(knobs["url_file"]) if knobs.get("url_file") else None,
                   int(knobs["rollout_threads"]))


def is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _token(knobs: dict, host: str) -> str | None:
    name = knobs.get("token_env")
    if name:
        value = os.environ.get(str(name), "")
        if not value:
            raise GymError(f"serve.token_env={name}: the environment variable {name} is not set (or empty); "
                           "export the bearer token there")
        return value
    if not is_loopback(host) and not knobs.get("allow_unauthenticated"):
        raise GymError(f"serve.host={host} is reachable from other machines: set serve.token_env=<NAME of an "
                       "environment variable holding a bearer token>, or serve.allow_unauthenticated=true")
    return None


def simulated_users(run: RunConfig, served: dict, stack: ExitStack, pool: int) -> dict[str, Any]:
    """Episode benchmark -> its simulated user (None: none, solo mode where the environment has one)."""
    from gym.model.endpoints import connect_user

    users = {}
    nobody = SimpleNamespace(base_url="", model=None)  # no policy to compare the user's endpoint with
    for name, one in served.items():
        if one.kind == "episode":
            users[name], _ = connect_user(replace(run, benchmark=one.benchmark.config), stack, nobody, pool)
    return users


def build_service(run: RunConfig, stack: ExitStack, settings: ServeSettings) -> Any:
    from gym.rollouts.episodes import episode_limits
    from gym.serve.agent import Agent
    from gym.serve.catalog import load_all
    from gym.serve.service import Service
    from gym.serve.sessions import Sessions

    served = load_all(run, stack)
    users = simulated_users(run, served, stack, settings.threads)
    limits = episode_limits(run.knob("episode", {}))
    sessions = Sessions(settings.max_sessions, settings.session_ttl)
    stack.callback(sessions.stop)
    agent = Agent(run, stack, users, limits, settings.rollout_threads, settings.on_verifier_error)
    return Service(served, sessions, limits, users, settings.on_verifier_error, agent)


def serve(run: RunConfig) -> dict[str, Any]:
    import uvicorn

    from gym.serve.app import build_app

    settings = ServeSettings.from_config(run)
    home = run.home
    with ExitStack() as stack:
        service = build_service(run, stack, settings)
        app = build_app(service, settings.token, settings.max_body_bytes, settings.threads, settings.rollout_threads)
        sock = _listen(settings.host, settings.port)
        stack.callback(sock.close)
        url = _url(settings.host, sock.getsockname()[1])
        info = {"url": url, "pid": os.getpid(), "benchmarks": list(service.served),
                "auth": "bearer" if settings.token else "none"}
        # the run dir's file last: whoever waits on it finds both
        for path in filter(None, (settings.url_file, home / "serve.json")):
            path.parent.mkdir(parents=True, exist_ok=True)
            write_json_atomic(path, info)
        service.sessions.start_reaper()
        print(f"gym serve: {', '.join(service.served)} at {url} (GET {url}/benchmarks)", flush=True)
        log.info("serving %s at %s", ", ".join(service.served), url)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                               timeout_keep_alive=30, backlog=65535))
        server.run(sockets=[sock])
        summary = {"url": url, "benchmarks": list(service.served), **service.health()}
    write_json_atomic(home / "serve.json", {**info, "stopped": True, "summary": summary})
    return summary


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise GymError(f"serve.host={host} serve.port={port}: cannot listen there ({exc.strerror})") from None
    sock.listen(65535)  # the kernel caps it at net.core.somaxconn: a trainer opens thousands of connections at once
    sock.set_inheritable(True)
    return sock


def _url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "localhost") else (f"[{host}]" if ":" in host else host)
    return f"http://{shown}:{port}"
