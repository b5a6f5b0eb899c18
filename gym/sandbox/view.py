"""The view of the machine a sandboxed program gets: an allow-list worked out from the Python installation
gym runs on (see gym.sandbox.host), and the bubblewrap command line that builds it. The namespaces mechanism
builds the same list itself (gym/sandbox/inside.py)."""

from __future__ import annotations

import json
import os
import sys
import threading

WORKDIR = "/work"
_lock = threading.Lock()
_view: dict | None = None


class SandboxUnavailable(RuntimeError):
    """The sandbox itself could not start: a problem of the machine, not of the program."""


VIEW_PROBE = r"""
import json, os, site, sys
dynload = [p for p in sys.path if p.endswith("lib-dynload")]
for folder in dynload:  # load every extension module once, so the libraries they need show up in maps
    for name in sorted(os.listdir(folder)):
        if name.endswith(".so") and not name.startswith(("_test", "xx", "_xx", "_ctypes_test")):
            try:
                __import__(name.split(".")[0])
            except BaseException:
                pass
with open("/proc/self/maps") as handle:
    maps = sorted({line.split()[-1] for line in handle if ".so" in line.rsplit("/", 1)[-1]})
print(json.dumps({"path": sys.path, "site": site.getsitepackages(), "maps": maps, "version": sys.hexversion}))
"""


def _interpreter_path(executable: str) -> str | None:
    """PT_INTERP of an ELF file: the dynamic loader the kernel starts it with."""
    import struct

    with open(executable, "rb") as handle:
        head = handle.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:
            return None
        order = "<" if head[5] == 1 else ">"
        phoff, = struct.unpack_from(order + "Q", head, 0x20)
        phentsize, phnum = struct.unpack_from(order + "HH", head, 0x36)
        for index in range(phnum):
            handle.seek(phoff + index * phentsize)
            entry = handle.read(phentsize)
            kind, = struct.unpack_from(order + "I", entry, 0)
            if kind == 3:
                offset, = struct.unpack_from(order + "Q", entry, 8)
                size, = struct.unpack_from(order + "Q", entry, 32)
                handle.seek(offset)
                return handle.read(size).rstrip(b"\0").decode()
    return None


def _expose(path: str, entries: dict) -> None:
    """Make `path` resolve in the view as on the host: symlinks on the way become symlinks, the end a bind."""
    parts = [part for part in path.split("/") if part]
    current = ""
    for index, part in enumerate(parts):
        current += "/" + part
        if os.path.islink(current):
            target = os.readlink(current)
            entries.setdefault(current, ("symlink", target, current))
            resolved = os.path.normpath(os.path.join(os.path.dirname(current), target))
            rest = "/".join(parts[index + 1:])
            _expose(os.path.join(resolved, rest) if rest else resolved, entries)
            return
    if os.path.exists(current):
        entries.setdefault(current, ("ro", current))


def python_view() -> dict:
    """{"python", "pythonpath", "entries"}: the allow-list for this machine's base interpreter (cached)."""
    global _view
    with _lock:
        if _view is not None:
            return _view
    import subprocess

    python = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    probe = subprocess.run([python, "-I", "-S", "-c", VIEW_PROBE], capture_output=True, text=True, timeout=120)
    if probe.returncode:
        raise SandboxUnavailable(f"cannot inspect the Python installation: {probe.stderr.strip()[-300:]}")
    found = json.loads(probe.stdout)
    if found["version"] != sys.hexversion:  # the supervisor travels as bytecode of this interpreter
        raise SandboxUnavailable(f"{python} is not the interpreter gym runs on ({sys.version.split()[0]})")
    site_dirs = [p for p in found["site"] if os.path.isdir(p)]
    entries: dict[str, tuple] = {}
    for name in sorted(os.listdir("/")):  # /lib -> usr/lib and friends, so default library paths resolve
        if os.path.islink("/" + name):
            entries["/" + name] = ("symlink", os.readlink("/" + name), "/" + name)
    wanted = [python, _interpreter_path(python) or "", "/etc/ld.so.cache", *found["path"], *site_dirs]
    wanted += sorted({os.path.dirname(p) for p in found["maps"] if p.startswith("/") and os.path.exists(p)})
    for path in filter(None, wanted):
        _expose(os.path.abspath(path), entries)
    binds = sorted(path for path, entry in entries.items() if entry[0] == "ro")
    covered = {p for p in entries if any(p != b and p.startswith(b.rstrip("/") + "/") for b in binds)}
    view = [entries[p] for p in sorted(entries) if p not in covered and entries[p][0] == "ro"]
    view += [entries[p] for p in sorted(entries) if p not in covered and entries[p][0] == "symlink"]
    view += [("dev", "/dev/null"), ("dev", "/dev/urandom")]
    result = {"python": python, "pythonpath": os.pathsep.join(site_dirs), "entries": view}
    with _lock:
        _view = result
    return result


def with_toolchain(view: dict, folders) -> dict:
    """The view plus read-only host folders (a compiler and its libraries, e.g. /usr) for native programs.
    They go after the interpreter's binds, which they may cover, and before the symlinks."""
    folders = [f for f in folders if os.path.isdir(f)]
    if not folders:
        return view
    binds = [e for e in view["entries"] if e[0] == "ro"]
    inside = lambda path: any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)  # noqa: E731
    rest = [e for e in view["entries"] if e[0] != "ro" and not (e[0] == "symlink" and inside(e[2]))]
    return {**view, "entries": binds + [("ro", folder) for folder in folders] + rest}


def bwrap_arguments(view: dict, disk_mb: int) -> list[str]:
    # --as-pid-1: the supervisor (not dumpable) is PID 1; bubblewrap's own init would hold our pipes and be
    # open to the program through /proc/1/fd.
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1", "--cap-drop", "ALL",
            "--hostname", "sandbox"]
    for kind, *paths in view["entries"]:
        if kind == "ro":
            args += ["--ro-bind", paths[0], paths[0]]
        elif kind == "dev":
            args += ["--dev-bind", paths[0], paths[0]]
        else:
            args += ["--symlink", paths[0], paths[1]]
    return args + ["--proc", "/proc", "--size", str(disk_mb << 20), "--tmpfs", WORKDIR, "--chdir", WORKDIR,
                   "--remount-ro", "/"]
