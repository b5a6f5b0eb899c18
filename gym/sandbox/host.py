"""Run untrusted Python programs in a sandbox (Linux), gym's side.

    sandbox = Sandbox(memory_mb=1024)
    outcome = sandbox.run(source, [Run(stdin="1 2\\n", timeout=5)])
    outcome.results[0].stdout

One `run` starts the supervisor (gym/sandbox/inside.py, see its docstring) in a sandbox built by one of two
mechanisms, chosen once per process:

* `bwrap`: bubblewrap (when `bwrap` is on PATH and passes the probe), the primary mechanism;
* `namespaces`: the supervisor builds the same sandbox itself with user/mount/network/PID namespaces.

Both give the program the same view, an allow-list: the Python installation it runs on (interpreter,
shared libraries, standard library, the base installation's site-packages), read-only; /etc/ld.so.cache;
/dev/null and /dev/urandom; a private /proc; an empty, size-capped, writable tmpfs at /work (its cwd,
HOME and TMPDIR). Nothing else: not the checkout, the data, $HOME, the rest of /etc or the host's /tmp.
Its network namespace is empty (no TCP/UDP, and abstract Unix sockets are per namespace); no host
socket file is in its view. Each run is a fresh interpreter under rlimits and a seccomp filter.
Native mode (`toolchain=`, e.g. ("/usr",)): those host folders join the view read-only and the program may
fork and exec (a compiler, a grader's processes, shell commands); clones that make namespaces stay refused.
`site_packages=` adds a separate environment's packages, read-only and first on the program's path.

Each mechanism is probed once per process with a hostile program (network, host files, writes). If
none works, `Sandbox` refuses to run unless `allow_unsandboxed=True`: then only rlimits, seccomp, a
session and timeouts apply (mechanism `none`). A sandbox that fails to start raises SandboxUnavailable:
it never runs a program with less isolation than it chose.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import select
import shutil
import signal
import threading
import time
from dataclasses import dataclass
from typing import Callable

from gym.sandbox.view import (WORKDIR, SandboxUnavailable, bwrap_arguments, python_view,  # noqa: F401  (re-exported)
                              with_toolchain)

# The supervisor's source; it runs as `python -c`, so no file of the checkout is needed in the sandbox.
CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inside.py")
MECHANISMS = ("bwrap", "namespaces")


@dataclass
class Run:
    """One execution of the program: its stdin, wall-clock limit (the CPU limit follows) and stdout cap.
    With `judge` (Python source), the run's verdict is what that code writes: it runs in a process of
    its own, talks to the program over a pipe (see gym.verifiers.code.driver) and its output is `stdout`."""

    stdin: str = ""
    timeout: float = 10.0
    output_limit: int = 1 << 20  # bytes of stdout kept; more ends the run with status output_limit
    judge: str | None = None


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
    mechanism: str  # bwrap | namespaces | none
    error: str | None = None  # why runs are missing (time limit, sandbox ended), None when all ran or stopped
    stopped: bool = False  # on_result asked to stop
    time_s: float = 0.0

    @property
    def isolated(self) -> bool:
        return self.mechanism != "none"


DEFAULT_LIMITS = {"memory_mb": 2048, "processes": 64, "open_files": 256, "disk_mb": 256}
_lock = threading.Lock()
_probed: dict[str, tuple[bool, str]] = {}


class Sandbox:
    """Thread-safe runner; at most `max_parallel` sandboxes run at once across all callers."""

    def __init__(self, *, max_parallel: int | None = None, allow_unsandboxed: bool = False, memory_mb: int = 2048,
                 processes: int = 64, open_files: int = 256, disk_mb: int = 256, mechanism: str = "auto",
                 toolchain: tuple[str, ...] = (), site_packages: tuple[str, ...] = ()) -> None:
        self.limits = {"memory_mb": int(memory_mb), "processes": int(processes), "open_files": int(open_files),
                       "disk_mb": int(disk_mb)}
        if isinstance(toolchain, str) or isinstance(site_packages, str) or "/" in [os.path.abspath(str(p)) for p in
                                                                               (*toolchain, *site_packages)]:
            from gym.core.errors import GymError

            raise GymError(f"sandbox: toolchain and site_packages must be lists of folders other than /, got "
                           f"{toolchain!r} and {site_packages!r}")
        if toolchain:  # native programs: these host folders join the view read-only, and a program may
            self.limits["toolchain"] = [os.path.abspath(str(p)) for p in toolchain]  # start processes (see _seccomp)
        if site_packages:  # a separate environment's packages (read-only, first on the program's sys.path)
            self.limits["site_packages"] = [os.path.abspath(str(p)) for p in site_packages]
        if mechanism not in ("auto", *MECHANISMS):
            from gym.core.errors import GymError

            raise GymError(f"sandbox mechanism {mechanism!r} is not one of auto, {', '.join(MECHANISMS)}")
        self.requested = mechanism
        self.allow_unsandboxed = allow_unsandboxed
        self.max_parallel = max(1, int(max_parallel or os.cpu_count() or 1))
        self._slots = threading.BoundedSemaphore(self.max_parallel)
        self.mechanism: str | None = None

    @property
    def isolated(self) -> bool | None:
        return None if self.mechanism is None else self.mechanism != "none"

    def check(self) -> str:
        """The mechanism runs will use; a GymError when none isolates and that was not allowed."""
        candidates = MECHANISMS if self.requested == "auto" else (self.requested,)
        reasons = []
        for name in candidates:
            works, how = probe_isolation(name)
            if works:
                self.mechanism = name
                return name
            reasons.append(f"{name}: {how}")
        if not self.allow_unsandboxed or self.requested != "auto":
            from gym.core.errors import GymError

            hint = ("; set verifier option allow_unsandboxed=true to run it with resource limits only"
                    if self.requested == "auto" else "")
            raise GymError(f"running generated code needs an isolating sandbox, which this machine does not "
                           f"provide ({'; '.join(reasons)}){hint}")
        self.mechanism = "none"
        return "none"

    def run(self, source: str, runs: list[Run], *, total_timeout: float | None = None,
            on_result: Callable[[int, RunResult], bool | None] | None = None) -> Outcome:
        """Run `source` once per `Run`, in order; `on_result` returning False stops the rest."""
        if self.mechanism is None:
            self.check()
        with self._slots:
            return execute(source, runs, self.limits, str(self.mechanism), total_timeout, on_result)


# -- probing --------------------------------------------------------------------------------------------
PROBE = """
import os, socket
def attempt(action):
    try:
        action()
        return "open"
    except OSError:
        return "blocked"
