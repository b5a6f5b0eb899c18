"""gym.sandbox.host: what a program sees, hostile programs end as failed runs with a reason, the machine and this
process stay fine, and a sandbox that cannot be built refuses to run anything. Every test runs against each
mechanism that works here (bwrap, namespaces)."""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

import pytest

import gym.sandbox.host as sandbox_module
import gym.sandbox.view as sandbox_view
from gym.core.errors import GymError
from gym.sandbox.host import MECHANISMS, Run, Sandbox, SandboxUnavailable, execute, probe_isolation, python_view
from gym.verifiers import make_verifier
from gym.verifiers.base import VerifierError
from tests.conftest import children_of_this_process

ROOT = Path(__file__).resolve().parents[2]
PRESENT = [name for name in MECHANISMS if probe_isolation(name)[0]]
ABSENT = {name: probe_isolation(name)[1] for name in MECHANISMS if name not in PRESENT}
MECHANISM_PARAMS = [pytest.param(name, marks=pytest.mark.skipif(name not in PRESENT, reason=ABSENT.get(name, "")))
                    for name in MECHANISMS]


@pytest.fixture(scope="module", params=MECHANISM_PARAMS)
def box(request) -> Sandbox:
    sandbox = Sandbox(memory_mb=512, mechanism=request.param)
    assert sandbox.check() == request.param
    return sandbox


def run_one(box: Sandbox, source: str, stdin: str = "", timeout: float = 5, output_limit: int = 1 << 20):
    outcome = box.run(source, [Run(stdin, timeout, output_limit)])
    assert len(outcome.results) == 1, outcome
    assert outcome.mechanism == box.mechanism
    return outcome.results[0]


@pytest.fixture(autouse=True)
def others_children():
    """Processes other tests left running (servers, worker pools): not ours to account for."""
    global BEFORE
    BEFORE = children_of_this_process()
    yield


BEFORE: set[int] = set()


def our_children() -> set[int]:
    return children_of_this_process() - BEFORE


def still_healthy(box: Sandbox) -> None:
    """A plain program still runs, and nothing we started is left behind."""
    assert run_one(box, "print(input()[::-1])", "olleh\n").stdout == "hello\n"
    assert our_children() == set()


def test_the_view_is_the_allow_list(box, tmp_path):
    """Only the Python installation, /etc/ld.so.cache, /dev/null, /dev/urandom, /proc and /work exist."""
    view = python_view()
    source = r"""
import json, os, sys
seen = []
for top, dirs, files in os.walk("/"):
    if top.startswith(("/proc", "/dev")) or top in {e for e in ALLOWED}:
        dirs[:] = []
        continue
    seen += [os.path.join(top, name) for name in dirs + files]
print(json.dumps({"seen": seen, "dev": sorted(os.listdir("/dev")), "cwd": os.getcwd(), "tmp": os.path.exists("/tmp"),
                  "home": os.environ["HOME"], "urandom": len(open("/dev/urandom", "rb").read(8)),
                  "ro": os.access(sys.executable, os.W_OK)}))
""".replace("ALLOWED", repr([entry[1] for entry in view["entries"] if entry[0] == "ro"]))
    result = run_one(box, source)
    assert result.status == "ok", result.stderr
    import json

    found = json.loads(result.stdout)
    allowed = {entry[1] for entry in view["entries"] if entry[0] == "ro"}
    symlinks = {entry[2] for entry in view["entries"] if entry[0] == "symlink"}
    parents = {str(Path(path).parents[i]) for path in allowed | symlinks for i in range(len(Path(path).parents))}
    assert set(found["seen"]) <= allowed | symlinks | parents | {"/proc", "/dev", "/work"}, found["seen"]
    assert found["dev"] == ["null", "urandom"] and found["urandom"] == 8
    assert found["cwd"] == "/work" and found["home"] == "/work" and not found["tmp"] and not found["ro"]
    for private in (ROOT, Path(os.path.expanduser("~")) / ".config", Path("/etc/passwd"), tmp_path):
        assert str(private) not in found["seen"]
    assert str(ROOT / "gym") not in "".join(found["seen"])


