"""math: symbolic answer checking with math-verify, in long-lived worker processes with a hard time limit.

The gold answer (outer $...$ or \\(...\\) removed) is wrapped as \\boxed{gold} and parsed as LaTeX. The
prediction is the last \\boxed{} of the answer when there is one, else the whole answer text, parsed with
LaTeX and plain-expression extraction (so "#### 72", "the answer is 72." and "Answer: 1,234" work).

math-verify can hang on pathological input, so checks run in a pool of worker processes started once
(fork server with math-verify preloaded where available, spawn elsewhere; never fork from this threaded
process). A check that overruns `timeout` gets its worker killed and replaced and scores 0 with
details.error = "timeout". Boxed answers that equal the gold text are scored without a worker.
"""

from __future__ import annotations

import atexit
import importlib.util
import multiprocessing
import multiprocessing.util  # registers its exit hook now, so ours (registered later) runs before it
import os
import re
import threading
import weakref
from typing import Any

from gym.errors import GymError
from gym.verifiers.base import Verdict, Verifier, expected_answer, last_boxed, squash_spaces, unbox

WORKER_MODULE = "gym.verifiers.math_worker"
STARTUP_SECONDS = 60.0  # a fresh worker must finish importing and warming up within this
STOP_SECONDS = 1.0
_INTEGER = re.compile(r"-?\d{1,200}")
_DELIMITERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_GOLD_PRINTS_MAX = 100_000
_HASHES = re.compile(r"^[ \t]*####[ \t]*(\S.*?)[ \t]*$", re.MULTILINE)  # GSM8K's final-answer line


def _worker_main(conn: Any) -> None:
    """Child process entry point (kept here so the parent never imports math-verify itself)."""
    from gym.verifiers.math_worker import serve

    serve(conn)


class _WorkerGone(Exception):
    pass


class _Worker:
    __slots__ = ("process", "conn", "ready")

    def __init__(self, process: Any, conn: Any) -> None:
        self.process, self.conn, self.ready = process, conn, False


# Pools alive in this process. multiprocessing's fork server and resource tracker are process-wide
# helpers; when gym started them, they are stopped with the last pool so close() leaves no children.
_registry_lock = threading.Lock()
_live_pools: "weakref.WeakSet[WorkerPool]" = weakref.WeakSet()
_helpers: dict[str, Any] = {"forkserver": False, "tracker": False, "previous_preload": None}


