"""A task's subsets, as collect stamps them on its rollouts: the values of the benchmark's grouping columns
(`subsets:`, default `[subset]`) found in the prepared row's `metadata` or at its top level, and its
`cluster_by` column's value as the reserved column `cluster`. gym.metrics.subsets reads them back."""

from __future__ import annotations

from typing import Iterable, Sequence

DEFAULT_COLUMNS = ("subset",)
CLUSTER = "cluster"  # reserved column: the value of the benchmark's `cluster_by` column (clustered standard errors)


def _value(row: dict, column: str) -> str | None:
    metadata = row.get("metadata")
    value = metadata.get(column) if isinstance(metadata, dict) else None
    if value is None:
        value = row.get(column)
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value)


def row_subsets(row: dict, columns: Iterable[str] | None) -> dict[str, str] | None:
    """{column: value} for the grouping columns the row has, or None."""
    found = {}
    for column in DEFAULT_COLUMNS if columns is None else columns:
        value = _value(row, str(column))
        if value is not None:
            found[str(column)] = value
    return found or None


def task_subsets(rows: Sequence[dict], columns: Iterable[str] | None,
                 cluster_by: str | None = None) -> list[dict[str, str] | None]:
    """row_subsets for every prepared row (computed once per task, not per rollout); with `cluster_by` (the
    benchmark's cluster column) its value goes in as the reserved column `cluster`."""
    columns = list(DEFAULT_COLUMNS if columns is None else columns)
    out = [row_subsets(row, columns) for row in rows] if columns else [None] * len(rows)
    if cluster_by:
        for i, row in enumerate(rows):
            value = _value(row, cluster_by)
            if value is not None:
                out[i] = {**(out[i] or {}), CLUSTER: value}
    return out
