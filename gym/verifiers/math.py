"""math: symbolic answer checking with math-verify, in long-lived worker processes with a hard time limit.

The gold answer (outer $...$ or \\(...\\) removed) is wrapped as \\boxed{gold} and parsed as LaTeX. The
prediction is the last \\boxed{} of the answer when there is one, else the text after the last "####" line,
else the whole answer, parsed with LaTeX and plain-expression extraction ("the answer is 72.", "Answer: 1,234").
Both the gold and the boxed / "####" answer first go through the MATH graders' normalisation (percent,
thousands separators, degrees, \\text{} units, \\$, a trailing full stop: gym.verifiers.math_normalize).

The LaTeX parser: latex2sympy2_extended's parser is generated per ANTLR runtime, and its 4.9.3 parser (the
runtime Hydra pins) is stale. Comparing the two generated parsers rule by rule (tools/latex_parser_diff.py)
shows one difference, the `atom` rule's alternative for a bare `\\gamma` / `\\Gamma`, which therefore does
not parse; and the converter asks every atom that is not an expression, number or variable for that
alternative's token, so every percentage (`25\\%`, `25%`) raises AttributeError. The lexers are identical.
The workers therefore import the ANTLR 4.13.2 runtime shipped inside gym (gym/verifiers/antlr413, the
unchanged PyPI wheel), placed first on their path, and report the runtime they loaded; the parent process
keeps Hydra's. A LaTeX parser failure that leaves a side compared as text is counted: details.parse_errors
(0, 1 or 2) and details.parse_error (which side, which exception).

math-verify can hang on pathological input, so checks run in a pool of worker processes started once per
verifier. Each worker is a fresh interpreter (`python -m gym.verifiers.math_worker`, fork+exec: safe from
this threaded process) that imports math-verify once and then serves checks over a socket. Unlike
multiprocessing's spawn/fork server, this never re-runs the caller's main script or start method in the
child, so it works the same under `python -m gym`, the console script, joblib/loky launchers and plain
scripts. A check that overruns `timeout` gets its worker killed and replaced and scores 0 with
details.error = "timeout". Boxed answers that equal the gold text are scored without a worker.
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import weakref
from multiprocessing.connection import Connection
from typing import Any

import gym
from gym.core.errors import GymError
from gym.verifiers.base import (Verdict, Verifier, VerifierError, expected_answer, last_boxed, squash_spaces,
                                unbox)
from gym.verifiers.math_normalize import normalize_answer

log = logging.getLogger("gym.verifiers.math")

WORKER_MODULE = "gym.verifiers.math_worker"
STARTUP_SECONDS = 60.0  # a fresh worker must finish importing and warming up within this
STOP_SECONDS = 2.0
_INTEGER = re.compile(r"-?\d{1,200}")
_GROUPED_INTEGER = re.compile(r"-?\d{1,3}(?:,\d{3})+")  # 1,234,567
_DELIMITERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_GOLD_PRINTS_MAX = 100_000
_HASHES = re.compile(r"^[ \t]*####[ \t]*(\S.*?)[ \t]*$", re.MULTILINE)  # GSM8K's final-answer line
ANTLR_WHEEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "antlr413",
                           "antlr4_python3_runtime-4.13.2-py3-none-any.whl")
ANTLR_VERSION = "4.13.2"


class _WorkerGone(Exception):
    pass


class _Worker:
    __slots__ = ("proc", "conn", "ready")

    def __init__(self, proc: subprocess.Popen, conn: Connection) -> None:
        self.proc, self.conn, self.ready = proc, conn, False


def _worker_env() -> dict[str, str]:
    """The parent's environment with gym's ANTLR 4.13 runtime first on the path (a wheel is importable as
    it is); a gym run from a source tree adds that tree so the child imports this copy."""
    import site

    env = dict(os.environ)
    root = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(gym.__file__))))
    installed = {os.path.realpath(p) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    paths = [ANTLR_WHEEL] + ([root] if root not in installed else []) + [env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return env


def _launch() -> _Worker:
    parent_end, child_end = socket.socketpair()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE, str(child_end.fileno()), str(os.getpid())],
            pass_fds=(child_end.fileno(),), stdin=subprocess.DEVNULL, env=_worker_env(),
            start_new_session=True)  # Ctrl-C is for gym; the worker leaves when gym does
    except BaseException:
        parent_end.close()
        raise
    finally:
        child_end.close()
    return _Worker(proc, Connection(parent_end.detach()))


# Pools alive in this process, closed by the exit hook if their owner did not.
_live_pools: "weakref.WeakSet[WorkerPool]" = weakref.WeakSet()


class WorkerPool:
    """`size` worker processes; a thread checks one out per request, so calls never share a socket."""

    def __init__(self, size: int, timeout: float) -> None:
        self.size, self.timeout = size, timeout
        self._cond = threading.Condition()
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._started = self._closed = False
        self._pid = os.getpid()
        self.antlr_version: str | None = None  # the ANTLR runtime the workers loaded
        self.requests_sent = 0  # requests handed to a live worker (tests wait on it)

    def pids(self) -> list[int]:
        return sorted(w.proc.pid for w in list(self._all))

    def _start(self) -> None:
        with self._cond:
            if self._started or self._closed:
                return
            for _ in range(self.size):  # they import in parallel; each is awaited on first use
                self._idle.append(self._spawn())
            self._started = True
            _live_pools.add(self)

    def _spawn(self) -> _Worker:
        worker = _launch()
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
        if not (isinstance(message, tuple) and len(message) == 3 and message[0] == "ready"):
            raise _WorkerGone(f"unexpected start-up message {message!r}")
        worker.ready = True
        if self.antlr_version is None:
            self.antlr_version = str(message[2])
            if not self.antlr_version.startswith(ANTLR_VERSION):
                log.warning("math workers loaded ANTLR runtime %s instead of gym's %s (%s missing?): LaTeX "
                            "that this parser cannot read is counted in parse_errors", self.antlr_version,
                            ANTLR_VERSION, ANTLR_WHEEL)

    def run(self, request: tuple) -> dict[str, Any]:
        """The worker's result dict, or a reward-0 dict with error "timeout" (math-verify's own rule: an
        equivalence it cannot settle in time is not proven), or "verifier closed" once close() ran. A worker
        that dies is no verdict at all: VerifierError, so the rollout is `verifier_error`, redone by reverify."""
        worker = self._checkout_live()
        if worker is None:  # close() ran while it was taking a worker
            return {"reward": 0.0, "predicted": None, "error": "verifier closed"}
        try:
            worker.conn.send(request)
            self.requests_sent += 1
            if not worker.conn.poll(self.timeout):
                self._replace(worker)
                return {"reward": 0.0, "predicted": None, "error": "timeout"}
            result = worker.conn.recv()
        except (EOFError, OSError) as exc:  # it died on this input (or close() stopped it)
            closed = self._closed
            self._replace(worker)
            if closed:  # the run is ending; nothing waits for this verdict
                return {"reward": 0.0, "predicted": None, "error": "verifier closed"}
            raise VerifierError(f"math worker crashed: {exc.__class__.__name__}", {"error": "worker crashed"}) from None
        self._checkin(worker)
        return result

    def _checkout_live(self) -> _Worker | None:
        """An idle worker that finished starting and is still alive; one that died while idle is replaced.
        None when close() stopped the worker it had taken."""
        while True:
            worker = self._checkout()
            if not worker.ready:
                try:
                    self._await_ready(worker)
                except (EOFError, OSError, _WorkerGone) as exc:
                    code = worker.proc.poll()
                    self._replace(worker)
                    if self._closed:
                        return None
                    reason = str(exc) or f"exit code {code}"
                    raise GymError(f"math verification worker failed to start ({reason}); "
                                   f"see its error above") from None
            if worker.proc.poll() is None:
                return worker
            self._replace(worker)
            if self._closed:
                return None

    def _replace(self, worker: _Worker) -> None:
        """Kill a worker that overran or died, and start a fresh one in its place."""
        self._stop_worker(worker, graceful=False)
        with self._cond:
            if self._closed:
                return
            fresh = self._spawn()
        self._checkin(fresh)

    def _stop_worker(self, worker: _Worker, graceful: bool) -> None:
        proc = worker.proc
        if graceful:  # an idle worker leaves as soon as it reads None
            try:
                worker.conn.send(None)
                proc.wait(STOP_SECONDS)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        if proc.poll() is None:
            proc.kill()
            try:
                proc.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                pass
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
        _live_pools.discard(self)
        if os.getpid() != self._pid:
            return
        for worker in idle:  # ask them all first, so they exit in parallel
            try:
                worker.conn.send(None)
            except (OSError, ValueError):
                pass
        for worker in idle:
            self._stop_worker(worker, graceful=True)
        for worker in busy:  # their threads see the socket close, reap them and do not replace them
            worker.proc.kill()
            try:
                worker.proc.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                pass


@atexit.register
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


def integer_text(text: str) -> str | None:
    """The integer a short answer states ("72", " -3 ", "1,234", "$72$"), else None."""
    body = text.strip().strip("$").strip()
    if _GROUPED_INTEGER.fullmatch(body):
        body = body.replace(",", "")
    return body if _INTEGER.fullmatch(body) else None


class MathVerifier(Verifier):
    family = "math"
    OPTIONS = {"timeout": 5.0, "workers": None, "_test_sleep": 0.0}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if importlib.util.find_spec("math_verify") is None:
            raise GymError("the math verifier needs math-verify: pip install math-verify")
        self.timeout = self.number_option("timeout", 0.01)
        workers = self.options["workers"]
        self.workers = os.cpu_count() or 1
        if workers is not None:
            self.workers = int(self.number_option("workers", 1, integer=True))
        self._sleep = self.number_option("_test_sleep", 0.0)
        self._inner_timeout = max(1, int(self.timeout * 0.8))  # math-verify's own soft limits, in whole seconds
        self._pool = WorkerPool(self.workers, self.timeout)
        self._gold_prints: dict[str, str] = {}  # gold text -> how the worker prints it, for the shortcut

    def marked(self, row: dict, response: str) -> bool:
        """Strict mode: a \\boxed{} answer or a "####" line; the last number of free text is not an answer."""
        text = response or ""
        return last_boxed(text) is not None or _HASHES.search(text) is not None

    def worker_pids(self) -> list[int]:
        return self._pool.pids()

    def verify(self, row: dict, response: str) -> Verdict:
        gold = normalize_answer(gold_body(expected_answer(row)))
        text = response or ""
        boxed = last_boxed(text)
        if boxed is not None:
            boxed = normalize_answer(boxed)
        details: dict[str, Any] = {"gold": gold, "predicted": None, "source": "boxed" if boxed is not None else "text",
                                   "parse_errors": 0}
        if boxed is None and not text.strip():
            details["source"] = None
            return Verdict(0.0, None, details)
        if boxed is None:
            # "#### 72" marks the final answer; math-verify alone would prefer any earlier "answer ... 20%".
            hashes = _HASHES.findall(text)
            if hashes:
                text, details["source"] = normalize_answer(hashes[-1]), "hashes"
        candidate = boxed if boxed is not None else (text if details["source"] == "hashes" else None)
        plain = integer_text(candidate) if candidate is not None else None
        if plain is not None and _INTEGER.fullmatch(gold):
            # Integer against integer needs no parser: the common case (gsm8k, aime) stays off the workers.
            value = str(int(plain))
            details.update(predicted=value, shortcut=True)
            return Verdict(float(int(plain) == int(gold)), value, details)
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
        parse_errors = result.get("parse_errors") or {}
        if parse_errors:
            details.update(parse_errors=len(parse_errors), parse_error=parse_errors)
        if result.get("error"):
            details["error"] = result["error"]
        return Verdict(float(result.get("reward") or 0.0), result.get("predicted"), details)

    def close(self) -> None:
        self._pool.close()