def _preferred_method() -> str:
    """The fork server when the platform has one (forks of a single-threaded, preloaded server), else spawn."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def _start_context() -> Any:
    method = _preferred_method()
    ctx = multiprocessing.get_context(method)
    from multiprocessing import forkserver, resource_tracker

    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if tracker is not None and getattr(tracker, "_fd", 0) is None:
        _helpers["tracker"] = True
    server = getattr(forkserver, "_forkserver", None)
    if method == "forkserver" and server is not None and getattr(server, "_forkserver_pid", 0) is None \
            and not _helpers["forkserver"]:
        # Not running yet: start it with the worker module imported, so each fork is ready at once.
        _helpers.update(forkserver=True, previous_preload=list(getattr(server, "_preload_modules", [])))
        ctx.set_forkserver_preload([WORKER_MODULE])
    return ctx


def _stop_helpers_if_owned() -> None:
    if len(_live_pools):
        return
    from multiprocessing import forkserver, resource_tracker

    for key, helper in (("forkserver", getattr(forkserver, "_forkserver", None)),
                        ("tracker", getattr(resource_tracker, "_resource_tracker", None))):
        if not _helpers[key] or getattr(helper, "_stop", None) is None:
            continue
        try:
            helper._stop()
        except OSError:  # it already went away
            pass
        _helpers[key] = False
    if _helpers["previous_preload"] is not None:
        forkserver.set_forkserver_preload(_helpers["previous_preload"])
        _helpers["previous_preload"] = None


class WorkerPool:
    """`size` worker processes; a thread checks one out per request, so calls never share a pipe."""

    def __init__(self, size: int, timeout: float) -> None:
        self.size, self.timeout = size, timeout
        self._cond = threading.Condition()
        self._spawn_lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._ctx: Any = None
        self._started = self._closed = False
        self._pid = os.getpid()

    def pids(self) -> list[int]:
        return sorted(w.process.pid for w in list(self._all) if w.process.pid)

    def _start(self) -> None:
        with self._cond:
            if self._started:
                return
            with _registry_lock:
                self._ctx = _start_context()
                _live_pools.add(self)
            for _ in range(self.size):
                self._idle.append(self._spawn())
            self._started = True

    def _spawn(self) -> _Worker:
        with self._spawn_lock:
            parent_end, child_end = self._ctx.Pipe()
            process = self._ctx.Process(target=_worker_main, args=(child_end,), name="gym-math-verify", daemon=True)
            process.start()
            child_end.close()
            worker = _Worker(process, parent_end)
            self._all.add(worker)
            return worker

    def _checkout(self) -> _Worker:
        if os.getpid() != self._pid:
            raise GymError("a math verifier cannot be shared with a forked process; create one in that process")
        if not self._started:
            self._start()
        with self._cond:
            while not self._idle and not self._closed:
                self._cond.wait()
            if self._closed:
                raise GymError("math verifier used after close()")
            return self._idle.pop()

    def _checkin(self, worker: _Worker) -> None:
        with self._cond:
            if not self._closed:
                self._idle.append(worker)
                self._cond.notify()
                return
        self._stop_worker(worker, graceful=True)

    def _await_ready(self, worker: _Worker) -> None:
        if not worker.conn.poll(STARTUP_SECONDS):
            raise _WorkerGone("did not start in time")
        message = worker.conn.recv()
        if not (isinstance(message, tuple) and message and message[0] == "ready"):
            raise _WorkerGone(f"unexpected start-up message {message!r}")
        worker.ready = True

    def run(self, request: tuple) -> dict[str, Any]:
        """The worker's result dict, or a reward-0 dict with error "timeout" / "worker crashed: ..."."""
        worker = self._checkout_live()
        try:
            worker.conn.send(request)
            if not worker.conn.poll(self.timeout):
                self._replace(worker)
                return {"reward": 0.0, "predicted": None, "error": "timeout"}
            result = worker.conn.recv()
        except (EOFError, OSError) as exc:  # it died on this input (or close() stopped it)
            closed = self._closed
            self._replace(worker)
            return {"reward": 0.0, "predicted": None,
                    "error": "verifier closed" if closed else f"worker crashed: {exc.__class__.__name__}"}
        self._checkin(worker)
        return result

    def _checkout_live(self) -> _Worker:
        """An idle worker that finished starting and is still alive; one that died while idle is replaced."""
        while True:
            worker = self._checkout()
            if not worker.ready:
                try:
                    self._await_ready(worker)
                except (EOFError, OSError, _WorkerGone) as exc:
                    worker.process.join(STOP_SECONDS)
                    reason = str(exc) or f"exit code {worker.process.exitcode}"
                    self._replace(worker)
                    raise GymError(f"math verification worker failed to start ({reason}); see its error above") from None
            if worker.process.is_alive():
                return worker
            self._replace(worker)

    def _replace(self, worker: _Worker) -> None:
        """Kill a worker that overran or died, and start a fresh one in its place."""
        self._stop_worker(worker, graceful=False)
        with self._cond:
            if self._closed:
                return
        fresh = self._spawn()
        self._checkin(fresh)

    def _stop_worker(self, worker: _Worker, graceful: bool) -> None:
        process = worker.process
        if graceful:
            try:
                worker.conn.send(None)
            except (OSError, ValueError):
                pass
            process.join(STOP_SECONDS)
        if process.is_alive():
            process.kill()
            process.join(STOP_SECONDS)
        worker.conn.close()
        self._all.discard(worker)

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            idle, self._idle = self._idle, []
            busy = [w for w in list(self._all) if w not in idle]
            self._cond.notify_all()
        if os.getpid() != self._pid:
            return
        for worker in idle:  # ask politely first: they exit as soon as they read None
            try:
                worker.conn.send(None)
            except (OSError, ValueError):
                pass
        for worker in idle:
            self._stop_worker(worker, graceful=True)
        for worker in busy:  # their threads see the pipe close and clean up
            worker.process.kill()
            worker.process.join(STOP_SECONDS)
        with _registry_lock:
            _live_pools.discard(self)
            _stop_helpers_if_owned()


