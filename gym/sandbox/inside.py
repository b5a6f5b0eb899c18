"""The sandbox supervisor: the half of gym.sandbox.host that runs inside the sandbox.

gym starts it as `python -I -S -B -c <this file's text>` (standard library only, no file of the checkout
needed), either inside bubblewrap, which has already built the sandbox, or directly, in which case it
builds the same sandbox itself (mechanism "namespaces"). It reads one job on stdin, writes one
message per finished run on stdout (both in marshal format, length-prefixed on the way out: no json,
whose import would cost more than the rest of the start-up), and for each run:

* starts the program in a fresh interpreter: fork, rlimits, a seccomp filter, then exec of
  `python -s -S -B -c LOADER` with the source on fd 9; nothing of this process is left in it;
* for a run with a judge (HumanEval-style test code), also forks the judge from this process: it runs
  the test code with a stand-in for the function under test that forwards every call to the program
  over a pipe, and writes the verdict to a file descriptor only it holds. The program never sees the
  test code, the expected values or that descriptor; this process and the judge are not dumpable, so
  neither /proc/<pid>/fd nor /proc/<pid>/mem opens them. A verdict exists only if check() returned.

The namespaces mechanism (run as an unprivileged user or as root): new user, mount, network, PID, IPC
and UTS namespaces; a new root on a tmpfs holding only the allow-listed paths (read-only bind mounts),
/dev/null, /dev/urandom, a fresh /proc and a size-capped tmpfs work dir at /work; pivot_root into it,
the old root detached, the new root remounted read-only; every capability dropped. Any step that
fails ends the supervisor with `{"ready": false}`: gym then refuses to run the program.
"""

from __future__ import annotations

import fcntl
import marshal
import os
import select
import _signal as signal  # the C module: `signal` would import enum, a cost in every sandbox
import sys
import time

if "_prctl" not in globals():  # imported from the checkout (tests, tools); in the sandbox gym.sandbox.host runs it first
    import gym.sandbox.inside_sys as _sys_part

    globals().update({name: value for name, value in vars(_sys_part).items() if not name.startswith("__")})

STDERR_TAIL = 4000
# What the fresh interpreter runs first: read the program from fd 9, then run it as `python solution.py` would
# (threads get 32 MiB stacks: the default, the stack rlimit, would eat the address space limit).
LOADER = ("import sys as _s, _thread as _t\n_t.stack_size(32 << 20)\n_f = open(9, 'rb')\n_f.seek(0)\n_c = compile(_f.read(), 'solution.py', 'exec')\n_f.close()\n"
          "_s.argv[:] = ['solution.py']\n__file__ = 'solution.py'\ndel _s, _t, _f\nexec(_c)\n")


def _remap(fds: dict[int, int]) -> None:
    """dup2 each fd to its target without one target clobbering a later source."""
    high = {target: fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for target, fd in fds.items()}
    for target, fd in high.items():
        os.dup2(fd, target)
        os.close(fd)


class SetupFailed(Exception):
    """A restriction could not be applied to a process: nothing may run with less (gym: verifier error)."""


def _started(pid: int, status_read: int) -> int:
    """The parent's half of the fork/exec status pipe: EOF alone (closed by exec) or one b"+" means set up."""
    report = b""
    while chunk := os.read(status_read, 4096):
        report += chunk
    os.close(status_read)
    if report.lstrip(b"+"):
        os.waitpid(pid, 0)
        _victims.remove(pid)
        raise SetupFailed(report.lstrip(b"+").decode("utf-8", "replace"))
    return pid


