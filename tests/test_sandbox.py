"""gym.sandbox: hostile programs end as failed runs with a reason, and the machine and this process stay fine."""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

import gym.sandbox as sandbox_module
from gym.errors import GymError
from gym.sandbox import Run, Sandbox, execute, probe_isolation

ISOLATED, HOW = probe_isolation()
needs_isolation = pytest.mark.skipif(not ISOLATED, reason=f"no namespace isolation here: {HOW}")


@pytest.fixture(scope="module")
def box() -> Sandbox:
    return Sandbox(memory_mb=512, allow_unsandboxed=True)


def run_one(box: Sandbox, source: str, stdin: str = "", timeout: float = 5, output_limit: int = 1 << 20):
    outcome = box.run(source, [Run(stdin, timeout, output_limit)])
    assert len(outcome.results) == 1, outcome
    return outcome.results[0]


def children_of_this_process() -> set[int]:
    pids = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as handle:
            pids.update(int(pid) for pid in handle.read().split())
    return pids


def still_healthy(box: Sandbox) -> None:
    """A plain program still runs, and nothing we started is left behind."""
    assert run_one(box, "print(input()[::-1])", "olleh\n").stdout == "hello\n"
    assert children_of_this_process() == set()


def test_stdin_stdout_exit_status_and_stderr(box):
    result = run_one(box, "import sys\nname = sys.stdin.readline().strip()\nprint('hi', name)\nsys.exit(3)", "bob\n")
    assert (result.status, result.exit_code, result.stdout) == ("error", 3, "hi bob\n")
    crashed = run_one(box, "def f():\n    return 1 / 0\nf()")
    assert crashed.status == "error" and "ZeroDivisionError" in crashed.stderr and "solution.py" in crashed.stderr
    assert "sandbox.py" not in crashed.stderr  # the harness's own frames are not shown
    assert run_one(box, "import sys; sys.stdout.write(sys.stdin.read().upper())", "abc\ndef").stdout == "ABC\nDEF"


def test_each_run_is_a_fresh_process_and_threads_are_waited_for(box):
    source = ("import threading\nseen = []\ndef work():\n    seen.append(input())\n    print('thread', seen[0])\n"
              "threading.Thread(target=work).start()")
    outcome = box.run(source, [Run("a\n", 5), Run("b\n", 5)])
    assert [r.stdout for r in outcome.results] == ["thread a\n", "thread b\n"]


def test_fork_bomb_is_refused(box):
    result = run_one(box, "import os\nwhile True:\n    os.fork()")
    assert result.status == "error" and "PermissionError" in result.stderr
    spawn = run_one(box, "import subprocess\nsubprocess.run(['rm', '-rf', '/tmp'])")
    assert spawn.status == "error" and "PermissionError" in spawn.stderr
    escape = run_one(box, "import os\nos.setsid()")
    assert escape.status == "error" and "PermissionError" in escape.stderr
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


@needs_isolation
def test_many_files_fill_only_the_small_work_dir():
    small = Sandbox(disk_mb=4, memory_mb=512)
    result = run_one(small, "for i in range(100):\n    open(f'f{i}', 'wb').write(b'z' * (512 * 1024))\n",
                     output_limit=1 << 20)
    assert result.status == "error" and "No space left" in result.stderr


