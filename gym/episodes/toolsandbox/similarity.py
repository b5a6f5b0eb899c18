"""ToolSandbox's similarity measures (upstream's common/evaluation.py), on gym's plain-row snapshots.

A column measure scores every snapshot row against one target value in [0, 1] (None where upstream's
polars gives null: a comparison with a null cell). A snapshot measure scores a whole snapshot against a
target table: rows are paired one to one (linear assignment) maximising the geometric mean of row
similarities, a row's similarity being the geometric mean of its columns'. Upstream computes in polars
Float32 for most column measures (Float64 for `column_one_similarity`) and sums a row's -log similarities
in that precision before the mean; the arithmetic below keeps those precisions, so the scores agree
with upstream's to the last bits (tests/episodes/test_toolsandbox_parity.py).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from typing import Any, Callable

import numpy as np

from gym.episodes.toolsandbox.world import SANDBOX, SCHEMAS

F32 = np.float32
NOT_GIVEN = object()  # an argument a trace does not carry (upstream's NOT_GIVEN sentinel)
BRUTE_FORCE_ROWS = 7  # up to this many target rows, every assignment is tried (7! = 5,040)


def is_close(value: Any, reference: Any, atol: float | None = None) -> bool:
    numbers = (float, int)
    if atol is not None and isinstance(value, numbers) and isinstance(reference, numbers):
        return abs(value - reference) <= atol
    if value is NOT_GIVEN or reference is NOT_GIVEN:
        return value is reference
    return value == reference


def _exact(cells: list, value: Any, **_: Any) -> list:
    if value is None:
        return [F32(c is None) for c in cells]
    return [None if c is None else F32(c == value) for c in cells]


def _close(cells: list, value: Any, atol: dict | None = None, column: str = "", **_: Any) -> list:
    return [F32(is_close(value, c, (atol or {}).get(column))) for c in cells]


def _one(cells: list, value: Any, **_: Any) -> list:
    return [1.0 for _ in cells]  # a Float64 literal upstream


def _contains(cells: list, value: Any, **_: Any) -> list:
    return [None if c is None else F32(str(value) in c) for c in cells]


def _trace_match(cells: list, value: Any, atol: dict | None = None, **_: Any) -> list:
    trace = json.loads(value)
    golden = trace if isinstance(trace, list) else [trace]

    def score(cell: Any) -> Any:
        if cell is None:
            return F32(0)
        for gold in golden:
            for raw in cell:
                call = json.loads(raw)
                if call["tool_name"] == gold["tool_name"] and all(
                        is_close(call["arguments"].get(name, NOT_GIVEN), gold["arguments"][name],
                                 atol=(atol or {}).get(name)) for name in gold["arguments"]):
                    return F32(1)
        return F32(0)

    return [score(c) for c in cells]


_ROUGE = None


def _rouge(cells: list, value: Any, **_: Any) -> list:
    global _ROUGE
    if _ROUGE is None:
        from rouge_score import rouge_scorer
        _ROUGE = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    return [F32(_ROUGE.score(target=value, prediction=c)["rougeL"].fmeasure) for c in cells]


COLUMN_MEASURES: dict[str, Callable[..., list]] = {
    "column_exact_match_similarity": _exact, "column_close_similarity": _close,
    "column_one_similarity": _one, "column_contains_similarity": _contains,
    "column_tool_trace_exact_match_similarity": _trace_match, "column_rouge_l_similarity": _rouge}

_E, _R, _O, _T = ("column_exact_match_similarity", "column_rouge_l_similarity", "column_one_similarity",
                  "column_tool_trace_exact_match_similarity")
DEFAULT_MEASURES: dict[str, dict[str, str]] = {
    "SANDBOX": {"sender": _E, "recipient": _E, "content": _R, "openai_tool_call_id": _O,
                "openai_function_name": _O, "conversation_active": _E, "tool_call_exception": _O,
                "tool_trace": _T, "visible_to": _E},
    "SETTING": {c: _E for c in SCHEMAS["SETTING"]},
    "CONTACT": {**{c: _E for c in SCHEMAS["CONTACT"]}, "relationship": _R},
    "MESSAGING": {**{c: _E for c in SCHEMAS["MESSAGING"]}, "content": _R},
    "REMINDER": {**{c: _E for c in SCHEMAS["REMINDER"]}, "content": _R},
}


def measures_for(namespace: str, overrides: dict) -> dict[str, dict]:
    """Column -> {name, kwargs...}: upstream's defaults with the constraint's own overrides."""
    out = {c: {"name": n} for c, n in DEFAULT_MEASURES[namespace].items()}
    out.update(overrides or {})
    return out


def _column_scores(measure: dict, cells: list, column: str, value: Any) -> list:
    kwargs = {k: v for k, v in measure.items() if k != "name"}
    return COLUMN_MEASURES[measure["name"]](cells, value, column=column, atol=kwargs.get("atol_dict"))


def _c_logf() -> Callable[[float], float] | None:
    """The C library's logf, which polars' Float32 log calls (not always the correctly rounded ln)."""
    import ctypes
    import ctypes.util

    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        libm.logf.restype, libm.logf.argtypes = ctypes.c_float, [ctypes.c_float]
        return libm.logf
    except (OSError, AttributeError):
        return None


_LOGF = _c_logf() or (lambda x: float(F32(math.log(x))))
_LN_E32 = F32(_LOGF(float(F32(math.e))))  # 0.99999994: ln of e in float32


def _log32(value: Any) -> Any:
    """polars' Float32 log: logf(x) / logf(e), in float32."""
    if value == 0:
        return F32(-np.inf)
    return F32(F32(_LOGF(float(value))) / _LN_E32)