def _start_program(job: dict, run: dict, fds: dict[int, int], python_fd: int) -> int:
    """Fork and exec a fresh interpreter running the program; `fds` maps child fd -> our fd. A failure
    before exec comes back through a close-on-exec pipe, which the program never holds (so it cannot fake one)."""
    status_read, status_write = os.pipe2(os.O_CLOEXEC)
    pid = _fork()
    if pid:
        os.close(status_write)
        return _started(pid, status_read)
    try:
        _remap({**fds, EXEC_FD: python_fd, STATUS_FD: status_write})
        os.set_inheritable(EXEC_FD, False)
        os.set_inheritable(STATUS_FD, False)
        keep = set(fds) | {EXEC_FD, STATUS_FD}
        for fd in range(3, 64):
            if fd not in keep:
                with _quiet(OSError):
                    os.close(fd)
        os.closerange(64, 1 << 16)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        _limit(job["limits"], run["timeout"], run["output_limit"] + 1)
        _seccomp(spawn=bool(job["limits"].get("toolchain")))
        os.execve(EXEC_FD, [job["python"], "-s", "-S", "-B", "-c", LOADER], job["env"])
    except BaseException as exc:
        with _quiet(OSError):
            os.write(STATUS_FD, f"cannot start the program: {exc}".encode())
    os._exit(127)


def _start_judge(job: dict, run: dict, fds: dict[int, int]) -> int:
    """Fork the judge: it runs the test code in this (non-dumpable) process image, not the program."""
    status_read, status_write = os.pipe2(os.O_CLOEXEC)
    pid = _fork()
    if pid:
        os.close(status_write)
        return _started(pid, status_read)
    code = 1
    try:
        try:
            _remap({**fds, STATUS_FD: status_write})
            os.closerange(5, STATUS_FD)
            os.closerange(STATUS_FD + 1, 1 << 16)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, set())
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            _limit(job["limits"], run["timeout"], run["output_limit"] + 1)
            _seccomp()
            os.write(STATUS_FD, b"+")
        except BaseException as exc:
            os.write(STATUS_FD, f"cannot start the judge: {exc}".encode())
            raise
        finally:
            os.close(STATUS_FD)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
        scope = {"__name__": "judge", "__builtins__": __builtins__, "PEER_IN": PEER_IN, "PEER_OUT": PEER_OUT}
        exec(compile(run["judge"], "judge.py", "exec"), scope)
        code = 0
    except BaseException:
        import traceback

        with _quiet(BaseException):
            traceback.print_exc()
    finally:
        with _quiet(BaseException):
            sys.stdout.flush()
        os._exit(code)


def _wait(pid: int, deadline: float) -> int | None:
    """Wait status of `pid`, or None at `deadline` (the process is then still running)."""
    pidfd = os.pidfd_open(pid)
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            if deadline <= time.monotonic():
                return None
            select.select([pidfd], [], [], max(0.0, deadline - time.monotonic()))
    finally:
        os.close(pidfd)


def _memfd(name: str, data: bytes = b"") -> int:
    fd = os.memfd_create(name)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _describe(status: int | None) -> dict:
    if status is None:
        return {"status": "timeout", "exit_code": None, "signal": None}
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        import signal as named  # only when a process died by a signal

        name = named.Signals(number).name if number in signal.valid_signals() else str(number)
        kind = {signal.SIGXCPU: "timeout", signal.SIGXFSZ: "output_limit"}.get(number, "killed")
        return {"status": kind, "exit_code": None, "signal": name}
    code = os.WEXITSTATUS(status)
    return {"status": "ok" if code == 0 else "error", "exit_code": code, "signal": None}


def _tail(fd: int, limit: int = STDERR_TAIL) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, limit, max(0, size - limit))


