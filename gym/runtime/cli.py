"""Podman and Docker through their command lines: the same verbs, a few flags apart.

Every container started here is remembered until removed; at interpreter exit (a finished run, Ctrl-C,
SIGTERM turned into an exception by collect) the ones still alive are removed with `rm -f` at once (a
container whose PID 1 is `sleep infinity` ignores SIGTERM). A run killed outright (SIGKILL) leaves its
containers behind: `sweep_stale` removes those whose owning process is gone, and every container run
does that first, so a resumed run starts clean.
"""

from __future__ import annotations

import atexit
import json
import os
import shlex
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Mapping, Sequence

from gym.runtime.base import (LABEL_MANAGED, LABEL_OWNER, BuildFailed, Container, ContainerError, ContainerRuntime,
                              ExecResult, ResourceLimits, RuntimeSettings, RuntimeUnavailable, owner_gone, owner_id)

_LIVE: dict[str, "CliRuntime"] = {}  # container id -> the runtime that started it (removed at exit)
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()  # set when the run is interrupted: no container starts after it
_STARTING = [0]  # `run` calls in flight (their containers may appear after a stop)
TAIL = 4000  # characters of a failing command's output kept in errors


def _tail(text: str) -> str:
    return text if len(text) <= TAIL else "…" + text[-TAIL:]


def _remove_live() -> None:
    with _LIVE_LOCK:
        live = list(_LIVE.items())
    for container_id, runtime in live:
        runtime.remove(Container(container_id, ""))


atexit.register(_remove_live)


def remove_all_live() -> int:
    """Remove every container this process started and has not removed (signal handlers, tests)."""
    with _LIVE_LOCK:
        count = len(_LIVE)
    _remove_live()
    return count


def stop_all(wait: float = 60.0) -> int:
    """The run is being interrupted: start no more containers, remove those alive (their trials' commands
    then fail at once), and wait for starts in flight so that their containers go too. How many went."""
    _STOPPING.set()
    removed = remove_all_live()
    deadline = time.monotonic() + wait
    while _STARTING[0] > 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    return removed + remove_all_live()


class Stopping(ContainerError):
    """gym is stopping (interrupted): no new container, build or command."""


