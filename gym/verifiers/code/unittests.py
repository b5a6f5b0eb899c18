"""BigCodeBench-style rows: the program and the task's `unittest` TestCases run in one sandboxed process.

As BigCodeBench's `untrusted_check` (the reference runs it unchanged): the code is the row's `code_prompt`,
"\\n    pass\\n" and the answer's code (the reference's calibrated form, so the entry point exists even when
the answer is a body), then "\\n" and the test code, executed as module `__test__`; every test of
`TestCases` runs under one time limit (SIGALRM, `timeout`), with TZ=UTC, OMP_NUM_THREADS=1, a 10 MiB
stack, `exit`/`quit` removed and stdout/stderr swallowed. The answer passes when no test fails or errs.

The report leaves on a descriptor duplicated before the answer's code runs, behind a per-run nonce read
from stdin first, so printing cannot fake one. As in the reference, tests and answer share a process.
"""

from __future__ import annotations

import secrets

from gym.sandbox.report import nonce_report

RUNNER = r'''
import os as _os, sys as _sys
def _gym_main(nonce, report_fd, source, limit):
    import builtins, io, json, resource, signal, time, types, unittest
    _os.environ.update(TZ="UTC", OMP_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0",
                       MPLBACKEND="Agg")
    time.tzset()
    try:
        resource.setrlimit(resource.RLIMIT_STACK, (10 << 20, 10 << 20))
    except (ValueError, OSError):
        pass
    builtins.exit = None
    builtins.quit = None
    module = types.ModuleType("__test__")
    module.__dict__.update({"__builtins__": builtins, "__file__": "__test__.py", "__package__": None,
                            "__doc__": None, "sys": _sys, "os": _os, "environ": _os.environ})
    report = {}

    class _Timeout(Exception):
        pass

    def _alarm(signum, frame):
        raise _Timeout("Timed out!")

    sink = io.StringIO()
    saved = _sys.stdout, _sys.stderr
    try:
        _sys.stdout = _sys.stderr = sink
        try:
            import matplotlib.pyplot as _plt
            _plt.close("all")
        except BaseException:
            pass
        exec(compile(source, "__test__.py", "exec"), module.__dict__)
        _sys.modules["__test__"] = module
        suite = unittest.TestLoader().loadTestsFromTestCase(module.TestCases)
        result = unittest.TestResult()
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            suite.run(result)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        issues = {test.id().split(".")[-1]: trace[-2000:] for test, trace in result.failures + result.errors}
        report = {"status": "fail" if issues else "pass", "tests": result.testsRun, "issues": issues}
    except BaseException as exc:
        report = {"status": "fail", "tests": 0, "issues": {"ALL": str(exc)[-2000:]}}
    finally:
        _sys.stdout, _sys.stderr = saved
    _os.write(report_fd, (nonce + json.dumps(report) + "\n").encode())
_gym_main(_sys.stdin.readline().strip(), _os.dup(1), @SOURCE@, @LIMIT@)
'''


def site_packages(environment) -> tuple[str, ...]:
    """The site-packages folder of a virtualenv built by this Python (BigCodeBench's prepare builds one)."""
    if not environment:
        return ()
    import sys
    from pathlib import Path

    from gym.core.errors import GymError

    if not Path(str(environment)).expanduser().exists():  # not built (prepare_args.environment=skip)
        return ()
    folder = Path(str(environment)).expanduser() / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    if not folder.is_dir():
        raise GymError(f"verifier 'code': environment {environment} has no {folder.relative_to(Path(str(environment)).expanduser())}"
                       f" (built by another Python, or not built: re-run task=prepare, or set environment=null)")
    return (str(folder),)


def program(row: dict, code: str, timeout: float) -> tuple[str, str]:
    """(sandbox source, its stdin) for the answer's `code` against the row's tests."""
    source = str(row.get("code_prompt") or "") + "\n    pass\n" + code + "\n" + str(row["test"])
    nonce = secrets.token_hex(16)
    return RUNNER.replace("@SOURCE@", repr(source)).replace("@LIMIT@", repr(float(timeout))), nonce + "\n"


def read_report(stdout: str, stdin: str) -> dict | None:
    """The runner's report from its output (the nonce is the stdin `program` gave it), or None when there is
    none (killed, timed out)."""
    return nonce_report(stdout, stdin.strip())
