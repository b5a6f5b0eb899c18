"""Run untrusted Python programs in a sandboxed subprocess (Linux).

    sandbox = Sandbox(memory_mb=1024)
    outcome = sandbox.run(source, [Run(stdin="1 2\\n", timeout=5)])
    outcome.results[0].stdout

One `run` starts gym/in_sandbox.py as a script (`python -I -B in_sandbox.py`, standard library only)
in a new session with a scrubbed environment and a fresh temp dir. It enters new user, mount, network, PID,
IPC and UTS namespaces, remounts every file system read-only, covers home directories with empty
mounts, mounts a size-capped tmpfs as its work dir and a fresh /proc, drops all capabilities, then runs each `Run` in a forked child with rlimits
(address space, CPU, file size, processes, open files) and a seccomp filter refusing fork/exec,
non-Unix sockets, io_uring, ptrace, mounts and leaving the process group. Results stream back as
JSON lines, so callers can stop at the first failing test. On overrun or early stop the sandbox is
sent SIGTERM (it kills and reaps its child; PID 1 of the namespace dying takes everything inside
along) and its process group is killed last.

Whether isolation works is probed once per process (connect to 127.0.0.1, delete a file outside the
work dir). Without it `Sandbox` refuses to run unless `allow_unsandboxed=True`: then only the rlimits,
the seccomp filter, the session and the timeouts apply.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

# The script the sandbox process runs (standard library only, see its docstring). This module is the
# parent side, used by gym: imports beyond the standard library stay inside functions.
CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "in_sandbox.py")


@dataclass
class Run:
    """One execution of the program: its stdin, wall-clock limit (the CPU limit follows) and stdout cap."""

    stdin: str = ""
    timeout: float = 10.0
    output_limit: int = 1 << 20  # bytes of stdout kept; more ends the run with status output_limit


@dataclass
class RunResult:
    status: str  # ok | error (non-zero exit) | timeout | killed (signal) | output_limit
    exit_code: int | None
    signal: str | None
    stdout: str
    stderr: str  # the last few KB
    time_s: float


@dataclass
class Outcome:
    results: list[RunResult]  # in run order; fewer than asked when stopped early or on error
    isolated: bool
    error: str | None = None  # why runs are missing (time limit, sandbox ended), None when all ran or stopped
    stopped: bool = False  # on_result asked to stop
    time_s: float = 0.0


class SandboxUnavailable(RuntimeError):
    """The sandbox itself could not start: a problem of the machine, not of the program."""


DEFAULT_LIMITS = {"memory_mb": 2048, "processes": 64, "open_files": 256, "disk_mb": 256}
_isolation_lock = threading.Lock()
_isolation: tuple[bool, str] | None = None


class Sandbox:
    """Thread-safe runner; at most `max_parallel` sandboxes run at once across all callers."""

    def __init__(self, *, max_parallel: int | None = None, allow_unsandboxed: bool = False, memory_mb: int = 2048,
                 processes: int = 64, open_files: int = 256, disk_mb: int = 256) -> None:
        self.limits = {"memory_mb": int(memory_mb), "processes": int(processes), "open_files": int(open_files),
                       "disk_mb": int(disk_mb)}
        self.allow_unsandboxed = allow_unsandboxed
        self.max_parallel = max(1, int(max_parallel or os.cpu_count() or 1))
        self._slots = threading.BoundedSemaphore(self.max_parallel)
        self.isolated: bool | None = None

    def check(self) -> bool:
        """Whether runs are isolated; a GymError when they cannot be and that was not allowed."""
        isolated, reason = probe_isolation()
        if not isolated and not self.allow_unsandboxed:
            from gym.errors import GymError

            raise GymError(f"running generated code needs process isolation (user, mount and network namespaces), "
                           f"which this machine does not provide ({reason}); set verifier option "
                           f"allow_unsandboxed=true to run it with resource limits only")
        self.isolated = isolated
        return isolated

    def run(self, source: str, runs: list[Run], *, total_timeout: float | None = None,
            on_result: Callable[[int, RunResult], bool | None] | None = None) -> Outcome:
        """Run `source` once per `Run`, in order; `on_result` returning False stops the rest."""
        if self.isolated is None:
            self.check()
        with self._slots:
            return execute(source, runs, self.limits, bool(self.isolated), total_timeout, on_result)


def probe_isolation() -> tuple[bool, str]:
    """(isolated, how or why not), worked out once per process by running a probe program."""
    global _isolation
    with _isolation_lock:
        if _isolation is None:
            _isolation = _probe()
        return _isolation


PROBE = """
import os, socket
def attempt(action):
    try:
        action()
        return "open"
    except OSError:
        return "blocked"
