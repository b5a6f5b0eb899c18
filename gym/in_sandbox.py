"""The half of gym.sandbox that runs inside the sandbox: started as a script (`python -I -B in_sandbox.py`),
so standard library only and no imports from gym (isolated mode puts neither this directory nor the
project on sys.path, and whatever this file imports is visible to the programs it runs).

It reads one JSON job on stdin, enters the namespaces, then forks one child per run under rlimits and
a seccomp filter, and writes one JSON line per result (see gym.sandbox for the protocol's other side).
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import ctypes
import json
import linecache
import os
import platform
import re
import resource
import select
import signal
import sys
import time
import traceback

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 4, 24, 38, 22
NAMESPACES = 0x10000000 | 0x00020000 | 0x40000000 | 0x20000000 | 0x08000000 | 0x04000000  # user mnt net pid ipc uts
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MOUNT_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": 1024, "nodiratime": 2048,
               "relatime": 1 << 21}  # flags a remount inside a user namespace must keep
# arch -> (audit arch, capset, refused: fork vfork execve execveat ptrace setpgid setsid io_uring*3 unshare setns
#          mount umount2 pivot_root chroot, clone, clone3, socket)
ARCHES = {
    "x86_64": (0xC000003E, 126, (57, 58, 59, 322, 101, 109, 112, 425, 426, 427, 272, 308, 165, 166, 155, 161),
               56, 435, 41),
    "aarch64": (0xC00000B7, 91, (221, 281, 117, 154, 157, 425, 426, 427, 97, 268, 40, 39, 41, 51), 220, 435, 198),
}
STDERR_TAIL = 4000

_libc = None


_victim = 0  # the process to kill and reap before exiting on SIGTERM


def _on_terminate(signum, frame) -> None:
    if _victim:
        with contextlib.suppress(OSError):
            os.kill(_victim, signal.SIGKILL)
            os.waitpid(_victim, 0)
    os._exit(128 + signum)


def _fork() -> int:
    """fork(); in the parent the child becomes the SIGTERM victim, with no gap for a signal to fall into."""
    global _victim
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    pid = os.fork()
    _victim = pid
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    return pid


def _c(name: str, *args):
    """Call a libc function; OSError on -1."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    result = getattr(_libc, name)(*args)
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")
    return result


def _prctl(option: int, value: int = 0) -> None:
    _c("prctl", option, ctypes.c_ulong(value), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


def _mount(source, target: str, fstype, flags: int, data=None) -> None:
    _c("mount", source, target.encode(), fstype, ctypes.c_ulong(flags), data)


def _hide(homes: list[str], keep: list[str]) -> None:
    """Cover home directories (tokens, keys, caches) with empty read-only mounts; only entries leading
    to a `keep` path (the Python installation) stay visible."""
    def leads_to_kept(path: str) -> bool:
        return any(kept == path or kept.startswith(path.rstrip("/") + "/") for kept in keep)

    for home in homes:
        paths = [home] if not leads_to_kept(home) else [os.path.join(home, e) for e in os.listdir(home)]
        for path in paths:
            if leads_to_kept(path) or os.path.islink(path):
                continue
            with contextlib.suppress(OSError):
                if os.path.isdir(path):
                    _mount(b"tmpfs", path, b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, b"size=4k,mode=0755")
                else:
                    _mount(b"/dev/null", path, None, MS_BIND)
                    _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY)


