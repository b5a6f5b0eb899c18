"""LaTeX parse errors per benchmark: the sum of the math verifier's `parse_errors` over a run's rollouts.

The math verifier counts, per verdict, the sides (gold, prediction) whose LaTeX the parser could not read
(details.parse_errors, in the rollout's `verifier` object). A broken parser dependency must show up as a
number in metrics.json, not as a quiet drift in the scores, so aggregate adds
`"parse_errors": n` to every benchmark entry that has math verdicts.

Only lines that mention "parse_errors" are looked at (a byte search, then three small regexes): the rest of
a rollouts file costs a scan and nothing more. As everywhere, the last row of a key wins.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable

_MARK = b'"parse_errors"'
_COUNT = re.compile(rb'"parse_errors"\s*:\s*(\d+)')
_FIELDS = {name: re.compile(rb'"' + name.encode() + rb'"\s*:\s*("(?:[^"\\]|\\.)*")') for name in ("benchmark", "model", "key")}


def _field(line: bytes, name: str) -> str | None:
    match = _FIELDS[name].search(line)  # the row's own field: collect writes it before the verifier details
    return json.loads(match.group(1)) if match else None


def count(files: Iterable[Path]) -> dict[tuple[str, str], int]:
    """{(benchmark, model): parse errors} over the last row of every key that carries a count."""
    last: dict[Any, tuple[str, str, int]] = {}
    for path in files:
        with Path(path).open("rb") as handle:
            for number, line in enumerate(handle):
                if _MARK not in line:
                    continue
                found = _COUNT.search(line)
                bench, model = _field(line, "benchmark"), _field(line, "model")
                if found is None or bench is None:
                    continue
                key = _field(line, "key") or (str(path), number)
                last[key] = (bench, str(model), int(found.group(1)))
    totals: dict[tuple[str, str], int] = {}
    for bench, model, n in last.values():
        totals[(bench, model)] = totals.get((bench, model), 0) + n
    return totals


def add_to_metrics(metrics: dict[str, Any], files: Iterable[Path]) -> None:
    """Set entry["parse_errors"] on every benchmark entry of metrics.json that has math verdicts."""
    totals = count(files)
    for entry in metrics.get("benchmarks", {}).values():
        n = totals.get((str(entry.get("benchmark")), str(entry.get("model"))))
        if n is not None:
            entry["parse_errors"] = n


def note_lines(metrics: dict[str, Any]) -> str:
    """A warning line per benchmark whose verdicts met LaTeX the parser could not read."""
    return "".join(f"note: {label}: {e['parse_errors']} LaTeX parse error(s) in math verdicts; those sides were "
                   f"compared as text (see verifier.parse_error in the rollouts)\n"
                   for label, e in metrics["benchmarks"].items() if e.get("parse_errors"))
