"""The inside of a math verification worker process: `python -m gym.verifiers.math_worker FD PARENT_PID`.

math-verify, SymPy and the LaTeX parser load once, at start; `serve` then answers requests arriving on the
socket FD until it closes. The parent enforces the hard time limit by killing the process, so nothing here
needs to be interruptible.

The parent starts this process with gym's own ANTLR 4.13 runtime first on its path (see gym.verifiers.math),
so latex2sympy2_extended uses its current 4.13 parser here whatever runtime Hydra pins in the parent.

Parse errors: math-verify swallows a LaTeX parser exception and falls back to comparing text. Every such
exception is recorded here; a side (gold or prediction) whose LaTeX matched but never parsed is reported
in the result's "parse_errors" ({"gold"|"predicted": "ExceptionClass: message"}), so the failure is
counted instead of passing silently as a text comparison.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from functools import lru_cache
from typing import Any

import sympy
import math_verify.parser as mv_parser
from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
from math_verify.errors import TimeoutException

GOLD_CONFIG = (LatexExtractionConfig(),)
PRED_CONFIG = (LatexExtractionConfig(), ExprExtractionConfig())
MAX_ANSWER_CHARS = 300
CANONICAL_SECONDS = 0.5  # budget for printing an answer; a slow print falls back to math-verify's string
_PERCENT = re.compile(r"\\?%")
MEMORY_LIMIT_BYTES = 4 << 30  # "10^{10^{10}}" would otherwise try to allocate gigabytes before the kill


class _SlowPrint(Exception):
    pass


_parser_failures: list[str] = []  # LaTeX parser exceptions of the current parse() call


def _recording(parse_latex: Any) -> Any:
    def parse_latex_recorded(latex: str) -> Any:
        try:
            return parse_latex(latex)
        except Exception as exc:
            _parser_failures.append(f"{exc.__class__.__name__}: {exc}".splitlines()[0][:200])
            raise
    return parse_latex_recorded


mv_parser.parse_latex_cached = _recording(mv_parser.parse_latex_cached)


def parse_recorded(text: str, config: tuple, inner_timeout: int) -> tuple[list, str | None]:
    """math-verify's parse, plus the parser error when LaTeX was found but nothing but text came out."""
    _parser_failures.clear()
    result = parse(text, config, parsing_timeout=inner_timeout)
    failed = _parser_failures[-1] if _parser_failures else None
    _parser_failures.clear()
    if failed is not None and not any(not isinstance(item, str) for item in result):
        return result, failed
    return result, None


@lru_cache(maxsize=4096)
def parse_gold(gold_latex: str, inner_timeout: int) -> tuple[tuple, str | None]:
    result, error = parse_recorded(gold_latex, GOLD_CONFIG, inner_timeout)
    return tuple(result), error


def antlr_version() -> str:
    from importlib.metadata import version

    return version("antlr4-python3-runtime")


def _decimal_or_fraction(value: sympy.Rational) -> str:
    """1/2 -> "0.5" (so 0.5, 1/2 and 50% vote together); 1/3 stays "1/3"."""
    p, q = int(value.p), int(value.q)
    if q == 1:
        return str(p)
    twos_fives, rest = 0, q
    for factor in (2, 5):
        while rest % factor == 0:
            rest //= factor
            twos_fives += 1
    if rest != 1 or twos_fives > 12:
        return f"{p}/{q}"
    digits = max(_power(q, 2), _power(q, 5))
    scaled = abs(p) * 10**digits // q
    whole, frac = divmod(scaled, 10**digits)
    return f"{'-' if p < 0 else ''}{whole}.{str(frac).rjust(digits, '0').rstrip('0')}"


def _power(n: int, factor: int) -> int:
    count = 0
    while n % factor == 0:
        n //= factor
        count += 1
    return count


def _float_text(value: float) -> str:
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def canonical(value: Any) -> str:
    """A short, stable string for an extracted answer: equal numbers print equally."""
    if isinstance(value, str):
        return " ".join(value.split())[:MAX_ANSWER_CHARS]
    if isinstance(value, sympy.Integer):
        return str(int(value))
    if isinstance(value, sympy.Rational):
        return _decimal_or_fraction(value)
    if isinstance(value, sympy.Float):
        return _float_text(float(value))
    if isinstance(value, sympy.Expr) and value.is_number and value.has(sympy.UnevaluatedExpr):
        evaluated = value.doit()  # percentages come back as 10*(1/100), unevaluated
        if isinstance(evaluated, (sympy.Rational, sympy.Float)):
            return canonical(evaluated)
    return str(value)[:MAX_ANSWER_CHARS]


