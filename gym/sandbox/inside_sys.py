"""libc calls, the seccomp filter, rlimits and the namespaces mechanism for the sandbox supervisor
(gym/sandbox/inside.py). Standard library only: gym.sandbox.host sends this file's bytecode into the sandbox
and runs it in the supervisor's namespace, before the supervisor itself."""

from __future__ import annotations

import ctypes
import os
import resource
import _signal as signal  # the C module: `signal` would import enum, a cost in every sandbox

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
# fork, vfork, execve: allowed to native programs (see _seccomp); aarch64 has no fork or vfork call
SPAWN_CALLS = {"x86_64": (57, 58, 59), "aarch64": (221,)}
CLONE_NEW = 0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
SOURCE_FD, EXEC_FD, STATUS_FD, PEER_IN, PEER_OUT = 9, 10, 11, 3, 4  # fds of a program process; the judge's pipes
AT_EMPTY_PATH = 0x1000
WORKDIR = "/work"

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
    # any existing directory that holds no path of the view does (this mount namespace is ours alone)
    paths = [args[-1] for _, *args in view["entries"]]
    root = next((c for c in ("/tmp", "/mnt", "/srv", "/media", "/opt", "/home", "/var")
                 if os.path.isdir(c) and not any(p == c or p.startswith(c + "/") for p in paths)), None)
    if root is None:
        raise OSError("no directory to build the sandbox's root in (every candidate holds a path of the view)")
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
def _seccomp(spawn: bool = False) -> None:
    """Refuse new processes, exec (except of the interpreter on fd 10), sockets other than AF_UNIX,
    io_uring, ptrace and cross-process memory access, mounts, namespaces, leaving the process group,
    signalling process groups or every process at once. With `spawn` (native programs: a compiler, a
    grader's manager and the solution's processes), fork and exec are allowed, a clone that makes
    namespaces still is not."""
    audit, _, _, execveat, clone, clone3, sock, kill, refused = _arch()
    if spawn:
        refused = [number for number in refused if number not in SPAWN_CALLS[os.uname().machine]]
    allow, eperm, enosys = 0x7FFF0000, 0x00050001, 0x00050026
    ld, jeq, jset, jge, ret = 0x20, 0x15, 0x45, 0x35, 0x06  # classic BPF opcodes
    # (code, jump if true, jump if false, k); jumps count instructions after the next one
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, audit), (ret, 0, 0, eperm),  # foreign ABI (int 0x80): refuse
            (ld, 0, 0, 0), (jge, 0, 1, 0x40000000), (ret, 0, 0, eperm),  # x32 ABI: refuse
            (jeq, 0, 1, clone3), (ret, 0, 0, enosys)]  # glibc falls back to clone, which we can inspect
    for number in refused:
        prog += [(jeq, 0, 1, number), (ret, 0, 0, eperm)]
    if spawn:  # any clone without CLONE_NEW* flags; any exec
        prog += [(jeq, 0, 4, clone), (ld, 0, 0, 16), (jset, 1, 0, CLONE_NEW), (ret, 0, 0, allow), (ret, 0, 0, eperm),
                 (jeq, 0, 1, execveat), (ret, 0, 0, allow)]
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
