"""Per-subset breakdown: every headline metric per language, subject, difficulty, ... with its CI.

Where the groups come from
--------------------------
A benchmark names its grouping columns in `subsets:` (default `[subset]`). For each task, collect looks a
column up in the prepared row's `metadata` first, then at the row's top level, and copies the values it
finds (as strings) into every rollout of the task as `"subsets": {"language": "de", ...}`. A row with
none of the columns gets no `subsets` field, so benchmarks without groups cost nothing.

What aggregate reports
----------------------
For each (benchmark, model) entry and each grouping column, the rollouts of each value are run through
the same `gym.metrics.compute.group_metrics` as the whole benchmark: pass@1, pass@k, majority@k,
pass@1[avg-of-k], no_answer and the secondary scores, each with its t-interval over the subset's
tasks. They go to the entry's `subsets` in metrics.json, to metrics.csv as `subset/<column>=<value>/<metric>`
rows, below the aggregate table, and to the profile's HTML report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from gym.rollouts.subsets import CLUSTER  # the reserved column collect stamps (gym.rollouts.subsets)

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pyarrow as pa

    from gym.rollouts.load import RolloutSet

FIELD = "subsets"  # rollout field
_KEPT = ("tasks", "rollouts", "scored_rollouts", "counts", "k_values", "pass@1", "pass@k", "majority@k",
         "pass@1[avg-of-k]", "no_answer", "scores")
_FIRST_ROWS = 1000


# -- reading rollouts ------------------------------------------------------------------------------
def _names_in_first_rows(path: Path) -> list[str]:
    names: dict[str, None] = {}
    with path.open("rb") as handle:
        for number, raw in enumerate(handle):
            if number >= _FIRST_ROWS:
                break
            if b'"subsets"' not in raw:
                continue
            try:
                row = json.loads(raw)
            except ValueError:
                continue
            value = row.get(FIELD) if isinstance(row, dict) else None
            if isinstance(value, dict):
                names.update((str(k), None) for k in value)
    return list(names)


def _read_fast(path: Path, names: list[str]) -> "pa.Table | None":
    import pyarrow as pa
    import pyarrow.json as pj

    from gym.core.io import complete_end, count_lines

    end, torn = complete_end(path)
    if torn or not end:
        return None
    schema = pa.schema([(FIELD, pa.struct([(name, pa.string()) for name in names]))])
    try:
        with pa.OSFile(str(path)) as source:
            table = pj.read_json(source, read_options=pj.ReadOptions(block_size=16 << 20, use_threads=True),
                                 parse_options=pj.ParseOptions(explicit_schema=schema,
                                                               unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    return table if table.num_rows == count_lines(path, end) else None


def _read_slow(path: Path, names: list[str]) -> dict[str, list[str | None]]:
    """Line by line, with the loader's numbering: blank lines skipped, a torn last line ignored."""
    from gym.rollouts.files import rows_as_loaded

    columns: dict[str, list[str | None]] = {name: [] for name in names}
    for row in rows_as_loaded(path):  # only a torn last line fails to parse: the loader failed on any other
        value = row.get(FIELD)
        value = value if isinstance(value, dict) else {}
        for name in names:
            item = value.get(name)
            columns[name].append(None if item is None else str(item))
    return columns


def _file_columns(path: Path) -> dict[str, list[str | None]]:
    names = _names_in_first_rows(path)
    if not names:
        return {}
    table = _read_fast(path, names)
    if table is None:
        return _read_slow(path, names)
    import pyarrow.compute as pc

    column = table.column(FIELD)
    return {name: pc.struct_field(column, [i]).to_pylist() for i, name in enumerate(names)}


def frame_subsets(rollouts: "RolloutSet") -> dict[str, "np.ndarray"]:
    """{column: object array aligned with rollouts.frame} (None where a row has no value)."""
    import numpy as np

    frame = rollouts.frame
    out: dict[str, np.ndarray] = {}
    sources = frame["source"].to_numpy()
    ordinals = frame["ordinal"].to_numpy()
    for source, path in enumerate(rollouts.files):
        columns = _file_columns(Path(path))
        if not columns:
            continue
        mask = sources == source
        for name, values in columns.items():
            target = out.setdefault(name, np.full(len(frame), None, dtype=object))
            array = np.asarray(values + [None], dtype=object)  # pad: an ordinal past the end reads None
            target[mask] = array[np.minimum(ordinals[mask], len(values))]
    return out


# -- metrics ---------------------------------------------------------------------------------------
def _trim(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: entry[key] for key in _KEPT if key in entry}