def _tree_sum(terms: list) -> Any:
    """polars' horizontal sum: halves added recursively, each addition in the wider of its two types."""
    if len(terms) == 1:
        return terms[0]
    half = len(terms) // 2
    return _tree_sum(terms[:half]) + _tree_sum(terms[half:])


def _row_cost(per_column: list[list]) -> list[float]:
    """-log similarity averaged over columns per snapshot row, in upstream's precision (NaN: all null)."""
    wide = [any(v is not None and not isinstance(v, F32) for v in col) for col in per_column]  # Float64 columns
    out = []
    for j in range(len(per_column[0]) if per_column else 0):
        cells = [col[j] for col in per_column]
        count = sum(c is not None for c in cells)
        if not count:
            out.append(math.nan)
            continue
        with np.errstate(divide="ignore"):  # each column's -log in its own precision; a null adds 0
            logs = [(-_log32(c) if isinstance(c, F32) else -np.log(np.float64(c))) if c is not None else
                    (np.float64(0) if wide[k] else F32(0)) for k, c in enumerate(cells)]
        out.append(float(_tree_sum(logs)) / count)
    return out


def _assign(cost: np.ndarray) -> float | None:
    """Minimal total cost of a one-to-one assignment as upstream's linear_sum_assignment; None: infeasible."""
    if np.isnan(cost).any():
        return None
    n = cost.shape[0]
    if n > BRUTE_FORCE_ROWS:  # upstream's targets have at most 2 rows; a larger table goes to scipy
        from scipy.optimize import linear_sum_assignment

        try:
            rows, columns = linear_sum_assignment(cost)
        except ValueError:  # infeasible: every assignment takes an infinite cost
            return None
        return float(np.exp(-cost[rows, columns].mean()))
    best = None
    for perm in itertools.permutations(range(n)):
        chosen = cost[list(range(n)), list(perm)]
        if np.isinf(chosen).any():
            continue
        total = chosen.sum()
        if best is None or total < best[0]:
            best = (total, chosen)
    if best is None:
        return None
    return float(np.exp(-best[1].mean()))


def snapshot_similarity(snapshot: list[dict], target: dict, measures: dict, **_: Any) -> float:
    rows = target["rows"]
    columns = list(target["schema"])
    if len(snapshot) != len(rows) or (snapshot and set(columns) - set(snapshot[0])) or not snapshot:
        return 0.0
    matrix = []
    for row in rows:
        per_column = [_column_scores(measures[c], [s.get(c) for s in snapshot], c, row[c]) for c in columns]
        matrix.append(_row_cost(per_column))
    # one Float32 column: polars' horizontal mean stays Float32, and so does upstream's cost matrix
    narrow = len(columns) == 1 and measures[columns[0]]["name"] != "column_one_similarity"
    score = _assign(np.array(matrix, dtype=np.float32 if narrow else np.float64))
    return 0.0 if score is None else score