def _run_one(job: dict, run: dict, python_fd: int, source_fd: int, init: bool) -> dict:
    """Start the program (and its judge), wait with the time limit, kill what is left, describe the run."""
    stdin = _memfd("stdin", run["stdin"].encode("utf-8", errors="surrogateescape"))
    out, err = os.memfd_create("stdout"), os.memfd_create("stderr")
    extra: list[int] = []
    try:
        fds = {0: stdin, 1: out, 2: err, SOURCE_FD: source_fd}
        started = time.monotonic()
        judge = None
        if run.get("judge"):
            to_program, from_judge = os.pipe()
            to_judge, from_program = os.pipe()
            verdict, judge_err = os.memfd_create("verdict"), os.memfd_create("judge-stderr")
            null = os.open(os.devnull, os.O_RDONLY)
            extra = [verdict, judge_err]
            program = _start_program(job, run, {**fds, PEER_IN: to_program, PEER_OUT: from_program}, python_fd)
            judge = _start_judge(job, run, {0: null, 1: verdict, 2: judge_err, PEER_IN: to_judge, PEER_OUT: from_judge})
            for fd in (to_program, from_judge, to_judge, from_program, null):
                os.close(fd)
        else:
            program = _start_program(job, run, fds, python_fd)
        status = _wait(judge or program, started + run["timeout"])
        elapsed = time.monotonic() - started
        for pid in (program, judge):
            if pid:
                with _quiet(OSError):
                    os.kill(pid, signal.SIGKILL)
        if status is None:
            os.waitpid(judge or program, 0)
        if judge:
            os.waitpid(program, 0)
        _victims.clear()
        if init:  # PID 1 of the namespace: nothing else may outlive the run
            with _quiet(OSError):
                os.kill(-1, signal.SIGKILL)
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
        result = _describe(status)
        if judge is None:
            size = os.fstat(out).st_size
            stdout = os.pread(out, min(size, run["output_limit"]), 0)
            stderr = _tail(err)
            if size > run["output_limit"] and result["status"] in ("ok", "error"):
                result["status"] = "output_limit"
        else:  # the verdict is what the judge wrote; the program's stderr explains a failure
            size = os.fstat(extra[0]).st_size
            stdout = os.pread(extra[0], min(size, run["output_limit"]), 0)
            if size > run["output_limit"] and result["status"] in ("ok", "error"):
                result["status"] = "output_limit"
            stderr = _tail(err) + _tail(extra[1])
    finally:
        for fd in (stdin, out, err, *extra):
            os.close(fd)
    result.update({"stdout": stdout.decode("utf-8", errors="replace"),
                   "stderr": stderr.decode("utf-8", errors="replace"), "time_s": round(elapsed, 4)})
    return result


def _emit(message: dict) -> None:
    body = marshal.dumps(message)
    data = len(body).to_bytes(4, "little") + body
    while data:
        data = data[os.write(1, data):]


def main() -> None:
    signal.signal(signal.SIGTERM, _on_terminate)  # gym's way to stop us: we take our children down first
    job = marshal.loads(globals().get("JOB") or sys.stdin.buffer.read())  # JOB: see gym.sandbox.host.BOOTSTRAP
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # the job (with every run's judge) stays with no process
    os.close(null)
    try:
        if job["mechanism"] == "namespaces":
            _enter_namespaces(job["view"], job["limits"]["disk_mb"])
        elif job["mechanism"] == "bwrap":  # bubblewrap built the view; make sure it is the one we asked for
            if os.getcwd() != WORKDIR or not os.path.isdir("/proc/self") or os.path.exists(job["probe_absent"]):
                raise OSError("the bubblewrap sandbox does not look as requested")
            _prctl(PR_SET_NO_NEW_PRIVS, 1)
        elif job["mechanism"] != "none":
            raise OSError(f"unknown mechanism {job['mechanism']!r}")
        python_fd = os.open(job["python"], os.O_RDONLY | os.O_CLOEXEC)
        _prctl(PR_SET_DUMPABLE, 0)  # programs may not open our /proc files or read our memory
    except OSError as exc:
        _emit({"ready": False, "error": f"cannot isolate: {exc}"})
        os._exit(3)
    source_fd = _memfd("source", job["source"].encode("utf-8", errors="surrogateescape"))
    _emit({"ready": True, "mechanism": job["mechanism"]})
    init = os.getpid() == 1
    for index, run in enumerate(job["runs"]):
        try:
            result = _run_one(job, run, python_fd, source_fd, init)
        except SetupFailed as exc:
            _emit({"sandbox_error": str(exc)})
            os._exit(3)
        result["index"] = index
        _emit(result)


if __name__ == "__main__":
    main()