def _on_alarm(signum: int, frame: Any) -> None:
    raise _SlowPrint()


def safe_canonical(value: Any, fallback: str | None) -> str | None:
    """canonical() under a short timer; SymPy printing can be very slow on huge expressions."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CANONICAL_SECONDS)
    try:
        return canonical(value)
    except (_SlowPrint, Exception, TimeoutException):
        return canonical(fallback) if fallback else None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check(gold_latex: str, pred_text: str, want_gold: bool, inner_timeout: int) -> dict[str, Any]:
    """check_once, and when a side has a percent sign and they differ, check_once without the percent signs:
    math-verify reads N% as N/100 (and equal to N only for whole N); the MATH graders drop the sign, so
    12.5% and 12.5 are the same answer to them."""
    result = check_once(gold_latex, pred_text, want_gold, inner_timeout)
    if result["reward"] or not ("%" in gold_latex or "%" in pred_text):
        return result
    bare = check_once(_PERCENT.sub("", gold_latex), _PERCENT.sub("", pred_text), False, inner_timeout)
    if not bare["reward"]:
        return result
    return {**bare, "gold": result["gold"], "parse_errors": {**bare["parse_errors"], **result["parse_errors"]}}


def check_once(gold_latex: str, pred_text: str, want_gold: bool, inner_timeout: int) -> dict[str, Any]:
    """math-verify's judgement of one answer: reward, printed prediction, printed gold (if asked), and the
    parser errors behind any side that fell back to text."""
    gold, gold_error = parse_gold(gold_latex, inner_timeout)
    parse_errors = {"gold": gold_error} if gold_error else {}
    if not gold:
        return {"reward": 0.0, "predicted": None, "gold": None, "error": "expected answer could not be parsed",
                "parse_errors": parse_errors}
    gold_text = None
    if want_gold and isinstance(gold[0], sympy.Basic):  # only a parsed gold prints like a parsed prediction
        gold_text = safe_canonical(gold[0], None)
    predictions, pred_error = parse_recorded(pred_text, PRED_CONFIG, inner_timeout)
    if pred_error:
        parse_errors["predicted"] = pred_error
    if not predictions:
        return {"reward": 0.0, "predicted": None, "gold": gold_text, "error": None, "parse_errors": parse_errors}
    matched = next((p for p in predictions if verify(list(gold), p, timeout_seconds=inner_timeout)), None)
    chosen = matched if matched is not None else predictions[0]
    fallback = next((p for p in predictions if isinstance(p, str)), None)
    return {"reward": 1.0 if matched is not None else 0.0, "predicted": safe_canonical(chosen, fallback),
            "gold": gold_text, "error": None, "parse_errors": parse_errors}


def _exit_with_parent(parent_pid: int) -> None:
    """Leave when the parent process is gone, even in the middle of a long computation."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.2)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _limit_memory() -> None:
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY or soft > MEMORY_LIMIT_BYTES:
            limit = MEMORY_LIMIT_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT_BYTES, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):  # not POSIX, or not allowed: the time limit still holds
        pass


def serve(conn: Any, parent_pid: int) -> None:
    """Request loop: (gold_latex, pred_text, want_gold, inner_timeout, sleep_s) -> result dict."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _exit_with_parent(parent_pid)
    _limit_memory()
    for name in ("math_verify", "latex2sympy2_extended"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    check("\\boxed{\\frac{1}{2}}", "\\boxed{0.5}", True, 1)  # load the LaTeX parser before the clock runs
    try:
        conn.send(("ready", os.getpid(), antlr_version()))
    except (EOFError, OSError):  # the pool closed (or its process ended) while this worker was starting
        return
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        gold_latex, pred_text, want_gold, inner_timeout, sleep_s = request
        if sleep_s:
            time.sleep(sleep_s)  # test hook standing in for a pathological input
        try:
            result = check(gold_latex, pred_text, want_gold, inner_timeout)
        except (Exception, TimeoutException) as exc:
            result = {"reward": 0.0, "predicted": None, "gold": None,
                      "error": f"{exc.__class__.__name__}: {exc}"[:300]}
        try:
            conn.send(result)
        except (EOFError, OSError):
            return


def main(argv: list[str]) -> None:
    serve(Connection(int(argv[1])), int(argv[2]))


if __name__ == "__main__":
    main(sys.argv)