def unix(address):
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(address)
print(attempt(lambda: socket.create_connection(("127.0.0.1", @PORT@), timeout=2)), attempt(lambda: os.remove(@TARGET@)),
      attempt(lambda: open(@SECRET@).read()), attempt(lambda: unix(@UNIX@)), attempt(lambda: unix(@ABSTRACT@)),
      len([p for p in os.listdir("/proc") if p.isdigit()]) < 8, os.getcwd())
"""


def probe_isolation(mechanism: str = "auto") -> tuple[bool, str]:
    """(isolating, how or why not) for a mechanism ("auto": the first that works), worked out once per process."""
    if mechanism == "auto":
        reasons = []
        for name in MECHANISMS:
            works, how = probe_isolation(name)
            if works:
                return True, how
            reasons.append(f"{name}: {how}")
        return False, "; ".join(reasons)
    with _lock:
        known = _probed.get(mechanism)
    if known is None:
        known = _probe(mechanism)
        with _lock:
            _probed[mechanism] = known
    return known


def _probe(mechanism: str) -> tuple[bool, str]:
    import socket
    import tempfile

    if mechanism == "bwrap" and not shutil.which("bwrap"):
        return False, "bwrap is not on PATH"
    outside = tempfile.mkdtemp(prefix="gym-probe-")
    target, secret = os.path.join(outside, "keep"), os.path.join(outside, "secret")
    for path in (target, secret):
        with open(path, "w") as handle:
            handle.write("x")
    os.chmod(outside, 0o777)  # only isolation, not file modes, may stop the delete
    listener = socket.create_server(("127.0.0.1", 0))
    unix, abstract = socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX)
    unix.bind(os.path.join(outside, "sock"))
    abstract.bind(f"\0gym-probe-{os.getpid()}-{id(abstract)}")
    for server in (unix, abstract):
        server.listen()
    try:
        source = (PROBE.replace("@PORT@", str(listener.getsockname()[1])).replace("@TARGET@", repr(target))
                  .replace("@SECRET@", repr(secret)).replace("@UNIX@", repr(unix.getsockname()))
                  .replace("@ABSTRACT@", repr(abstract.getsockname())))
        outcome = execute(source, [Run(timeout=20)], DEFAULT_LIMITS, mechanism, 60, None)
        result = outcome.results[0] if outcome.results else None
        if result is None or result.status != "ok":
            return False, f"probe program failed: {outcome.error or (result.stderr.strip()[-300:] if result else '')}"
        if result.stdout.split() != ["blocked"] * 5 + ["True", WORKDIR] or not os.path.exists(target):
            return False, f"a sandboxed program could reach out of its sandbox: {result.stdout.strip()}"
        return True, f"{mechanism}: allow-listed read-only view, private network/PID/IPC namespaces, seccomp"
    except SandboxUnavailable as exc:
        return False, str(exc)
    finally:
        for server in (listener, unix, abstract):
            server.close()
        _remove_tree(outside)


# -- one sandbox ----------------------------------------------------------------------------------------
def execute(source: str, runs: list[Run], limits: dict, mechanism: str, total_timeout: float | None,
            on_result: Callable[[int, RunResult], bool | None] | None) -> Outcome:
    """One sandbox for all `runs` (no semaphore, no probe: see Sandbox.run)."""
    import subprocess
    import tempfile

    if mechanism not in (*MECHANISMS, "none"):
        raise ValueError(f"unknown sandbox mechanism {mechanism!r}")
    started = time.monotonic()
    if total_timeout is None:
        total_timeout = sum(run.timeout for run in runs) + 10
    site = list(limits.get("site_packages") or ())
    view = with_toolchain(python_view(), [*(limits.get("toolchain") or ()), *site])
    workdir = tempfile.mkdtemp(prefix="gym-sandbox-") if mechanism == "none" else WORKDIR
    env = {"PATH": "/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
           "PYTHONPATH": os.pathsep.join([*site, view["pythonpath"]])}
    payload = marshal.dumps({"mechanism": mechanism, "view": view, "python": view["python"], "env": env,
                          "limits": {**limits, "host_root": os.getuid() == 0}, "source": source, "probe_absent": os.path.dirname(CHILD),
                          "runs": [{"stdin": r.stdin, "timeout": float(r.timeout), "output_limit": int(r.output_limit),
                                    "judge": r.judge} for r in runs]})
    stdin, errors = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    stdin.write(_supervisor_code())
    stdin.write(payload)
    stdin.seek(0)
    command = [view["python"], "-I", "-S", "-B", "-c", BOOTSTRAP]
    if mechanism == "bwrap":
        command = bwrap_arguments(view, limits["disk_mb"]) + ["--"] + command
    try:
        proc = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE, stderr=errors,
                                cwd=workdir if mechanism == "none" else "/", env=env, start_new_session=True)
    except OSError as exc:
        stdin.close()
        errors.close()
        if mechanism == "none":
            _remove_tree(workdir)
        raise SandboxUnavailable(f"cannot start the sandbox ({mechanism}): {exc}") from None
    outcome = Outcome([], mechanism)
    try:
        ready = _collect(proc, runs, outcome, started + total_timeout, on_result)
        if not ready:
            errors.seek(0)
            tail = errors.read()[-2000:].decode("utf-8", errors="replace").strip()
            raise SandboxUnavailable(f"sandbox ({mechanism}) failed to start: "
                                     f"{outcome.error or tail or 'no output'}")
        if outcome.error is None and not outcome.stopped and len(outcome.results) < len(runs):
            outcome.error = f"sandbox ended after {len(outcome.results)} of {len(runs)} runs"
    finally:
        _finish(proc, graceful=outcome.error is None and not outcome.stopped)
        proc.stdout.close()
        stdin.close()
        errors.close()
        if mechanism == "none":
            _remove_tree(workdir)
    outcome.time_s = round(time.monotonic() - started, 4)
    return outcome


# The supervisor (gym/sandbox/inside_sys.py, then gym/sandbox/inside.py, in one namespace) arrives on stdin as
# marshalled code objects, followed by its job: compiling its source in every sandbox would cost more CPU
# than the program's own start-up.
BOOTSTRAP = ("import marshal, sys\n_data = sys.stdin.buffer.read()\n_size = int.from_bytes(_data[:4], 'little')\n"
             "_scope = {'__name__': '__main__', 'JOB': _data[4 + _size:]}\n"
             "for _code in marshal.loads(_data[4:4 + _size]):\n    exec(_code, _scope)\n")
SUPERVISOR_FILES = (os.path.join(os.path.dirname(CHILD), "inside_sys.py"), CHILD)
_supervisor: bytes | None = None


def _supervisor_code() -> bytes:
    """The supervisor, compiled by this interpreter (the sandbox's is the same build: see python_view)."""
    global _supervisor
    if _supervisor is None:
        codes = []
        for path in SUPERVISOR_FILES:
            with open(path, encoding="utf-8") as handle:
                codes.append(compile(handle.read(), os.path.basename(path), "exec"))
        code = marshal.dumps(tuple(codes))
        _supervisor = len(code).to_bytes(4, "little") + code
    return _supervisor


def _collect(proc, runs: list[Run], outcome: Outcome, deadline: float,
             on_result: Callable[[int, RunResult], bool | None] | None) -> bool:
    """Read the sandbox's messages (length-prefixed marshal, written by gym's own supervisor) into `outcome`
    until done, stopped or out of time; True once it was ready."""
    fd, buffer, ready = proc.stdout.fileno(), bytearray(), False
    budget = sum(run.output_limit for run in runs) * 4 + (1 << 20)  # marshal stores a decoded byte in <= 4
    while True:
        size = int.from_bytes(buffer[:4], "little") if len(buffer) >= 4 else -1
        if size < 0 or len(buffer) < 4 + size:
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
        message = marshal.loads(bytes(buffer[4:4 + size]))
        del buffer[:4 + size]
        if "sandbox_error" in message:  # a restriction failed to apply to a process: refuse, never run weaker
            raise SandboxUnavailable(f"sandbox ({outcome.mechanism}) refused a run: {message['sandbox_error']}")
        if "ready" in message:
            if not message["ready"]:
                outcome.error = message.get("error") or "sandbox could not start"
                return False
            ready = True
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
    and reaps what it runs (bubblewrap and the namespace's PID 1 take everything inside along). Killing
    the whole group is the last resort, done while the group id is still ours (the leader is not reaped yet)."""
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
    def unlock(function, target, _exc) -> None:  # a program may chmod its files away from us
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            function(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=unlock)
