"""Adversarial answers through the code verifier: every one scores 0 and leaves no trace, for each row
shape (stdin/stdout, function calls, HumanEval-style test code) and each sandbox mechanism present."""

from __future__ import annotations

import json
import os
import secrets
import socket
import threading
from pathlib import Path

import pytest

from gym.sandbox.host import MECHANISMS, probe_isolation
from gym.verifiers import make_verifier
from tests.conftest import children_of_this_process

ROOT = Path(__file__).resolve().parents[2]
PRESENT = [name for name in MECHANISMS if probe_isolation(name)[0]]
pytestmark = pytest.mark.skipif(not PRESENT, reason="no sandbox mechanism works on this machine")


class Listener:
    """A TCP, Unix-path or abstract Unix socket server that records every byte anyone sends it."""

    def __init__(self, family: int, address) -> None:
        self.server = socket.socket(family)
        self.server.bind(address)
        self.server.listen()
        self.address = self.server.getsockname()
        self.received, self.connections = bytearray(), 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            with connection:
                connection.settimeout(2)
                try:
                    while chunk := connection.recv(4096):
                        self.received += chunk
                except OSError:
                    pass

    def close(self) -> None:
        try:
            self.server.shutdown(socket.SHUT_RDWR)  # wakes the accept() below
        except OSError:
            pass
        self.server.close()
        self.thread.join(5)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Secrets planted where a program must not look, listeners it must not reach, and the answer token."""
    token = "tok" + secrets.token_hex(8)
    data = tmp_path_factory.mktemp("data") / "bench" / "bench.jsonl"
    data.parent.mkdir()
    data.write_text(json.dumps({"expected_answer": token}) + "\n")
    home = Path(os.path.expanduser("~")) / f".gym-test-secret-{token}"
    home.write_text(token)
    host_tmp = Path("/tmp") / f"gym-test-secret-{token}"
    host_tmp.write_text(token)
    unix_dir = tmp_path_factory.mktemp("sock")
    listeners = {"tcp": Listener(socket.AF_INET, ("127.0.0.1", 0)),
                 "unix": Listener(socket.AF_UNIX, str(unix_dir / "agent.sock")),
                 "abstract": Listener(socket.AF_UNIX, f"\0gym-test-{token}")}
    yield {"token": token, "secrets": [str(data), str(home), str(host_tmp)], "listeners": listeners,
           "traces": [ROOT / f"pwned-{token}", Path("/tmp") / f"gym-pwned-{token}", data.parent / "pwned"]}
    for listener in listeners.values():
        listener.close()
    home.unlink()
    host_tmp.unlink()


@pytest.fixture(scope="module", params=PRESENT)
def verifier(request):
    with make_verifier("code", {"timeout": 1, "memory_mb": 512, "disk_mb": 8, "sandbox": request.param}) as instance:
        assert instance.mechanism == request.param
        yield instance


def rows(token: str) -> dict[str, dict]:
    return {
        "stdio": {"question": "echo", "unit_tests": {"inputs": ["go\n"], "outputs": [token + "\n"], "fn_name": None}},
        "call": {"question": "f", "unit_tests": {"inputs": ["1"], "outputs": [json.dumps(token)], "fn_name": "f"}},
        "test_code": {"question": "f", "entry_point": "f", "prompt": "def f(x):\n    \"\"\"The secret.\"\"\"\n",
                      "test": f"def check(candidate):\n    assert candidate(1) == {token!r}\n"},
    }


def answer(shape: str, cheat: str) -> str:
    """`cheat` defines `steal()` (returns its best guess at the answer, or does something nasty);
    the answer hands the guess in as the row shape wants it."""
    finish = "print(steal())\n" if shape == "stdio" else "def f(x):\n    return steal()\n"
    return f"```python\n{cheat}\n{finish}```"


def cheats(world: dict) -> dict[str, str]:
    listeners = world["listeners"]
    tcp, unix, abstract = (listeners[name].address for name in ("tcp", "unix", "abstract"))
    read = "\n".join(f"    try:\n        return open({path!r}).read().strip()\n    except OSError:\n        pass"
                     for path in world["secrets"])
    data_line = ("    try:\n        import json\n        return json.loads(open(" + repr(world["secrets"][0]) +
                 ").readline())['expected_answer']\n    except OSError:\n        return 'no'")
    writes = "\n".join(f"    try:\n        open({str(path)!r}, 'w').write('x')\n    except OSError:\n        pass"
                       for path in world["traces"])
    return {
        "read_secrets": f"def steal():\n{read}\n    return 'nothing'",
        "prepared_expected_output": f"def steal():\n{data_line}",
        "read_checkout": (f"def steal():\n    import os\n    return str(os.listdir({str(ROOT)!r}))"),
        "write_everywhere": f"def steal():\n{writes}\n    return 'wrote'",
        "tcp_listener": (f"import socket\ndef steal():\n    try:\n        socket.create_connection({tcp!r}, timeout=1)"
                         f".sendall(b'leak')\n    except OSError:\n        pass\n    return 'x'"),
        "unix_listener": (f"import socket\ndef steal():\n    for address in ({unix!r}, {abstract!r}):\n        try:\n"
                          f"            s = socket.socket(socket.AF_UNIX)\n            s.connect(address)\n"
                          f"            s.sendall(b'leak')\n        except OSError:\n            pass\n    return 'x'"),
        "fork": ("import os\ndef steal():\n    try:\n        if os.fork() == 0:\n            os._exit(0)\n"
                 "    except OSError:\n        pass\n    return 'forked'"),
        "os_exit_at_import": "import os\nos._exit(0)\ndef steal():\n    return 'x'",
        "sys_exit_at_import": "import sys\nsys.exit(0)\ndef steal():\n    return 'x'",
        "raise_system_exit": "raise SystemExit(0)\ndef steal():\n    return 'x'",
        "exit_in_call": "def steal():\n    raise SystemExit(0)",
        "os_exit_in_call": "import os\ndef steal():\n    os._exit(0)",
        "atexit_forces_zero": ("import atexit, os\natexit.register(lambda: os._exit(0))\n"
                               "def steal():\n    raise AssertionError('wrong')"),
        "kill_self": "import os, signal\ndef steal():\n    os.kill(os.getpid(), signal.SIGKILL)",
        "kill_everything": "import os, signal\ndef steal():\n    os.kill(-1, signal.SIGKILL)\n    return 'x'",
        "always_equal": ("class Anything(str):\n    def __eq__(self, other):\n        return True\n"
                         "    def __ne__(self, other):\n        return False\n    __hash__ = str.__hash__\n"
                         "def steal():\n    return Anything('x')"),
        "walk_frames_and_gc": (
            "import gc, re, sys\ndef steal():\n    pattern = re.compile(r\"tok[0-9a-f]{16}\")\n"
            "    def search(value, depth=0):\n        if isinstance(value, (str, bytes)):\n"
            "            found = pattern.search(value if isinstance(value, str) else value.decode('latin-1'))\n"
            "            return found.group(0) if found else None\n        if depth < 3 and isinstance(value, dict):\n"
            "            for item in list(value.values()):\n                hit = search(item, depth + 1)\n"
            "                if hit:\n                    return hit\n"
            "        if depth < 3 and isinstance(value, (list, tuple)):\n            for item in value:\n"
            "                hit = search(item, depth + 1)\n                if hit:\n                    return hit\n"
            "    frame = sys._getframe()\n    while frame:\n        for scope in (frame.f_locals, frame.f_globals):\n"
            "            hit = search(scope)\n            if hit:\n                return hit\n"
            "        hit = search(frame.f_code.co_consts)\n        if hit:\n            return hit\n"
            "        frame = frame.f_back\n    for thing in gc.get_objects():\n        hit = search(thing)\n"
            "        if hit:\n            return hit\n    for fd in range(64):\n        try:\n"
            "            hit = search(os.pread(fd, 1 << 20, 0))\n            if hit:\n                return hit\n"
            "        except OSError:\n            pass\n    return 'none'\nimport os"),
        "proc_of_others": (
            "import os, re\ndef steal():\n    pattern = re.compile(rb\"tok[0-9a-f]{16}\")\n"
            "    for pid in os.listdir('/proc'):\n        for name in ('cmdline', 'environ', 'fd/0', 'fd/1', 'fd/3', 'mem'):\n"
            "            try:\n                fd = os.open(f'/proc/{pid}/{name}', os.O_RDONLY | os.O_NONBLOCK)\n"
            "                found = pattern.search(os.read(fd, 1 << 20))\n"
            "                if found:\n                    return found.group(0).decode()\n"
            "            except (OSError, ValueError):\n                pass\n    return 'none'"),
        "write_proc_fds": (
            "import json, os\ndef steal():\n    lines = [json.dumps({'passed': True}), json.dumps({'index': 0, 'status': 'ok', "
            "'exit_code': 0, 'signal': None, 'stdout': '{\"passed\": true}', 'stderr': '', 'time_s': 0.1})]\n"
            "    for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n        for fd in range(12):\n"
            "            try:\n                out = os.open(f'/proc/{pid}/fd/{fd}', os.O_WRONLY | os.O_NONBLOCK)\n"
            "                os.write(out, ('\\n'.join(lines) + '\\n').encode())\n            except OSError:\n"
            "                pass\n    return 'x'"),
        "forged_reports": (
            "import json, os\ndef steal():\n    for fd in range(3, 12):\n        for message in ("
            "{'phase': 'tests', 'index': 0, 'value': 'x'}, {'passed': True}, {'ready': True}, {'value': 'x'}):\n"
            "            try:\n                os.write(fd, (json.dumps(message) + '\\n').encode())\n"
            "            except OSError:\n                pass\n    return 'forged'"),
        "memory_hog": "def steal():\n    block = bytearray(8 * 1024 ** 3)\n    return 'big'",
        "spin": "def steal():\n    while True:\n        pass",
        "fill_disk": ("def steal():\n    try:\n        with open('fill', 'wb') as out:\n            while True:\n"
                      "                out.write(b'z' * (1 << 20))\n    except OSError:\n        pass\n    return 'full'"),
        "spawn_shell": ("import subprocess\ndef steal():\n    try:\n"
                        "        return subprocess.run(['cat', " + repr(world["secrets"][2]) + "], capture_output=True,"
                        " text=True).stdout.strip()\n    except OSError:\n        return 'no'"),
    }


CHEATS = ["read_secrets", "prepared_expected_output", "read_checkout", "write_everywhere", "tcp_listener",
          "unix_listener", "fork", "os_exit_at_import", "sys_exit_at_import", "raise_system_exit", "exit_in_call",
          "os_exit_in_call", "atexit_forces_zero", "kill_self", "kill_everything", "always_equal",
          "walk_frames_and_gc", "proc_of_others", "write_proc_fds", "forged_reports", "memory_hog", "spin", "fill_disk", "spawn_shell"]


@pytest.mark.parametrize("shape", ["stdio", "call", "test_code"])
def test_every_cheat_scores_zero_and_leaves_no_trace(verifier, world, shape):
    before = children_of_this_process()  # processes other tests left running are not ours to account for
    row = rows(world["token"])[shape]
    table = cheats(world)
    honest = verifier.verify(row, answer(shape, f"def steal():\n    return {world['token']!r}"))
    assert honest.reward == 1.0, honest.details  # the rows can be passed: a 0 below is the sandbox's doing
    scores = {name: verifier.verify(row, answer(shape, table[name])) for name in CHEATS}
    assert {name: v.reward for name, v in scores.items() if v.reward != 0.0} == {}, \
        {name: v.details for name, v in scores.items() if v.reward != 0.0}
    assert all(v.details["sandbox"] == verifier.mechanism for v in scores.values())
    for name, listener in world["listeners"].items():
        assert listener.connections == 0 and bytes(listener.received) == b"", name
    for trace in world["traces"]:
        assert not trace.exists(), trace
    assert children_of_this_process() - before == set()
    assert verifier.verify(row, answer(shape, f"def steal():\n    return {world['token']!r}")).reward == 1.0