def subset_metrics(rollouts: "RolloutSet", k: int | Sequence[int] | None = None) -> dict[str, dict]:
    """{entry label: {column: {value: metrics}}}, labels as in gym.metrics.compute.compute_metrics."""
    from gym.metrics.compute import group_metrics

    columns = frame_subsets(rollouts)
    if not columns:
        return {}
    frame = rollouts.frame
    models = frame.groupby("benchmark", observed=True)["model"].nunique()
    result: dict[str, dict] = {}
    for (bench, model), group in frame.groupby(["benchmark", "model"], observed=True, sort=True):
        label = str(bench) if models[bench] <= 1 else f"{bench}@{model}"
        positions = frame.index.get_indexer(group.index)
        per_column: dict[str, dict] = {}
        for name, values in columns.items():
            if name == CLUSTER:
                continue  # one group per passage or repository: the clustered interval, not a table
            keys = values[positions]
            present = sorted({v for v in keys if v is not None})
            if not present:
                continue
            per_column[name] = {value: _trim(group_metrics(group[keys == value], k)) for value in present}
        if per_column:
            result[label] = per_column
    return result


def add_subsets(metrics: dict[str, Any], rollouts: "RolloutSet", k: int | Sequence[int] | None = None) -> None:
    """Put each benchmark's per-subset metrics into its metrics.json entry (as `subsets`)."""
    for label, per_column in subset_metrics(rollouts, k).items():
        if label in metrics["benchmarks"]:
            metrics["benchmarks"][label]["subsets"] = per_column


# -- output ----------------------------------------------------------------------------------------
def _top(entry: dict[str, Any], family: str) -> tuple[str, dict | None]:
    from gym.metrics.estimators import metric_name

    ks = entry.get("k_values") or []
    return (metric_name(family, ks[-1]), entry[family][str(ks[-1])]) if ks else (family, None)


def table_rows(per_value: dict[str, dict], fmt) -> list[list[Any]]:
    rows = []
    for value, entry in per_value.items():
        pass_name, pass_top = _top(entry, "pass@k")
        maj_name, maj_top = _top(entry, "majority@k")
        no_answer = entry["no_answer"]["value"]
        scores = ", ".join(f"{name} {fmt(m)}" for name, m in (entry.get("scores") or {}).items())
        rows.append([value, entry["tasks"], entry["rollouts"], fmt(entry["pass@1"]), f"{pass_name} {fmt(pass_top)}",
                     f"{maj_name} {fmt(maj_top)}", "-" if no_answer is None else f"{no_answer:.2f}", scores or "-"])
    return rows


HEADERS = ["tasks", "rollouts", "pass@1 [95% CI]", "pass@k max", "majority@k max", "no-answer %", "scores"]


def subsets_text(metrics: dict[str, Any]) -> str:
    """One table per benchmark and grouping column (empty when no entry has subsets)."""
    from gym.metrics.table import format_table
    from gym.metrics.table import fmt_ci

    parts = []
    for label, entry in metrics["benchmarks"].items():
        for column, per_value in (entry.get("subsets") or {}).items():
            parts.append(f"{label} by {column}:\n" + format_table([column, *HEADERS], table_rows(per_value, fmt_ci)))
    return "".join(part + "\n" for part in parts)


def csv_rows(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    """metrics.csv rows `subset/<column>=<value>/<metric>` (same columns as the main rows)."""
    from gym.metrics.estimators import metric_name

    rows = []
    for entry in metrics["benchmarks"].values():
        for column, per_value in (entry.get("subsets") or {}).items():
            for value, sub in per_value.items():
                prefix = f"subset/{column}={value}/"
                base = {"benchmark": entry["benchmark"], "model": entry["model"]}
                for name in ("tasks", "rollouts"):
                    rows.append({**base, "metric": prefix + name, "value": sub[name], "ci_low": None, "ci_high": None,
                                 "unit": "count"})
                with_ci = [("pass@1", sub["pass@1"]), ("no_answer", sub["no_answer"])]
                for family in ("pass@k", "majority@k", "pass@1[avg-of-k]"):
                    with_ci.extend((metric_name(family, int(kv)), m) for kv, m in sub[family].items())
                with_ci.extend((f"scores/{name}", m) for name, m in (sub.get("scores") or {}).items())
                rows.extend({**base, "metric": prefix + name, "value": m["value"], "ci_low": m["ci_low"],
                             "ci_high": m["ci_high"], "unit": "percent"} for name, m in with_ci)
    return rows


def html_section(per_label: dict[str, dict], table, escape, fmt) -> str:
    """The report's "Per subset" section from subset_metrics() output ("" when there is none)."""
    if not per_label:
        return ""
    out = ["<h2>Per subset</h2>"]
    for label, per_column in per_label.items():
        for column, per_value in per_column.items():
            out.append(f"<h3>{escape(label)} by {escape(column)}</h3>")
            rows = [[escape(cell) for cell in row] for row in table_rows(per_value, fmt)]
            out.append(table([escape(column), *HEADERS], rows, 1))
    return "\n".join(out)