def test_stdin_stdout_exit_status_and_stderr(box):
    result = run_one(box, "import sys\nname = sys.stdin.readline().strip()\nprint('hi', name)\nsys.exit(3)", "bob\n")
    assert (result.status, result.exit_code, result.stdout) == ("error", 3, "hi bob\n")
    crashed = run_one(box, "def f():\n    return 1 / 0\nf()")
    assert crashed.status == "error" and "ZeroDivisionError" in crashed.stderr and "solution.py" in crashed.stderr
    assert "sandbox" not in crashed.stderr  # the harness's own frames are not shown
    assert run_one(box, "import sys; sys.stdout.write(sys.stdin.read().upper())", "abc\ndef").stdout == "ABC\nDEF"


def test_each_run_is_a_fresh_interpreter_and_threads_are_waited_for(box):
    source = ("import threading, sys\nseen = []\ndef work():\n    seen.append(input())\n    print('thread', seen[0])\n"
              "threading.Thread(target=work).start()\nprint(sorted(m for m in sys.modules if 'sandbox' in m), "
              "'ctypes' in sys.modules, __name__, file=sys.stderr)")
    outcome = box.run(source, [Run("a\n", 5), Run("b\n", 5)])
    assert [r.stdout for r in outcome.results] == ["thread a\n", "thread b\n"]
    assert outcome.results[0].stderr == "[] False __main__\n"  # nothing of the supervisor is loaded


def test_fork_exec_and_escape_are_refused(box):
    result = run_one(box, "import os\nwhile True:\n    os.fork()")
    assert result.status == "error" and "PermissionError" in result.stderr
    spawn = run_one(box, "import subprocess\nsubprocess.run(['rm', '-rf', '/tmp'])")
    assert spawn.status == "error" and ("PermissionError" in spawn.stderr or "FileNotFoundError" in spawn.stderr)
    execute_ = run_one(box, "import os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'print(1)'])")
    assert execute_.status == "error" and "PermissionError" in execute_.stderr
    escape = run_one(box, "import os\nos.setsid()")
    assert escape.status == "error" and "PermissionError" in escape.stderr
    group = run_one(box, "import os, signal\nos.kill(-1, signal.SIGKILL)")
    assert group.status == "error" and "PermissionError" in group.stderr
    still_healthy(box)


def test_ten_gigabytes_is_a_memory_error(box):
    result = run_one(box, "block = bytearray(10 * 1024 ** 3)\nprint(len(block))")
    assert result.status == "error" and "MemoryError" in result.stderr and result.stdout == ""
    still_healthy(box)


def test_huge_output_is_cut_and_fails(box):
    result = run_one(box, "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)", output_limit=100_000)
    assert result.status == "output_limit" and len(result.stdout) <= 100_000
    exact = run_one(box, "print('y' * 99)", output_limit=100)  # exactly the cap is fine
    assert exact.status == "ok" and exact.stdout == "y" * 99 + "\n"
    still_healthy(box)


def test_huge_files_are_refused(box):
    result = run_one(box, "with open('big', 'wb') as f:\n    while True:\n        f.write(b'z' * (1 << 20))",
                     output_limit=1 << 20)
    assert result.status == "error" and "File too large" in result.stderr  # the size limit follows the output cap
    still_healthy(box)


@pytest.mark.parametrize("mechanism", MECHANISM_PARAMS)
def test_many_files_fill_only_the_small_work_dir(mechanism):
    small = Sandbox(disk_mb=4, memory_mb=512, mechanism=mechanism)
    result = run_one(small, "for i in range(100):\n    open(f'f{i}', 'wb').write(b'z' * (512 * 1024))\n",
                     output_limit=1 << 20)
    assert result.status == "error" and "No space left" in result.stderr


def test_no_network_of_any_kind(box, tmp_path):
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    port = server.getsockname()[1]
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(tmp_path / "agent.sock"))
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(f"\0gym-sandbox-test-{os.getpid()}")
    for listener in (unix, abstract):
        listener.listen()
        listener.settimeout(0.5)
    source = (f"import socket\nfor family, address in ((socket.AF_INET, ('127.0.0.1', {port})), "
              f"(socket.AF_UNIX, {str(tmp_path / 'agent.sock')!r}), (socket.AF_UNIX, {abstract.getsockname()!r}), "
              f"(socket.AF_INET6, ('::1', {port}))):\n"
              f"    try:\n        socket.socket(family).connect(address)\n        print('in')\n"
              f"    except OSError as exc:\n        print(type(exc).__name__)")
    try:
        result = run_one(box, source)
        assert result.status == "ok" and "in" not in result.stdout.split(), result.stdout
        for listener in (server, unix, abstract):
            with pytest.raises(socket.timeout):
                listener.accept()  # nothing ever connected
    finally:
        for listener in (server, unix, abstract):
            listener.close()
    still_healthy(box)