def test_network_connection_to_a_local_server_fails(box):
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    port = server.getsockname()[1]
    try:
        result = run_one(box, f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('in')")
        assert result.status == "error" and "in" not in result.stdout
        assert "PermissionError" in result.stderr or "Network is unreachable" in result.stderr
        with pytest.raises(socket.timeout):
            server.accept()  # nothing ever connected
    finally:
        server.close()
    still_healthy(box)


def test_sleeping_forever_times_out(box):
    started = time.monotonic()
    result = run_one(box, "import time\ntime.sleep(10 ** 6)", timeout=0.5)
    assert result.status == "timeout" and 0.4 < result.time_s < 3
    busy = run_one(box, "while True:\n    pass", timeout=0.5)
    assert busy.status == "timeout"
    assert time.monotonic() - started < 10
    still_healthy(box)


@needs_isolation
def test_files_outside_the_work_dir_cannot_be_touched(box, tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    os.chmod(tmp_path, 0o777)  # file modes would allow it: only the sandbox may stop it
    os.chmod(victim, 0o666)
    source = (f"import os\nfor action in (lambda: os.remove({str(victim)!r}), "
              f"lambda: open({str(victim)!r}, 'w').write('gone'), lambda: open({str(tmp_path / 'new')!r}, 'w'),"
              f" lambda: os.rename({str(victim)!r}, '/tmp/x')):\n"
              f"    try:\n        action()\n        print('done')\n    except OSError as exc:\n"
              f"        print(type(exc).__name__, exc.errno)\n"
              f"open('mine.txt', 'w').write('fine')\nprint(os.listdir('.'))")
    result = run_one(box, source)
    assert result.status == "ok" and "done" not in result.stdout, result.stdout
    assert "mine.txt" in result.stdout  # its own work dir is writable
    assert victim.read_text() == "keep me" and not (tmp_path / "new").exists()
    still_healthy(box)


@needs_isolation
def test_home_directory_secrets_are_hidden(box, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    (home / ".config" / "token").write_text("hf_secret")
    (home / ".netrc").write_text("password hunter2")
    monkeypatch.setenv("HOME", str(home))
    source = (f"import os\nprint(os.listdir({str(home)!r}), os.path.exists({str(home / '.netrc')!r}))\n"
              f"import json, collections\nprint('imports work')")
    result = run_one(box, source)
    assert result.stdout == "[] False\nimports work\n", result.stderr  # an empty, read-only stand-in
    assert (home / ".netrc").read_text() == "password hunter2"


@needs_isolation
def test_processes_and_pids_are_private(box):
    result = run_one(box, "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))")
    assert result.stdout.strip() in ("[1, 2]", "[2]"), result.stdout  # only the sandbox's own processes


def test_environment_is_scrubbed_and_work_dir_removed(box, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    result = run_one(box, "import os\nprint(sorted(os.environ.items()))\nprint(os.getcwd())\nopen('f', 'w').write('x')")
    assert "sk-very-secret" not in result.stdout and "OPENAI_API_KEY" not in result.stdout
    workdir = result.stdout.splitlines()[-1]
    assert "gym-sandbox-" in workdir and not os.path.exists(workdir)


def test_stop_early_and_total_time_limit(box):
    runs = [Run(str(i), 5) for i in range(6)]
    seen = []
    outcome = box.run("print(int(input()) * 2)", runs, on_result=lambda i, r: seen.append(i) or i < 1)
    assert outcome.stopped and seen == [0, 1] and len(outcome.results) == 2
    slow = box.run("import time\ntime.sleep(5)", [Run("", 5), Run("", 5)], total_timeout=1)
    assert slow.error == "total time limit exceeded" and slow.results == []
    still_healthy(box)


def test_max_parallel_bounds_concurrent_sandboxes():
    single = Sandbox(max_parallel=1, memory_mb=256, allow_unsandboxed=True)
    started = time.monotonic()
    threads = [threading.Thread(target=run_one, args=(single, "import time\ntime.sleep(0.3)")) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert time.monotonic() - started >= 0.85


def test_missing_isolation_is_refused_unless_allowed(monkeypatch):
    monkeypatch.setattr(sandbox_module, "_isolation", (False, "user namespaces disabled"))
    with pytest.raises(GymError, match="user namespaces disabled.*allow_unsandboxed=true"):
        Sandbox().check()
    lenient = Sandbox(allow_unsandboxed=True, memory_mb=512)
    assert lenient.check() is False
    outcome = lenient.run("import time\nprint(input(), flush=True)\ntime.sleep(30)", [Run("plain\n", 0.5)])
    assert not outcome.isolated and outcome.results[0].status == "timeout" and outcome.results[0].stdout == "plain\n"
    refused = run_one(lenient, "import os\nos.fork()")  # the seccomp filter still applies
    assert refused.status == "error" and "PermissionError" in refused.stderr
    assert children_of_this_process() == set()


def test_unisolated_execute_runs_in_its_own_session():
    outcome = execute(f"import os\nprint(os.getsid(0) != {os.getsid(0)}, os.getpgid(0) == os.getsid(0))",
                      [Run("", 5)], sandbox_module.DEFAULT_LIMITS, False, 30, None)
    assert outcome.results[0].stdout.split() == ["True", "True"] and not outcome.isolated
