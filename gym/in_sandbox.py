"""The sandbox supervisor: the half of gym.sandbox that runs inside the sandbox.

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

import ctypes
import fcntl
import marshal
import os
import resource
import select
import signal
import sys
import time

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 4, 24, 38, 22
NAMESPACES = 0x10000000 | 0x00020000 | 0x40000000 | 0x20000000 | 0x08000000 | 0x04000000  # user mnt net pid ipc uts
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE, MNT_DETACH = 4096, 16384, 1 << 18, 2
MOUNT_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": 1024, "nodiratime": 2048,
               "relatime": 1 << 21}  # flags a read-only remount inside a user namespace must keep
# arch -> (audit arch, capset, pivot_root, execveat, clone, clone3, socket, kill, refused: fork vfork execve
#          ptrace setpgid setsid io_uring*3 unshare setns mount umount2 pivot_root chroot process_vm_readv/writev kcmp)
ARCHES = {
    "x86_64": (0xC000003E, 126, 155, 322, 56, 435, 41, 62,
               (57, 58, 59, 101, 109, 112, 425, 426, 427, 272, 308, 165, 166, 155, 161, 310, 311, 312)),
    "aarch64": (0xC00000B7, 91, 41, 281, 220, 435, 198, 129,
                (221, 117, 154, 157, 425, 426, 427, 97, 268, 40, 39, 41, 51, 270, 271, 272)),
}
SOURCE_FD, EXEC_FD, STATUS_FD, PEER_IN, PEER_OUT = 9, 10, 11, 3, 4  # fds of a program process; the judge's pipes
AT_EMPTY_PATH = 0x1000
STDERR_TAIL = 4000
WORKDIR = "/work"
# What the fresh interpreter runs first: read the program from fd 9, then run it as `python solution.py` would
# (threads get 32 MiB stacks: the default, the stack rlimit, would eat the address space limit).
LOADER = ("import sys as _s, _thread as _t\n_t.stack_size(32 << 20)\n_f = open(9, 'rb')\n_f.seek(0)\n_c = compile(_f.read(), 'solution.py', 'exec')\n_f.close()\n"
          "_s.argv[:] = ['solution.py']\n__file__ = 'solution.py'\ndel _s, _t, _f\nexec(_c)\n")

_libc = None


class _quiet:
    """contextlib.suppress without importing contextlib (start-up time counts here)."""

    def __init__(self, *kinds) -> None:
        self.kinds = kinds

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, value, trace) -> bool:
        return kind is not None and issubclass(kind, self.kinds)

_victims: list[int] = []  # processes to kill and reap before exiting on SIGTERM


def _on_terminate(signum, frame) -> None:
    for pid in _victims:
        with _quiet(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    os._exit(128 + signum)


def _fork() -> int:
    """fork(); in the parent the child becomes a SIGTERM victim, with no gap for a signal to fall into."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    pid = os.fork()
    if pid:
        _victims.append(pid)
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


def _arch() -> tuple:
    arch = ARCHES.get(os.uname().machine)
    if arch is None:
        raise OSError(f"no seccomp table for {os.uname().machine}")
    return arch


# -- building the sandbox (mechanism "namespaces") ------------------------------------------------------
def _locked_flags() -> list[tuple[str, int]]:
    """(mount point, flags a read-only remount must keep) of every mount, deepest last."""
    points = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            point = fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
            points.append((point, sum(MOUNT_FLAGS.get(opt, 0) for opt in fields[5].split(","))))
    return sorted(points, key=lambda p: len(p[0]))


def _flags_of(path: str, points: list[tuple[str, int]]) -> int:
    found = 0
    for point, flags in points:
        if path == point or path.startswith(point.rstrip("/") + "/"):
            found = flags
    return found


