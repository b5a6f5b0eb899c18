"""A program's report in its sandboxed output: one JSON object on a line behind a per-run nonce.

The program under test shares stdout with the code it runs, so a report is trusted only behind a nonce the
program read from stdin (secrets.token_hex), which the code cannot guess. The code verifier's unittest
runner and SciCode's step runner both report this way.
"""

from __future__ import annotations

import json


def nonce_report(stdout: str, nonce: str) -> dict | None:
    """The report on the last line of `stdout` that starts with `nonce`; None when there is none (killed,
    timed out) or it is not a JSON object."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(nonce):
            try:
                report = json.loads(line[len(nonce):])
            except json.JSONDecodeError:
                return None
            return report if isinstance(report, dict) else None
    return None