class CliRuntime(ContainerRuntime):
    """The shared implementation; subclasses name the CLI and its few differences."""

    rm_now: tuple[str, ...] = ("rm", "-f")

    def __init__(self, settings: RuntimeSettings):
        super().__init__(settings)
        found = shutil.which(settings.binary or self.name)
        self.binary = found or ""

    # -- the command line ------------------------------------------------------------------------
    def global_flags(self) -> list[str]:
        return []

    def command(self, *args: str) -> list[str]:
        if not self.binary:
            raise RuntimeUnavailable(self.missing())
        return [self.binary, *self.global_flags(), *args]

    def missing(self) -> str:
        return (f"runtime={self.name}: {self.settings.binary or self.name} is not on PATH; install it "
                f"(docs/containers.md) or choose another with runtime=podman|docker")

    def call(self, *args: str, timeout: float | None = 120, check: bool = True, input: str | None = None) -> str:
        try:
            done = subprocess.run(self.command(*args), capture_output=True, text=True, timeout=timeout,
                                  input=input, errors="replace")
        except subprocess.TimeoutExpired as exc:
            raise ContainerError(f"{self.name} {args[0]} did not answer within {timeout:.0f} s") from exc
        if check and done.returncode != 0:
            words = (done.stderr or done.stdout).strip()
            raise ContainerError(f"{self.name} {args[0]} failed: {words.splitlines()[-1] if words else done.returncode}",
                                 _tail(words))
        return done.stdout

    def check(self) -> str:
        try:
            self.call("info", "--format", "{{json .}}", timeout=60)
        except ContainerError as exc:
            raise RuntimeUnavailable(f"runtime={self.name}: `{self.name} info` failed: {exc}") from None
        return self.call("--version", timeout=30).strip()

    def ulimit_flags(self) -> list[str]:
        return [flag for limit in self.settings.ulimits for flag in ("--ulimit", limit)]

    # -- images ----------------------------------------------------------------------------------
    def image_exists(self, image: str) -> bool:
        return subprocess.run(self.command("image", "inspect", image), capture_output=True).returncode == 0

    def image_info(self, image: str) -> dict:
        try:
            out = self.call("image", "inspect", "--format", "{{json .Config}}", image, timeout=60)
        except ContainerError:
            return {}
        return json.loads(out or "{}") or {}

    def build(self, context: Path, tag: str, dockerfile: Path | None = None, timeout: float | None = None,
              build_args: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None) -> str:
        args = ["build", "-t", tag, "-f", str(dockerfile or context / "Dockerfile"), *self.ulimit_flags()]
        for key, value in {LABEL_MANAGED: "1", **(labels or {})}.items():
            args += ["--label", f"{key}={value}"]
        for key, value in (build_args or {}).items():
            args += ["--build-arg", f"{key}={value}"]
        if not self.settings.build_network:
            args += ["--network", "none"]
        args.append(str(context))
        if _STOPPING.is_set():
            raise Stopping("gym is stopping")
        process = subprocess.Popen(self.command(*args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   errors="replace", start_new_session=True)
        try:
            log, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            log, _ = process.communicate()
            raise BuildFailed(f"build of {tag} ran past {timeout:.0f} s", _tail(log or ""), timed_out=True) from None
        if process.returncode != 0:
            raise BuildFailed(f"build of {tag} failed (exit {process.returncode})", _tail(log or ""))
        return log

    def import_rootfs(self, tarball: Path, tag: str, changes: Sequence[str] = ()) -> None:
        args = ["import"]
        for change in changes:
            args += ["--change", change]
        self.call(*args, str(tarball), tag, timeout=600)

    def remove_image(self, image: str) -> None:
        """Never raises: an image that cannot go now (in use, a CLI too slow under load) stays, for
        `task=clean images=true` to take later."""
        try:
            self.call("rmi", image, timeout=300, check=False)
        except (ContainerError, RuntimeUnavailable):
            return

    # -- containers ------------------------------------------------------------------------------
    def run(self, image: str, limits: ResourceLimits, labels: Mapping[str, str] | None = None,
            env: Mapping[str, str] | None = None, workdir: str | None = None) -> Container:
        self.sweep_stale()
        labels = {LABEL_MANAGED: "1", LABEL_OWNER: owner_id(), **(labels or {})}
        args = ["run", "-d", "--entrypoint", "sleep", *self.ulimit_flags()]
        for key, value in labels.items():
            args += ["--label", f"{key}={value}"]
        for key, value in (env or {}).items():
            args += ["-e", f"{key}={value}"]
        if limits.cpus:
            args += ["--cpus", str(limits.cpus)]
        if limits.memory:
            args += ["--memory", str(limits.memory)]
        if limits.pids:
            args += ["--pids-limit", str(limits.pids)]
        if not limits.network:
            args += ["--network", "none"]
        elif isinstance(limits.network, str):
            args += ["--network", limits.network]
        if workdir:
            args += ["--workdir", workdir]
        if _STOPPING.is_set():
            raise Stopping("gym is stopping")
        with _LIVE_LOCK:
            _STARTING[0] += 1
        try:
            container_id = self.call(*args, image, "infinity", timeout=180).strip().splitlines()[-1]
            with _LIVE_LOCK:
                _LIVE[container_id] = self
        finally:
            with _LIVE_LOCK:
                _STARTING[0] -= 1
        container = Container(container_id, image, labels)
        if _STOPPING.is_set():
            self.remove(container)
            raise Stopping("gym is stopping")
        return container

    def exec(self, container: Container, command: str, timeout: float | None = None, workdir: str | None = None,
             env: Mapping[str, str] | None = None, user: str | None = None) -> ExecResult:
        args = ["exec"]
        if workdir:
            args += ["--workdir", workdir]
        if user:
            args += ["--user", user]
        for key, value in (env or {}).items():
            args += ["-e", f"{key}={value}"]
        # bash where there is one (Harbor runs `bash -c`), else sh; the kill inside stops the command itself
        shell = f"if command -v bash >/dev/null; then exec bash -c {shlex.quote(command)}; else exec sh -c {shlex.quote(command)}; fi"
        if timeout is not None:
            shell = f"exec timeout -k 5 {max(1, int(timeout + 0.999))} sh -c {shlex.quote(shell)}"
        started = time.monotonic()
        if _STOPPING.is_set():
            return ExecResult(None, "gym is stopping", 0.0)
        try:
            done = subprocess.run(self.command(*args, container.id, "sh", "-c", shell), stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace",
                                  timeout=None if timeout is None else timeout + 30)
        except subprocess.TimeoutExpired as exc:
            out = exc.output.decode("utf-8", "replace") if isinstance(exc.output, bytes) else (exc.output or "")
            return ExecResult(None, out, time.monotonic() - started, timed_out=True)
        seconds = time.monotonic() - started
        timed_out = timeout is not None and done.returncode in (124, 137) and seconds >= timeout - 0.5
        return ExecResult(None if timed_out else done.returncode, done.stdout, seconds, timed_out)

    def copy_in(self, container: Container, source: Path, target: str) -> None:
        if source.is_dir():
            self.call("exec", container.id, "mkdir", "-p", target, timeout=60)
            self.call("cp", f"{source}/.", f"{container.id}:{target}", timeout=600)
        else:
            self.call("cp", str(source), f"{container.id}:{target}", timeout=600)

    def copy_out(self, container: Container, source: str, target: Path) -> bool:
        target.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(self.command("cp", f"{container.id}:{source}", str(target)), capture_output=True)
        return done.returncode == 0

    def remove(self, container: Container) -> None:
        try:
            subprocess.run(self.command(*self.rm_now, container.id), capture_output=True, timeout=120)
        except (subprocess.TimeoutExpired, RuntimeUnavailable, OSError):
            return
        with _LIVE_LOCK:
            _LIVE.pop(container.id, None)

    def containers(self, labels: Mapping[str, str]) -> list[dict[str, str]]:
        filters = [flag for key, value in labels.items() for flag in ("--filter", f"label={key}={value}")]
        ids = self.call("ps", "-a", "-q", "--no-trunc", *filters, timeout=60).split()
        if not ids:
            return []
        out = self.call("inspect", "--format", "{{.Id}} {{json .Config.Labels}}", *ids, timeout=60, check=False)
        found = []
        for line in out.splitlines():
            container_id, _, blob = line.partition(" ")
            found.append({"id": container_id, **(json.loads(blob or "{}") or {})})
        return found

    def images(self, labels: Mapping[str, str]) -> list[dict]:
        filters = [flag for key, value in labels.items() for flag in ("--filter", f"label={key}={value}")]
        ids = sorted(set(self.call("images", "-q", "--no-trunc", *filters, timeout=60).split()))
        if not ids:
            return []
        fields = "{{.Id}}\t{{json .RepoTags}}\t{{.Size}}\t{{json .Config.Labels}}"
        out = self.call("image", "inspect", "--format", fields, *ids, timeout=60, check=False)
        found = []
        for line in out.splitlines():
            image_id, tags, size, blob = (line.split("\t") + ["", "", ""])[:4]
            found.append({"id": image_id, "tags": json.loads(tags or "null") or [],
                          "size": int(size) if size.isdigit() else 0, "labels": json.loads(blob or "null") or {}})
        return found

    def sweep_stale(self) -> int:
        """Remove gym's containers on this host whose owning process is gone (a run killed outright)."""
        stale = [found for found in self.containers({LABEL_MANAGED: "1"}) if owner_gone(found.get(LABEL_OWNER, ""))]
        for found in stale:
            self.remove(Container(found["id"], ""))
        return len(stale)

    def remove_labelled(self, labels: Mapping[str, str]) -> int:
        found = self.containers({LABEL_MANAGED: "1", **labels})
        for item in found:
            self.remove(Container(item["id"], ""))
        return len(found)


class PodmanRuntime(CliRuntime):
    name = "podman"
    rm_now = ("rm", "-f", "-t", "0")

    def global_flags(self) -> list[str]:
        return ["--runtime", self.settings.oci_runtime] if self.settings.oci_runtime else []


class DockerRuntime(CliRuntime):
    name = "docker"
