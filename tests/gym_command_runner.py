"""Runs `python -m gym` command lines one after another in one process: each line is what `python -m gym`
would receive, run through gym.cli.main.main() (the console entry) with its stdout and stderr captured.

One JSON list of arguments per stdin line in, one JSON object {code, stdout, stderr} per stdout line out.
Used by tests/project/test_documented_commands.py so dozens of documented commands cost one interpreter start.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time


def run(argv: list[str]) -> dict:
    from gym.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        sys.argv = ["gym", *argv]
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception as exc:  # a bug: the traceback goes back to the test
            import traceback

            traceback.print_exc(file=err)
            code = f"{type(exc).__name__}: {exc}"
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def serve() -> None:
    reply = os.fdopen(os.dup(1), "w")  # the replies' own channel: anything else writing to fd 1 goes to stderr
    os.dup2(2, 1)
    started = 0
    for line in sys.stdin:
        # run dirs are named by the second (outputs/<task>/<time>): two runs never start in the same one
        while int(time.time()) == started:
            time.sleep(0.02)
        started = int(time.time())
        reply.write(json.dumps(run(json.loads(line))) + "\n")
        reply.flush()


if __name__ == "__main__":
    serve()
