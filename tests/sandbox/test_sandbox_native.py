"""The sandbox's native mode (toolchain folders, fork and exec allowed): processes may start, yet the network,
namespaces, the host's files and writes outside the work dir stay closed, for the program and its children."""

from __future__ import annotations

import socket
import subprocess

import pytest

from gym.core.errors import GymError
from gym.sandbox.host import Run, Sandbox, probe_isolation

pytestmark = pytest.mark.skipif(not probe_isolation()[0], reason="no isolating sandbox on this machine")

PROGRAM = r"""
import ctypes, os, socket, subprocess
def attempt(action):
    try:
        action()
        return "open"
    except (OSError, subprocess.CalledProcessError):
        return "blocked"
libc = ctypes.CDLL(None, use_errno=True)
def unshare():
    if libc.unshare(0x10000000) != 0:
        raise OSError(ctypes.get_errno(), "unshare")
print(subprocess.run(["/usr/bin/env", "echo", "child"], capture_output=True, text=True).stdout.strip(),
      attempt(lambda: socket.create_connection(("127.0.0.1", @PORT@), timeout=2)), attempt(unshare),
      attempt(lambda: open("/usr/gym-probe", "w")), attempt(lambda: open(@SECRET@).read()),
      attempt(lambda: subprocess.run(["/usr/bin/unshare", "-U", "true"], check=True, capture_output=True)),
      attempt(lambda: subprocess.run(["/usr/bin/bash", "-c", "echo > /dev/tcp/127.0.0.1/@PORT@"], check=True,
                                     capture_output=True)))
"""


def test_native_mode_keeps_the_walls(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("x")
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        source = PROGRAM.replace("@PORT@", str(listener.getsockname()[1])).replace("@SECRET@", repr(str(secret)))
        outcome = Sandbox(toolchain=("/usr",)).run(source, [Run(timeout=30)])
    finally:
        listener.close()
    result = outcome.results[0]
    assert result.status == "ok", result.stderr
    assert result.stdout.split() == ["child"] + ["blocked"] * 6
    assert subprocess.run(["test", "-e", "/usr/gym-probe"]).returncode != 0


@pytest.mark.parametrize("toolchain", ["/usr", ("/",), ("/usr/..",)])
def test_whole_root_or_a_bare_string_is_refused(toolchain):
    with pytest.raises(GymError, match="other than /"):
        Sandbox(toolchain=toolchain)