print(attempt(lambda: socket.create_connection(("127.0.0.1", PORT), timeout=2)), attempt(lambda: os.remove(TARGET)))
"""


def _probe() -> tuple[bool, str]:
    import socket
    import tempfile

    outside = tempfile.mkdtemp(prefix="gym-probe-")
    target = os.path.join(outside, "keep")
    open(target, "w").close()
    os.chmod(outside, 0o777)  # only isolation, not file modes, may stop the delete
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        source = PROBE.replace("PORT", str(listener.getsockname()[1])).replace("TARGET", repr(target))
        outcome = execute(source, [Run(timeout=20)], DEFAULT_LIMITS, True, 60, None)
        result = outcome.results[0] if outcome.results else None
        if result is None or result.status != "ok":
            return False, f"probe program failed: {outcome.error or (result.stderr.strip()[-300:] if result else '')}"
        if result.stdout.split() != ["blocked", "blocked"] or not os.path.exists(target):
            return False, f"a sandboxed program could reach 127.0.0.1 or delete outside its work dir: {result.stdout}"
        return True, "user, mount, network and PID namespaces, read-only file systems"
    except SandboxUnavailable as exc:
        return False, str(exc)
    finally:
        listener.close()
        _remove_tree(outside)


def execute(source: str, runs: list[Run], limits: dict, isolate: bool, total_timeout: float | None,
            on_result: Callable[[int, RunResult], bool | None] | None) -> Outcome:
    """One sandbox process for all `runs` (no semaphore, no isolation check: see Sandbox.run)."""
    import subprocess
    import tempfile

    started = time.monotonic()
    if total_timeout is None:
        total_timeout = sum(run.timeout for run in runs) + 10
    workdir = tempfile.mkdtemp(prefix="gym-sandbox-")
    homes = sorted({os.path.realpath(p) for p in (os.path.expanduser("~"), "/root") if os.path.isdir(p)})
    keep = sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.executable,
                                                  CHILD)})
    payload = json.dumps({"source": source, "limits": limits, "isolate": isolate, "workdir": workdir,
                          "homes": [h for h in homes if h != "/"], "keep": keep,
                          "runs": [{"stdin": r.stdin, "timeout": float(r.timeout), "output_limit": int(r.output_limit)}
                                   for r in runs]}).encode("utf-8", errors="surrogateescape")
    stdin, errors = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    stdin.write(payload)
    stdin.seek(0)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8"}
    try:
        proc = subprocess.Popen([sys.executable, "-I", "-B", CHILD], stdin=stdin,
                                stdout=subprocess.PIPE, stderr=errors, cwd=workdir, env=env, start_new_session=True)
    except OSError as exc:
        _remove_tree(workdir)
        raise SandboxUnavailable(f"cannot start the sandbox process: {exc}") from None
    outcome = Outcome([], isolate)
    try:
        ready = _collect(proc, runs, outcome, started + total_timeout, on_result)
        if not ready:
            errors.seek(0)
            tail = errors.read()[-2000:].decode("utf-8", errors="replace").strip()
            raise SandboxUnavailable(outcome.error or f"sandbox process failed to start: {tail or 'no output'}")
        if outcome.error is None and not outcome.stopped and len(outcome.results) < len(runs):
            outcome.error = f"sandbox ended after {len(outcome.results)} of {len(runs)} runs"
    finally:
        _finish(proc, graceful=outcome.error is None and not outcome.stopped)
        proc.stdout.close()
        stdin.close()
        errors.close()
        _remove_tree(workdir)
    outcome.time_s = round(time.monotonic() - started, 4)
    return outcome


def _collect(proc, runs: list[Run], outcome: Outcome, deadline: float,
             on_result: Callable[[int, RunResult], bool | None] | None) -> bool:
    """Read the sandbox's JSON lines into `outcome` until done, stopped or out of time; True once it was ready."""
    fd, buffer, ready = proc.stdout.fileno(), bytearray(), False
    budget = sum(run.output_limit for run in runs) * 6 + (1 << 20)  # JSON escapes a byte into at most 6
    while True:
        newline = buffer.find(b"\n")
        if newline < 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                outcome.error = "total time limit exceeded"
                return ready
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return ready
            buffer += chunk
            if len(buffer) > budget:
                outcome.error = "sandbox output exceeded its budget"
                return ready
            continue
        message = json.loads(bytes(buffer[:newline]))
        del buffer[:newline + 1]
        if "ready" in message:
            if not message["ready"]:
                outcome.error = message.get("error") or "sandbox could not start"
                return False
            ready, outcome.isolated = True, bool(message["isolated"])
            continue
        result = RunResult(message["status"], message["exit_code"], message["signal"], message["stdout"],
                           message["stderr"], message["time_s"])
        outcome.results.append(result)
        if on_result is not None and on_result(message["index"], result) is False and len(outcome.results) < len(runs):
            outcome.stopped = True
            return ready
        if len(outcome.results) == len(runs):
            return ready


def _finish(proc, graceful: bool) -> None:
    """End the sandbox leaving no orphans: after its last result it exits by itself; on SIGTERM it kills
    and reaps what it runs. Killing the whole group is the last resort, done while the group id is still
    ours (the leader is not reaped yet)."""
    pidfd = os.pidfd_open(proc.pid)
    try:
        if not select.select([pidfd], [], [], 2.0 if graceful else 0.0)[0]:
            proc.send_signal(signal.SIGTERM)
            select.select([pidfd], [], [], 2.0)
    finally:
        os.close(pidfd)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _remove_tree(path: str) -> None:
    import shutil

    def unlock(function, target, _exc) -> None:  # a program may chmod its files away from us
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            function(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=unlock)