def _build_root(view: dict, disk_mb: int) -> None:
    """As PID 1 of the new namespaces: the allow-listed view on a tmpfs, pivot_root into it."""
    root = "/tmp"  # any existing directory does; this mount namespace is ours alone
    points = _locked_flags()
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount(b"tmpfs", root, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1m,mode=0755")

    def make_parent(path: str) -> None:
        os.makedirs(os.path.dirname(root + path), mode=0o755, exist_ok=True)

    for kind, *args in view["entries"]:
        if kind == "symlink":
            target, path = args
            make_parent(path)
            os.symlink(target, root + path)
        elif kind in ("ro", "dev"):
            path = args[0]
            make_parent(path)
            if os.path.isdir(path):
                os.makedirs(root + path, mode=0o755, exist_ok=True)
            else:
                open(root + path, "a").close()
            _mount(path.encode(), root + path, None, MS_BIND)
            readonly = MS_RDONLY if kind == "ro" else 0
            _mount(None, root + path, None, MS_REMOUNT | MS_BIND | MS_NOSUID | readonly | _flags_of(path, points))
        else:
            raise OSError(f"unknown view entry {kind}")
    os.makedirs(root + "/proc", mode=0o555)
    _mount(b"proc", root + "/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)  # while the old /proc is visible
    os.makedirs(root + WORKDIR, mode=0o755)
    _mount(b"tmpfs", root + WORKDIR, b"tmpfs", MS_NOSUID | MS_NODEV, f"size={disk_mb}m,mode=0755".encode())
    os.makedirs(root + "/.old")
    _c("syscall", ctypes.c_long(_arch()[2]), root.encode(), (root + "/.old").encode())
    os.chdir("/")
    _c("umount2", b"/.old", MNT_DETACH)
    os.rmdir("/.old")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(WORKDIR)


def _enter_namespaces(view: dict, disk_mb: int) -> None:
    """Become PID 1 of fresh namespaces inside the allow-listed view, with no capabilities."""
    arch = _arch()
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
    _build_root(view, disk_mb)
    _drop_capabilities(arch)


def _drop_capabilities(arch: tuple) -> None:
    for cap in range(64):  # empty bounding set, then no capabilities at all
        try:
            _prctl(PR_CAPBSET_DROP, cap)
        except OSError:
            break
    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
    _c("syscall", ctypes.c_long(arch[1]), header, data)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


# -- the per-process restrictions ------------------------------------------------------------------------
def _seccomp() -> None:
    """Refuse new processes, exec (except of the interpreter on fd 10), sockets other than AF_UNIX,
    io_uring, ptrace and cross-process memory access, mounts, namespaces, leaving the process group,
    signalling process groups or every process at once."""
    audit, _, _, execveat, clone, clone3, sock, kill, refused = _arch()
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
             # execveat(10, "", ..., AT_EMPTY_PATH): the one exec the supervisor does (fexecve)
             (jeq, 0, 6, execveat), (ld, 0, 0, 16), (jeq, 0, 2, EXEC_FD), (ld, 0, 0, 48), (jeq, 1, 0, AT_EMPTY_PATH),
             (ret, 0, 0, eperm), (ret, 0, 0, allow),
             # kill(0 or negative): whole process groups, or everything the user may signal
             (jeq, 0, 5, kill), (ld, 0, 0, 16), (jeq, 2, 0, 0), (jge, 1, 0, 0x80000000), (ret, 0, 0, allow),
             (ret, 0, 0, eperm),
             (ret, 0, 0, allow)]  # clone only for threads; sockets only AF_UNIX
    raw = b"".join(code.to_bytes(2, "little") + bytes((jt, jf)) + k.to_bytes(4, "little") for code, jt, jf, k in prog)
    buffer = ctypes.create_string_buffer(raw, len(raw))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    program = Program(len(prog), ctypes.addressof(buffer))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _c("prctl", PR_SET_SECCOMP, ctypes.c_ulong(2), ctypes.byref(program), ctypes.c_ulong(0), ctypes.c_ulong(0))


def _limit(limits: dict, timeout: float, output_limit: int) -> None:
    memory = limits["memory_mb"] << 20
    cpu = int(timeout) + 2
    settings = [(resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu), (resource.RLIMIT_FSIZE, output_limit),
                (resource.RLIMIT_NOFILE, limits["open_files"]), (resource.RLIMIT_CORE, 0),
                (resource.RLIMIT_STACK, min(memory, 1 << 30))]
    if not limits.get("host_root"):  # RLIMIT_NPROC counts every process of the host user: useless for root,
        settings.append((resource.RLIMIT_NPROC, limits["processes"]))  # where the address space bounds threads
    for kind, value in settings:
        hard = resource.getrlimit(kind)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value if kind != resource.RLIMIT_CPU else value + 1))


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
        _seccomp()
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
            _limit(job["limits"], run["timeout"], 1 << 20)
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
        name = signal.Signals(number).name if number in signal.valid_signals() else str(number)
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
            stdout = os.pread(extra[0], 1 << 16, 0)
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
    job = marshal.loads(globals().get("JOB") or sys.stdin.buffer.read())  # JOB: see gym.sandbox.BOOTSTRAP
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
