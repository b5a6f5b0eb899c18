"""What runs in the sandbox for one SciCode sub-step: the accumulated code, then the step's test cases.

The targets come from test_data.h5, read on the host (gym.episodes.scicode.targets) and sent pickled on
stdin, so the 1 GB file never enters the sandbox. The tests call SciCode's comparison helpers
(`cmp_tuple_or_list`, `are_dicts_close`, `are_csc_matrix_close`, upstream's scicode.compare.cmp); their
imports are dropped and these equivalents are defined beside the code. A report line behind a per-run nonce
(read from stdin first, written on a descriptor duplicated before the code runs) says whether every
assertion held, so printing cannot fake a pass.
"""

from __future__ import annotations

import re

RUNNER = r'''
import os as _os, sys as _sys
def _gym_scicode(nonce, report_fd, payload, code, tests):
    import base64, builtins, io, json, pickle, resource
    _os.environ.update(OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    import numpy as np  # scipy and sympy only when a value is theirs (importing them costs more than most tests)

    def _issparse(value):
        sparse = _sys.modules.get("scipy.sparse")
        return sparse is not None and sparse.issparse(value)

    def _is_symbol(value):
        sympy = _sys.modules.get("sympy")
        return sympy is not None and isinstance(value, sympy.Symbol)

    def _symbols(d):
        return {(str(k) if _is_symbol(k) else k): (str(v) if _is_symbol(v) else v) for k, v in d.items()}

    def _close(a, b, atol=1e-8, rtol=1e-5):
        try:
            return bool(np.allclose(a, b, atol=atol, rtol=rtol))
        except (ValueError, TypeError):
            return a == b

    def are_dicts_close(dict1, dict2, atol=1e-8, rtol=1e-5):
        dict1, dict2 = _symbols(dict1), _symbols(dict2)
        if dict1.keys() != dict2.keys():
            return False
        for key, first in dict1.items():
            second = dict2[key]
            if isinstance(first, str):
                same = first == second
            elif _issparse(first):
                same = _close(first.toarray(), second.toarray(), atol, rtol)
            else:
                same = _close(first, second, atol, rtol)
            if not same:
                return False
        return True

    def are_csc_matrix_close(matrix1, matrix2):
        return bool(np.allclose(matrix1.toarray(), matrix2.toarray()))

    def cmp_tuple_or_list(var1, var2):
        if len(var1) != len(var2):
            return False
        for first, second in zip(var1, var2):
            if isinstance(first, dict):
                same = are_dicts_close(first, second)
            elif _issparse(first):
                same = are_csc_matrix_close(first, second)
            elif isinstance(first, bool):
                same = first == second
            else:
                same = _close(first, second, 1e-8, 1e-5)
            if not same:
                return False
        return True

    helpers = {"are_dicts_close": are_dicts_close, "are_csc_matrix_close": are_csc_matrix_close,
               "cmp_tuple_or_list": cmp_tuple_or_list}
    targets = pickle.loads(base64.b64decode(payload))
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    sink = io.StringIO()
    saved = _sys.stdout, _sys.stderr
    report = {"passed": 0, "tests": len(tests)}
    try:
        _sys.stdout = _sys.stderr = sink
        exec(compile(code, "solution.py", "exec"), namespace)
        namespace.update(helpers)
        for number, (test, target) in enumerate(zip(tests, targets)):
            namespace["target"] = target
            exec(compile(test, f"test{number + 1}.py", "exec"), namespace)
            report["passed"] += 1
    except BaseException as exc:
        report["error"] = f"{exc.__class__.__name__}: {exc}"[-1000:]
    finally:
        _sys.stdout, _sys.stderr = saved
    _os.write(report_fd, (nonce + json.dumps(report) + "\n").encode())
_gym_scicode(_sys.stdin.readline().strip(), _os.dup(1), _sys.stdin.readline().strip(), @CODE@, @TESTS@)
'''

UPSTREAM_IMPORT = re.compile(r"^\s*(from\s+scicode[.\s]|import\s+scicode\b)")


def test_source(test_case: str) -> str:
    """A test case without its imports of the scicode package (the runner defines those helpers)."""
    return "\n".join(line for line in test_case.split("\n") if not UPSTREAM_IMPORT.match(line))


def program(code: str, tests: list[str]) -> str:
    return RUNNER.replace("@CODE@", repr(code)).replace("@TESTS@", repr([test_source(t) for t in tests]))