def _enter_namespaces(workdir: str, disk_mb: int, homes: list[str], keep: list[str]) -> None:
    """Become PID 1 of fresh namespaces with a read-only view of the machine and no capabilities."""
    arch = ARCHES.get(platform.machine())
    if arch is None:
        raise OSError(f"no capability/seccomp table for {platform.machine()}")
    uid, gid = os.geteuid(), os.getegid()
    _c("unshare", NAMESPACES)
    for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"0 {uid} 1"),
                       ("/proc/self/gid_map", f"0 {gid} 1")):
        with open(path, "w") as handle:
            handle.write(text)
    child = _fork()
    if child:  # outside the PID namespace: wait for its init and hand on the exit status
        _, status = os.waitpid(child, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # our parent gone -> init gone -> namespace gone
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    points = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            points.append((point, sum(MOUNT_FLAGS.get(opt, 0) for opt in fields[5].split(","))))
    for point, flags in points:
        try:
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)
        except OSError:
            if point == "/":
                raise
    _hide(homes, keep)
    _mount(b"tmpfs", workdir, b"tmpfs", MS_NOSUID | MS_NODEV, f"size={disk_mb}m,mode=0700".encode())
    try:  # a /proc that shows only the sandbox's own processes
        _mount(b"proc", "/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        pass
    os.chdir(workdir)
    for cap in range(64):  # empty bounding set, then no capabilities at all
        try:
            _prctl(PR_CAPBSET_DROP, cap)
        except OSError:
            break
    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
    _c("syscall", ctypes.c_long(arch[1]), header, data)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


def _seccomp() -> None:
    """Refuse new processes, exec, network sockets, io_uring, ptrace, mounts, namespaces, leaving the group."""
    arch = ARCHES.get(platform.machine())
    if arch is None:
        return
    audit, _, refused, clone, clone3, sock = arch
    allow, eperm, enosys = 0x7FFF0000, 0x00050001, 0x00050026
    ld, jeq, jset, jge, ret = 0x20, 0x15, 0x45, 0x35, 0x06  # classic BPF opcodes
    # (code, jump if true, jump if false, k); jumps count instructions after the next one
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, audit), (ret, 0, 0, eperm),  # foreign ABI (int 0x80): refuse
            (ld, 0, 0, 0), (jge, 0, 1, 0x40000000), (ret, 0, 0, eperm),  # x32 ABI: refuse
            (jeq, 0, 1, clone3), (ret, 0, 0, enosys)]  # glibc falls back to clone, which we can inspect
    for number in refused:
        prog += [(jeq, 0, 1, number), (ret, 0, 0, eperm)]
    prog += [(jeq, 0, 4, clone), (ld, 0, 0, 16), (jset, 0, 1, 0x00010000), (ret, 0, 0, allow), (ret, 0, 0, eperm),
             (jeq, 0, 4, sock), (ld, 0, 0, 16), (jeq, 0, 1, 1), (ret, 0, 0, allow), (ret, 0, 0, eperm),
             (ret, 0, 0, allow)]  # clone only for threads; sockets only AF_UNIX
    raw = b"".join(code.to_bytes(2, "little") + bytes((jt, jf)) + k.to_bytes(4, "little") for code, jt, jf, k in prog)
    buffer = ctypes.create_string_buffer(raw, len(raw))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    program = Program(len(prog), ctypes.addressof(buffer))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _c("prctl", PR_SET_SECCOMP, ctypes.c_ulong(2), ctypes.byref(program), ctypes.c_ulong(0), ctypes.c_ulong(0))


def _program(source: str, fds: tuple[int, int, int], limits: dict, timeout: float, output_limit: int) -> None:
    """In the forked child: wire stdio, apply limits, run `source` as __main__, exit like python would."""
    code = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 1 << 16)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        memory = limits["memory_mb"] << 20
        cpu = int(timeout) + 2
        for kind, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu),
                            (resource.RLIMIT_FSIZE, output_limit), (resource.RLIMIT_NOFILE, limits["open_files"]),
                            (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, limits["processes"]),
                            (resource.RLIMIT_STACK, min(memory, 1 << 30))):
            hard = resource.getrlimit(kind)[1]
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, value if kind != resource.RLIMIT_CPU else value + 1))
        _prctl(PR_SET_DUMPABLE, 1)
        _seccomp()
        sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)
        sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", errors="surrogateescape", closefd=False)
        sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
        sys.argv = ["solution.py"]
        scope = {"__name__": "__main__", "__builtins__": builtins, "__file__": "solution.py"}
        linecache.cache["solution.py"] = (len(source), None, source.splitlines(True), "solution.py")
        try:
            exec(compile(source, "solution.py", "exec"), scope)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if not isinstance(exc.code, (int, type(None))):
                print(exc.code, file=sys.stderr)
        except BaseException as exc:  # as python would print it, without this file's frame
            traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next)
        threading = sys.modules.get("threading")
        if threading is not None:  # like interpreter exit: wait for non-daemon threads, then atexit
            threading._shutdown()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        code = code or 1
    finally:
        os._exit(code & 0xFF)