def test_sleeping_forever_times_out(box):
    result = run_one(box, "import time\ntime.sleep(10 ** 6)", timeout=0.5)
    assert result.status == "timeout" and 0.4 < result.time_s
    busy = run_one(box, "while True:\n    pass", timeout=0.5)
    assert busy.status == "timeout"
    still_healthy(box)


def test_files_outside_the_work_dir_cannot_be_touched(box, tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    os.chmod(tmp_path, 0o777)  # file modes would allow it: only the sandbox may stop it
    os.chmod(victim, 0o666)
    targets = [str(victim), str(tmp_path / "new"), str(ROOT / "gym" / "new.py"), "/etc/new", "/usr/new",
               sys.executable + ".new"]
    source = (f"import os\nfor path in {targets!r}:\n"
              f"    try:\n        open(path, 'w').write('gone')\n        print('done', path)\n"
              f"    except OSError as exc:\n        print(type(exc).__name__, exc.errno)\n"
              f"open('mine.txt', 'w').write('fine')\nprint(os.listdir('.'))")
    result = run_one(box, source)
    assert result.status == "ok" and "done" not in result.stdout, result.stdout
    assert "mine.txt" in result.stdout  # its own work dir is writable
    assert victim.read_text() == "keep me" and not (tmp_path / "new").exists() and not (ROOT / "gym" / "new.py").exists()
    still_healthy(box)


def test_processes_and_pids_are_private(box):
    result = run_one(box, "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()), os.getpid())")
    pids, own = result.stdout.rsplit(" ", 1)
    assert pids == "[1, 2]" and own.strip() == "2", result.stdout  # the supervisor and the program


def test_environment_is_scrubbed(box, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    result = run_one(box, "import os\nprint(sorted(os.environ.items()))\nprint(open('/proc/1/environ', 'rb').read())")
    assert "sk-very-secret" not in result.stdout + result.stderr and "OPENAI_API_KEY" not in result.stdout


def test_stop_early_and_total_time_limit(box):
    runs = [Run(str(i), 5) for i in range(6)]
    seen = []
    outcome = box.run("print(int(input()) * 2)", runs, on_result=lambda i, r: seen.append(i) or i < 1)
    assert outcome.stopped and seen == [0, 1] and len(outcome.results) == 2
    slow = box.run("import time\ntime.sleep(5)", [Run("", 5), Run("", 5)], total_timeout=1)
    assert slow.error == "total time limit exceeded" and slow.results == []
    still_healthy(box)


def test_a_judge_reports_what_the_program_cannot_touch(box):
    judge = ("import os\nos.write(PEER_OUT, b'ping\\n')\nreply = os.fdopen(PEER_IN, 'rb').readline()\n"
             "print('judge got', reply.decode().strip())")
    program = ("import os, sys\nrequest = os.fdopen(3, 'rb').readline()\nprint('to my stderr', file=sys.stderr, flush=True)"
               "\nos.write(4, b'pong ' + request)\nos._exit(0)")
    result = box.run(program, [Run("", 5, judge=judge)]).results[0]
    assert result.status == "ok" and result.stdout == "judge got pong ping\n"
    assert "to my stderr" in result.stderr


def test_max_parallel_bounds_concurrent_sandboxes():
    single = Sandbox(max_parallel=1, memory_mb=256, allow_unsandboxed=True)
    inside, peak, lock = [0], [0], threading.Lock()
    original = sandbox_module.execute

    def counting(*args, **kwargs):
        with lock:
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
        try:
            return original(*args, **kwargs)
        finally:
            with lock:
                inside[0] -= 1

    sandbox_module.execute = counting
    try:
        threads = [threading.Thread(target=run_one, args=(single, "import time\ntime.sleep(0.1)")) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sandbox_module.execute = original
    assert peak[0] == 1


def test_missing_isolation_is_refused_unless_allowed(monkeypatch):
    monkeypatch.setattr(sandbox_module, "_probed", {name: (False, "user namespaces disabled") for name in MECHANISMS})
    with pytest.raises(GymError, match="user namespaces disabled.*allow_unsandboxed=true"):
        Sandbox().check()
    with pytest.raises(GymError, match="bwrap: user namespaces disabled"):
        Sandbox(mechanism="bwrap", allow_unsandboxed=True).check()  # a named mechanism never falls back
    with pytest.raises(GymError, match="allow_unsandboxed"):
        make_verifier("code", {})
    lenient = Sandbox(allow_unsandboxed=True, memory_mb=512)
    assert lenient.check() == "none" and lenient.isolated is False
    outcome = lenient.run("import time\nprint(input(), flush=True)\ntime.sleep(30)", [Run("plain\n", 0.5)])
    assert outcome.mechanism == "none" and outcome.results[0].status == "timeout"
    assert outcome.results[0].stdout == "plain\n"
    refused = run_one(lenient, "import os\nos.fork()")  # the seccomp filter still applies
    assert refused.status == "error" and "PermissionError" in refused.stderr
    with make_verifier("code", {"allow_unsandboxed": True}) as verifier:
        assert verifier.run_info() == {"sandbox": "none", "allow_unsandboxed": True}
        verdict = verifier.verify({"question": "q", "unit_tests": {"inputs": [""], "outputs": ["1"], "fn_name": None}},
                                  "```python\nprint(1)\n```")
        assert verdict.reward == 1.0 and verdict.details["sandbox"] == "none" and not verdict.details["isolated"]
    assert our_children() == set()


@pytest.mark.parametrize("mechanism", MECHANISM_PARAMS)
def test_a_failed_isolation_step_refuses_to_run(mechanism, monkeypatch):
    """A view the mechanism cannot build (here: a bind of a path that does not exist) ends the sandbox
    before any program runs: SandboxUnavailable, which the verifier reports as a verifier error."""
    view = python_view()
    broken = {**view, "entries": [*view["entries"], ("ro", "/nonexistent/gym-sandbox-test")]}
    monkeypatch.setattr(sandbox_view, "_view", broken)
    with pytest.raises(SandboxUnavailable, match=f"sandbox \\({mechanism}\\) failed to start"):
        execute("open('/work/ran', 'w').write('x')\nprint('ran')", [Run("", 5)], sandbox_module.DEFAULT_LIMITS,
                mechanism, 30, None)
    verifier = make_verifier("code", {"sandbox": mechanism})
    with pytest.raises(VerifierError, match="sandbox refused"):
        verifier.verify({"question": "q", "unit_tests": {"inputs": [""], "outputs": ["1"], "fn_name": None}},
                        "```python\nprint(1)\n```")
    monkeypatch.setattr(sandbox_view, "_view", view)
    for judge in (None, "print('pass')"):  # a restriction that cannot be applied to a process (rlimits here)
        with pytest.raises(SandboxUnavailable, match="refused a run: cannot start the program"):
            execute("print(1)", [Run("", 5, judge=judge)], {**sandbox_module.DEFAULT_LIMITS, "memory_mb": "lots"},
                    mechanism, 30, None)
    with pytest.raises(ValueError, match="unknown sandbox mechanism"):
        execute("print(1)", [Run("", 5)], sandbox_module.DEFAULT_LIMITS, False, 30, None)
    assert our_children() == set()


def test_unisolated_execute_runs_in_its_own_session():
    outcome = execute(f"import os\nprint(os.getsid(0) != {os.getsid(0)}, os.getpgid(0) == os.getsid(0))",
                      [Run("", 5)], sandbox_module.DEFAULT_LIMITS, "none", 30, None)
    assert outcome.results[0].stdout.split() == ["True", "True"] and not outcome.isolated
    workdir = execute("import os\nprint(os.getcwd())", [Run("", 5)], sandbox_module.DEFAULT_LIMITS, "none", 30, None)
    assert "gym-sandbox-" in workdir.results[0].stdout and not os.path.exists(workdir.results[0].stdout.strip())