def _zero_fill(rows: list[dict], kinds: dict[str, str]) -> list[dict]:
    """polars fill_null(strategy="zero"): numbers to 0, booleans to false, strings to ""."""
    fill = {"float": 0.0, "int": 0, "bool": False, "str": ""}
    return [{c: (fill.get(kinds.get(c, "")) if v is None else v) for c, v in r.items()} for r in rows]


def _target_kinds(target: dict) -> dict[str, str]:
    def kind(dtype: str) -> str:
        return "float" if dtype.startswith("Float") else "int" if dtype.startswith(("Int", "UInt")) else (
            "bool" if dtype == "Boolean" else "str" if dtype == "String" else "other")
    return {c: kind(d) for c, d in target["schema"].items()}


def _same(a: dict, b: dict) -> bool:
    return all(a[c] is not None and b.get(c) is not None and a[c] == b[c] for c in a)


def addition_similarity(snapshot: list[dict], target: dict, measures: dict, reference: list[dict],
                        namespace: str = "", **_: Any) -> float:
    kinds = SCHEMAS[namespace]
    snapshot, reference = _zero_fill(snapshot, kinds), _zero_fill(reference, kinds)
    filled = dict(target, rows=_zero_fill(target["rows"], _target_kinds(target)))
    joined = sum(1 for s in snapshot for r in reference if _same(s, r))
    if joined != len(reference):
        return 0.0
    added = [s for s in snapshot if not any(_same(s, r) for r in reference)]
    return snapshot_similarity(added, filled, measures)


def removal_similarity(snapshot: list[dict], target: dict, measures: dict, reference: list[dict],
                       namespace: str = "", **_: Any) -> float:
    return addition_similarity(reference, target, measures, snapshot, namespace=namespace)


def update_similarity(snapshot: list[dict], target: dict, measures: dict, reference: list[dict],
                      namespace: str = "", **_: Any) -> float:
    kinds = SCHEMAS[namespace]
    snapshot, reference = _zero_fill(snapshot, kinds), _zero_fill(reference, kinds)
    filled = dict(target, rows=_zero_fill(target["rows"], _target_kinds(target)))
    if len(reference) != len(snapshot):
        return 0.0
    changed = [s for s in snapshot if not any(_same(s, r) for r in reference)]
    return snapshot_similarity(changed, filled, measures)


def guardrail_similarity(snapshot: list[dict], reference: list[dict], **_: Any) -> float:
    return float(snapshot == reference)


def tool_trace_dependant_similarity(snapshot: list[dict], target: dict, measures: dict, reference: list[dict],
                                    fill_to: str = "", extractor: str = "", namespace: str = "",
                                    **_: Any) -> float:
    from gym.episodes.toolsandbox.extractors import EXTRACTORS
    if namespace != SANDBOX or len(snapshot) != 1 or len(reference) != 1:
        raise ValueError("tool_trace_dependant_similarity can only be used with SANDBOX database with only 1 row")
    traces = reference[0]["tool_trace"]
    if traces is None:
        return 0.0
    extracted: list[dict] = []
    for raw in traces:
        try:
            extracted.extend(EXTRACTORS[extractor](json.loads(raw)))
        except (KeyError, IndexError, TypeError, ValueError):
            pass
    best = 0.0
    row = target["rows"][0]
    try:
        for values in extracted:
            if fill_to == "tool_trace":
                trace = json.loads(row["tool_trace"])
                filled = []
                for candidate in trace if isinstance(trace, list) else [trace]:
                    first = copy.deepcopy(candidate)
                    first["arguments"].update(values)
                    second = copy.deepcopy(candidate)
                    second["arguments"] = {**copy.deepcopy(values), **second["arguments"]}
                    filled += [first, second]
                new_row = dict(row, tool_trace=json.dumps(filled, ensure_ascii=False))
            else:
                new_row = dict(row, content=row["content"].format(**values))
            best = max(best, snapshot_similarity(snapshot, dict(target, rows=[new_row]), measures))
    except (IndexError, KeyError):
        return 0.0
    return best


SNAPSHOT_MEASURES: dict[str, Callable[..., float]] = {
    "snapshot_similarity": snapshot_similarity, "addition_similarity": addition_similarity,
    "removal_similarity": removal_similarity, "update_similarity": update_similarity,
    "guardrail_similarity": guardrail_similarity,
    "tool_trace_dependant_similarity": tool_trace_dependant_similarity}
