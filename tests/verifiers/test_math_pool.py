"""The math verifier's worker pool: hard time limit, replacement, concurrency, and no leaked processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from gym.core.errors import GymError
from gym.verifiers import make_verifier
from gym.verifiers.base import VerifierError
from tests.conftest import wait_until


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry))
    return found


def descendants(pid: int | None = None) -> set[int]:
    todo, seen = [pid or os.getpid()], set()
    while todo:
        for child in _children(todo.pop()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_dead(pids, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def baseline():
    """Processes this test process had before the test; everything else must be gone afterwards."""
    before = descendants()
    yield before
    assert wait_dead(descendants() - before, 5), f"left behind: {descendants() - before}"


def test_overrun_is_killed_at_the_limit_and_replaced(baseline):
    verifier = make_verifier("math", {"workers": 1, "timeout": 1.0, "_test_sleep": 0})
    row = {"expected_answer": "1/2"}
    assert verifier.verify(row, r"\boxed{0.5}").reward == 1.0
    (first_pid,) = verifier.worker_pids()

    verifier._sleep = 30  # the worker now stalls like math-verify on a pathological input
    started = time.monotonic()
    verdict = verifier.verify(row, r"\boxed{0.5}")
    assert time.monotonic() - started >= 1.0  # it waited out the limit (speed bounds live in perf/)
    assert (verdict.reward, verdict.extracted_answer, verdict.details["error"]) == (0.0, None, "timeout")
    assert wait_dead([first_pid], 3)
    (second_pid,) = verifier.worker_pids()
    assert second_pid != first_pid and alive(second_pid)

    verifier._sleep = 0
    for _ in range(3):  # the replacement serves later checks normally
        verdict = verifier.verify(row, r"\boxed{\frac{2}{4}}")
        assert (verdict.reward, verdict.extracted_answer) == (1.0, "0.5")
        assert "error" not in verdict.details
    verifier.close()
    assert not alive(second_pid)


def test_a_worker_that_dies_is_a_verifier_error_not_a_wrong_answer(baseline):
    verifier = make_verifier("math", {"workers": 1, "timeout": 60.0, "_test_sleep": 0})
    row = {"expected_answer": "1/2"}
    assert verifier.verify(row, r"\boxed{0.5}").reward == 1.0
    verifier._sleep = 30  # the worker would stall; it is killed instead
    outcome: dict = {}

    def check() -> None:
        try:
            outcome["verdict"] = verifier.verify(row, r"\boxed{0.5}")
        except VerifierError as exc:
            outcome["error"] = exc

    (pid,) = verifier.worker_pids()
    sent = verifier._pool.requests_sent
    thread = threading.Thread(target=check)
    thread.start()
    # killed only once the request is on its way: killed earlier, while still idle, it would be replaced
    # before the request goes out (the pool's liveness check), and the replacement would answer
    wait_until(lambda: verifier._pool.requests_sent > sent, "the check to send its request to the only worker")
    os.kill(pid, signal.SIGKILL)  # before or after the worker read it: either way it dies holding it
    thread.join(60)
    assert "verdict" not in outcome and "crashed" in str(outcome["error"])
    verifier._sleep = 0
    assert verifier.verify(row, r"\boxed{0.5}").reward == 1.0  # a replacement serves the next check
    verifier.close()


def test_real_pathological_input_is_bounded(baseline):
    with make_verifier("math", {"workers": 1, "timeout": 2.0}) as verifier:
        assert verifier.verify({"expected_answer": r"\frac{1}{2}"}, r"\boxed{0.5}").reward == 1.0  # started
        started = time.monotonic()  # start-up is behind us: only the check itself is timed
        verdict = verifier.verify({"expected_answer": "1"}, r"\boxed{9^{9^{9^{9}}}}")  # SymPy grinds on this
        assert time.monotonic() - started < 30  # bounded by the 2 s limit (SymPy alone grinds for far longer)
        assert verdict.reward == 0.0
        assert verifier.verify({"expected_answer": "4"}, "2 + 2 = 4\n#### 4").reward == 1.0


def _case(i: int) -> tuple[dict, str, float, str]:
    kind = i % 5
    if kind == 0:
        return {"expected_answer": str(i)}, rf"so \boxed{{{i}}}", 1.0, str(i)  # shortcut path
    if kind == 1:
        return {"expected_answer": str(i)}, f"steps...\n#### {i:,}", 1.0, str(i)
    if kind == 2:
        return {"expected_answer": str(i)}, rf"\boxed{{{i + 1}}}", 0.0, str(i + 1)  # shortcut path
    if kind == 3:
        return {"expected_answer": rf"\frac{{1}}{{{3 * i}}}"}, rf"\boxed{{\frac{{2}}{{{6 * i}}}}}", 1.0, f"1/{3 * i}"
    return {"expected_answer": f"{i}"}, f"The answer is {i}.", 1.0, str(i)


def test_many_threads_get_their_own_answers(baseline):
    cases = [_case(i) for i in range(1, 201)]
    with make_verifier("math", {"workers": 2, "timeout": 10}) as verifier:
        with ThreadPoolExecutor(max_workers=32) as pool:
            verdicts = list(pool.map(lambda case: verifier.verify(case[0], case[1]), cases))
        assert len(verifier.worker_pids()) == 2
    for (row, response, reward, extracted), verdict in zip(cases, verdicts):
        assert (verdict.reward, verdict.extracted_answer) == (reward, extracted), (row, response, verdict)
        assert "error" not in verdict.details


def test_close_leaves_no_processes_and_refuses_further_use(baseline):
    verifier = make_verifier("math", {"workers": 3})
    assert verifier.verify({"expected_answer": "2"}, r"\boxed{3.5}").reward == 0.0
    pids = verifier.worker_pids()
    assert len(pids) == 3 and all(alive(pid) for pid in pids)
    assert set(pids) <= descendants()
    verifier.close()
    assert not any(alive(pid) for pid in pids)
    assert descendants() - baseline == set()
    with pytest.raises(GymError, match="used after close"):
        verifier.verify({"expected_answer": "2"}, r"\boxed{3.5}")
    verifier.close()


def test_close_releases_busy_and_waiting_callers(baseline):
    verifier = make_verifier("math", {"workers": 1, "timeout": 20, "_test_sleep": 0})
    verifier.verify({"expected_answer": "1"}, r"\boxed{2.5}")  # started and warm
    verifier._sleep = 30
    outcomes: dict[str, object] = {}

    def call(name: str) -> None:
        try:
            outcomes[name] = verifier.verify({"expected_answer": "1"}, r"\boxed{2.5}")
        except GymError as exc:
            outcomes[name] = exc

    pool = verifier._pool
    busy = threading.Thread(target=call, args=("busy",))
    busy.start()
    wait_until(lambda: not pool._idle, "the only worker to be checked out")
    waiting = threading.Thread(target=call, args=("waiting",))
    waiting.start()
    wait_until(lambda: pool._cond._waiters, "the second caller to wait for a worker")
    started = time.monotonic()
    verifier.close()
    busy.join(5)
    waiting.join(5)
    assert time.monotonic() - started < 15  # released, not left waiting for the 20 s limit or the 30 s check
    assert outcomes["busy"].details["error"] == "verifier closed" and outcomes["busy"].reward == 0.0
    assert isinstance(outcomes["waiting"], GymError)


CHILD = r"""
import os, sys, threading, time
from gym.verifiers import make_verifier
from gym.verifiers.base import VerifierError
verifier = make_verifier("math", {"workers": 2})
assert verifier.verify({"expected_answer": "1"}, r"\boxed{1.0}").reward == 1.0
print(" ".join(map(str, verifier.worker_pids())), flush=True)
verifier._sleep = 60  # both workers busy on a long check when the parent goes away
for _ in range(2):
    threading.Thread(target=verifier.verify, args=({"expected_answer": "1"}, r"\boxed{2.5}"), daemon=True).start()