@atexit.register  # before multiprocessing's own hook, which would wait on workers we may still replace
def _close_all_pools() -> None:
    for pool in list(_live_pools):
        pool.close()


def gold_body(gold: str) -> str:
    """Gold answer without outer math delimiters or an enclosing \\boxed{}."""
    text = gold.strip()
    for left, right in _DELIMITERS:
        inner = text[len(left):-len(right)]
        if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right) \
                and left not in inner and right not in inner:  # "$1$ and $2$" is not one wrapped answer
            text = inner.strip()
            break
    return unbox(text)


class MathVerifier(Verifier):
    family = "math"
    OPTIONS = {"timeout": 5.0, "workers": None, "_test_sleep": 0.0}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if importlib.util.find_spec("math_verify") is None:
            raise GymError("the math verifier needs math-verify: pip install 'math-verify[antlr4_9_3]'")
        self.timeout = self.number_option("timeout", 0.01)
        workers = self.options["workers"]
        self.workers = (os.cpu_count() or 1) if workers is None else int(self.number_option("workers", 1, integer=True))
        self._sleep = self.number_option("_test_sleep", 0.0)
        self._inner_timeout = max(1, int(self.timeout * 0.8))  # math-verify's own soft limits, in whole seconds
        self._pool = WorkerPool(self.workers, self.timeout)
        self._gold_prints: dict[str, str] = {}  # gold text -> how the worker prints it, for the shortcut

    def worker_pids(self) -> list[int]:
        return self._pool.pids()

    def verify(self, row: dict, response: str) -> Verdict:
        gold = gold_body(expected_answer(row))
        text = response or ""
        boxed = last_boxed(text)
        details: dict[str, Any] = {"gold": gold, "predicted": None, "source": "boxed" if boxed is not None else "text"}
        if boxed is None and not text.strip():
            details["source"] = None
            return Verdict(0.0, None, details)
        if boxed is None:
            # "#### 72" marks the final answer; math-verify alone would prefer any earlier "answer ... 20%".
            hashes = _HASHES.findall(text)
            if hashes:
                text, details["source"] = hashes[-1], "hashes"
        if boxed is not None and squash_spaces(boxed) == squash_spaces(gold):
            # Same text as the gold is right by definition; print it the way a worker would.
            printed = str(int(gold)) if _INTEGER.fullmatch(gold) else self._gold_prints.get(gold)
            if printed is not None:
                details.update(predicted=printed, shortcut=True)
                return Verdict(1.0, printed, details)
        pred_text = f"\\boxed{{{boxed}}}" if boxed is not None else text
        want_gold = gold not in self._gold_prints
        result = self._pool.run((f"\\boxed{{{gold}}}", pred_text, want_gold, self._inner_timeout, self._sleep))
        if result.get("gold") is not None:
            if len(self._gold_prints) >= _GOLD_PRINTS_MAX:
                self._gold_prints.clear()
            self._gold_prints[gold] = result["gold"]
        details["predicted"] = result.get("predicted")
        if result.get("error"):
            details["error"] = result["error"]
        return Verdict(float(result.get("reward") or 0.0), result.get("predicted"), details)

    def close(self) -> None:
        self._pool.close()