def _wait(pid: int, timeout: float) -> int | None:
    """Wait status of `pid`, or None after `timeout` seconds (the child is then still running)."""
    deadline, pidfd = time.monotonic() + timeout, os.pidfd_open(pid)
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


def _run_one(source: str, run: dict, limits: dict, init: bool) -> dict:
    """Fork, run, wait (killing on overrun), and describe the run; stdio lives in memfds."""
    stdin, out, err = (os.memfd_create(name) for name in ("stdin", "stdout", "stderr"))
    try:
        data = memoryview(run["stdin"].encode("utf-8", errors="surrogateescape"))
        while data:
            data = data[os.write(stdin, data):]
        os.lseek(stdin, 0, os.SEEK_SET)
        started = time.monotonic()
        pid = _fork()
        if pid == 0:
            _program(source, (stdin, out, err), limits, run["timeout"], run["output_limit"] + 1)
        status = _wait(pid, run["timeout"])
        elapsed = time.monotonic() - started
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        global _victim
        _victim = 0
        if init:  # PID 1 of the namespace: nothing else may outlive the run
            with contextlib.suppress(OSError):
                os.kill(-1, signal.SIGKILL)
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
        size, error_size = os.fstat(out).st_size, os.fstat(err).st_size
        stdout = os.pread(out, min(size, run["output_limit"]), 0)
        stderr = os.pread(err, STDERR_TAIL, max(0, error_size - STDERR_TAIL))
    finally:
        for fd in (stdin, out, err):
            os.close(fd)
    result = {"status": "ok", "exit_code": None, "signal": None, "stdout": stdout.decode("utf-8", errors="replace"),
              "stderr": stderr.decode("utf-8", errors="replace"), "time_s": round(elapsed, 4)}
    if status is None:
        result["status"] = "timeout"
    elif os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        result["signal"] = signal.Signals(number).name if number in signal.valid_signals() else str(number)
        result["status"] = {signal.SIGXCPU: "timeout", signal.SIGXFSZ: "output_limit"}.get(number, "killed")
    else:
        result["exit_code"] = os.WEXITSTATUS(status)
        result["status"] = "ok" if result["exit_code"] == 0 else "error"
    if size > run["output_limit"] and result["status"] in ("ok", "error"):
        result["status"] = "output_limit"
    return result


def _emit(message: dict) -> None:
    os.write(1, (json.dumps(message) + "\n").encode())


def _child_main() -> None:
    signal.signal(signal.SIGTERM, _on_terminate)  # gym's way to stop us: we take our child down first
    payload = json.loads(sys.stdin.buffer.read())
    limits, isolated = payload["limits"], False
    if payload["isolate"]:
        try:
            _enter_namespaces(payload["workdir"], limits["disk_mb"], payload["homes"], payload["keep"])
            isolated = True
        except OSError as exc:
            _emit({"ready": False, "error": f"cannot isolate: {exc}"})
            os._exit(3)
    _prctl(PR_SET_DUMPABLE, 0)  # programs may not open our /proc files (stdout) or ptrace us
    _emit({"ready": True, "isolated": isolated})
    init = os.getpid() == 1
    for index, run in enumerate(payload["runs"]):
        result = _run_one(payload["source"], run, limits, init)
        result["index"] = index
        _emit(result)


if __name__ == "__main__":
    _child_main()