while verifier._pool._idle or not verifier._pool._started:  # both workers checked out and busy
    time.sleep(0.01)
if sys.argv[1] == "kill":
    os.kill(os.getpid(), 9)
"""


@pytest.mark.parametrize("ending", ["exit", "kill"])
def test_workers_end_with_their_parent(ending):
    """Exit without close(): the exit hooks stop them. SIGKILL: busy workers notice and leave on their own."""
    result = subprocess.run([sys.executable, "-c", CHILD, ending], capture_output=True, text=True, timeout=60)
    pids = [int(pid) for pid in result.stdout.split()]
    assert len(pids) == 2, result.stderr
    assert result.returncode == (0 if ending == "exit" else -9), result.stderr
    assert wait_dead(pids, 10), [pid for pid in pids if alive(pid)]
    assert "Traceback" not in result.stderr, result.stderr


PLAIN_SCRIPT = r"""
import multiprocessing
multiprocessing.set_start_method("spawn", force=True)  # whatever the caller's multiprocessing setup
from gym.verifiers import make_verifier
from gym.verifiers.base import VerifierError
verifier = make_verifier("math", {"workers": 1})
print(verifier.verify({"expected_answer": r"\frac{1}{3}"}, r"\boxed{2/6}").extracted_answer)
"""


def test_works_from_a_plain_script_without_main_guard(tmp_path):
    """Workers never re-run the caller's main script (multiprocessing's spawn and fork server would)."""
    script = tmp_path / "score.py"
    script.write_text(PLAIN_SCRIPT)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == "1/3", result.stderr
    assert result.stderr == ""
