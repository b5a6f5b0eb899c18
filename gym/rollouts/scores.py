"""Secondary scores in rollout rows: `"scores": {name: number in [0, 1]}` (or null / absent).

A verifier may report named secondary scores (higher is better) next to the reward, e.g. ifeval's
`prompt_loose` or code's `base_tests`; collect copies them to the row's top-level `scores`. The
loader turns them into one float column per name, `scores.<name>` (null where a row lacks it).

Pooled scores: IFEval defines instruction-level accuracy over all instructions of all prompts, so a
response with four instructions weighs four times one with a single instruction. A score named in
POOLED is weighed by the score it names (a count, the one score not limited to [0, 1], never reported
itself); `pooled_task_values` turns the rows into per-task values whose plain mean is the pooled share.

Speed: pyarrow's JSON reader needs the names up front. The first read declares the names found in
the file's first rows (none: an empty struct, which costs nothing and still says whether any row has
scores); only a file where some row has scores gets a byte scan for names beyond those (quick when
there are none), and a second read when the scan finds some.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from gym.core.errors import GymError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pyarrow as pa

PREFIX = "scores."
POOLED = {"instruction_strict": "instructions", "instruction_loose": "instructions"}  # score -> its weight
WEIGHTS = frozenset(POOLED.values())
_OBJECT = re.compile(rb'"scores"\s*:\s*\{([^{}]*)\}')
_KEY = re.compile(rb'"((?:[^"\\]|\\.)*)"\s*:')


def column(name: str) -> str:
    return PREFIX + name


def names_in(columns: Iterable[str]) -> list[str]:
    """Score names of a frame's or table's columns, in column order."""
    return [c[len(PREFIX):] for c in columns if c.startswith(PREFIX)]


def first_names(rows: Iterable[Any]) -> list[str]:
    """Score names of the first rows of a file (what the first read declares), sorted."""
    names = {k for row in rows if isinstance(row, dict) and isinstance(row.get("scores"), dict)
             for k in row["scores"] if isinstance(k, str)}
    return sorted(names)


def _pattern(known: Sequence[str]) -> "re.Pattern[bytes]":
    """A flat `"scores": {...}` object with some name not in `known` (or a value that is not a plain
    number): the scan only pays for objects it does not already understand."""
    keys = b"|".join(re.escape(json.dumps(name).encode()) for name in known) or b"(?!)"
    known_only = rb'(?:\s*(?:' + keys + rb')\s*:\s*[-+.0-9eEnulNaIfity]+\s*,?)*\s*\}'
    return re.compile(rb'"scores"\s*:\s*\{(?!' + known_only + rb')([^{}]*)\}')


def scan_names(path: Path, end: int, known: Sequence[str] = ()) -> list[str]:
    """`known` plus every key of every flat `"scores": {...}` object in the first `end` bytes (sorted).

    Objects nested in verifier details are found too: collect copies the same scores there.
    """
    pattern = _pattern(known)
    payloads: set[bytes] = set()
    rest, seen = b"", 0
    with path.open("rb") as handle:
        while seen < end:
            chunk = handle.read(min(1 << 24, end - seen))
            if not chunk:
                break
            seen += len(chunk)
            data = rest + chunk
            cut = data.rfind(b"\n") + 1 if seen < end else len(data)  # whole lines only
            payloads.update(pattern.findall(data, 0, cut))
            rest = data[cut:]
    keys = {json.loads(b'"' + key + b'"') for key in _KEY.findall(b",".join(payloads))}
    return sorted(keys | set(known))


def struct_type(names: Sequence[str]) -> "pa.DataType":
    import pyarrow as pa

    return pa.struct([(name, pa.float64()) for name in names])


def fast_columns(scores: "pa.ChunkedArray", names: Sequence[str]) -> dict[str, "pa.ChunkedArray"] | None:
    """`scores.<name>` columns from the struct column; None if a value is outside [0, 1] (the
    line-by-line reader then names the row). NaN counts as absent; names no row carries are dropped."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = {}
    for name in names:
        values = pc.struct_field(scores, [list(scores.type.names).index(name)])
        values = pc.if_else(pc.is_nan(values), pa.scalar(None, pa.float64()), values)
        if values.null_count == len(values):
            continue
        above = pc.less(values, 0.0) if name in WEIGHTS else pc.or_(pc.less(values, 0.0), pc.greater(values, 1.0))
        if pc.any(pc.fill_null(above, False)).as_py():
            return None
        out[column(name)] = values
    return out


def row_scores(value: Any, where: str) -> dict[str, float] | None:
    """One row's validated scores (line-by-line reader): a dict of numbers in [0, 1], NaN dropped."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise GymError(f"{where}: 'scores' must be an object of name: number, got {type(value).__name__}")
    out = {}
    for name, score in value.items():
        if score is None or (isinstance(score, float) and math.isnan(score)):
            continue
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise GymError(f"{where}: score {name!r} must be a number, got {score!r}")
        if name in WEIGHTS and score < 0:
            raise GymError(f"{where}: weight {name!r} = {score} is negative")
        if name not in WEIGHTS and not 0.0 <= score <= 1.0:
            raise GymError(f"{where}: score {name!r} = {score} outside [0, 1]")
        out[name] = float(score)
    return out


def slow_columns(rows: list[dict[str, float] | None]) -> dict[str, "pa.Array"]:
    """`scores.<name>` columns (sorted names) from the line-by-line reader's per-row dicts."""
    import pyarrow as pa

    names = sorted({name for scores in rows if scores for name in scores})
    return {column(name): pa.array([scores.get(name) if scores else None for scores in rows], pa.float64())
            for name in names}


def pooled_task_values(values: "np.ndarray", weights: "np.ndarray", task_codes: "np.ndarray",
                       n_tasks: int) -> "np.ndarray":
    """Per-task values of a pooled score: task t's weighted share times its mean weight over the mean of
    all tasks' mean weights, so the mean over tasks is sum(share x weight) / sum(weight) with every task
    counted once per rollout as elsewhere. A row without a weight (a model_error) takes its task's mean
    weight (every rollout of a task answers the same prompt); a task without any, weight 1."""
    import numpy as np

    has = ~np.isnan(values)
    known = has & ~np.isnan(weights)
    weight_sum = np.bincount(task_codes[known], weights=weights[known], minlength=n_tasks)
    weight_n = np.bincount(task_codes[known], minlength=n_tasks)
    task_weight = np.divide(weight_sum, weight_n, out=np.ones(n_tasks), where=weight_n > 0)
    filled = np.where(np.isnan(weights), task_weight[task_codes], weights)
    sums = np.bincount(task_codes[has], weights=(values * filled)[has], minlength=n_tasks)
    counts = np.bincount(task_codes[has], minlength=n_tasks)
    per_task_weight = np.bincount(task_codes[has], weights=filled[has], minlength=n_tasks)
    present = counts > 0
    out = np.full(n_tasks, np.nan)
    if not present.any():
        return out
    mean_weight = per_task_weight[present] / counts[present]  # each task's mean weight per rollout
    out[present] = (sums[present] / counts[present]) / mean_weight.mean()
    return out
