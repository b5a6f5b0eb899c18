"""The tasks table of one run: its rollouts filtered, searched, sorted and cut into pages, on the index's
columns (numpy), reading from the file only the rows of the page shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gym.rollouts.row import STATUSES
from gym.view.episode import shown_answer
from gym.view.runs import Run

FACETS = ("status", "reward_band", "benchmark", "subset", "bucket", "termination", "error_type")
REWARD_BANDS = ["", "0", "between 0 and 1", "1", "unscored"]
SORTS = ("task", "reward", "status", "subset", "bucket", "termination", "error_type")
PAGE = 50
MAX_PAGE = 1000


@dataclass
class Query:
    filters: dict[str, str]  # facet -> the one value kept
    search: str = ""
    sort: str = "task"
    descending: bool = False
    offset: int = 0
    limit: int = PAGE

    @classmethod
    def from_params(cls, params: dict[str, str]) -> "Query":
        def integer(name: str, default: int) -> int:
            try:
                return max(0, int(params.get(name, default)))
            except (TypeError, ValueError):
                return default
        sort = params.get("sort", "task")
        return cls(filters={f: params[f] for f in FACETS if params.get(f) not in (None, "")},
                   search=(params.get("q") or "").strip(), sort=sort if sort in SORTS else "task",
                   descending=params.get("desc") in ("1", "true"), offset=integer("offset", 0),
                   limit=min(MAX_PAGE, integer("limit", PAGE)) or PAGE)


def codes_of(run: Run, facet: str) -> tuple[np.ndarray, list[str]]:
    """Each live row's code for a facet, and the labels the codes stand for."""
    if facet == "status":
        return run.index.column("status"), list(STATUSES)
    if facet == "bucket":
        return run.bucket_codes()
    if facet == "reward_band":
        reward = run.index.column("reward")
        codes = np.select([np.isnan(reward), reward <= 0.0, reward >= 1.0], [4, 1, 3], default=2)
        return codes.astype(np.int64), REWARD_BANDS
    return run.index.column(facet), run.index.labels(facet)


def facet_counts(run: Run) -> dict[str, dict[str, int]]:
    out = {}
    for facet in FACETS:
        codes, labels = codes_of(run, facet)
        counts = np.bincount(codes, minlength=len(labels)) if len(codes) else np.zeros(len(labels), np.int64)
        out[facet] = {labels[code]: int(count) for code, count in enumerate(counts) if count and labels[code]}
    return out


def select(run: Run, query: Query) -> np.ndarray:
    """Live row numbers kept by the query's filters and search, in its order."""
    keep = np.ones(len(run.index), bool)
    for facet, value in query.filters.items():
        codes, labels = codes_of(run, facet)
        keep &= codes == (labels.index(value) if value in labels else -1)
    numbers = np.flatnonzero(keep)
    if query.search:
        numbers = np.intersect1d(numbers, run.index.matching(query.search))
    order = _order(run, numbers, query.sort)
    if query.descending:
        order = order[::-1]
    return numbers[order]


def _order(run: Run, numbers: np.ndarray, sort: str) -> np.ndarray:
    task = run.index.column("task_index")[numbers]
    rollout = run.index.column("rollout_index")[numbers]
    if sort == "task":
        return np.lexsort((rollout, task))
    if sort == "reward":
        reward = run.index.column("reward")[numbers]
        return np.lexsort((rollout, task, np.nan_to_num(reward, nan=-1.0)))
    codes, labels = codes_of(run, sort)
    rank = np.argsort(np.argsort(np.asarray(labels, dtype=object)))  # code -> its label's place in sorted order
    return np.lexsort((rollout, task, rank[codes[numbers]]))


def rollout_path(benchmark: str, task: int, rollout: int) -> str:
    """A rollout page's path inside its run's folder."""
    return f"rollout/{benchmark}/{task}_{rollout}.html"


LABELLED = ("reward_band", "subset", "bucket", "termination", "error_type")


def summary_row(run: Run, number: int, labels: dict[str, tuple[np.ndarray, list[str]]],
                with_text: bool = False) -> dict[str, Any]:
    row = run.index.row(number)
    reward = row.get("reward")
    out = {"task": row["task_index"], "rollout": row["rollout_index"], "benchmark": row["benchmark"],
           "status": row["status"], "reward": reward,
           **{facet: labels[facet][1][labels[facet][0][number]] for facet in LABELLED},
           "extracted": _short(shown_answer(row)), "expected": _short(row.get("expected_answer")),
           "href": rollout_path(str(row["benchmark"]), int(row["task_index"]), int(row["rollout_index"]))}
    if with_text:  # the static export filters in the page: it needs the text searched
        out["text"] = search_text(row).lower()
    return out


def search_text(row: dict) -> str:
    parts = [str(m.get("content") or "") for m in (row.get("trajectory") or row.get("prompt") or [])
             if isinstance(m, dict)]
    parts += [str(row.get(name) or "") for name in ("response", "reasoning", "extracted_answer", "expected_answer")]
    return "\n".join(parts)[:20000]


def _short(value: Any, limit: int = 80) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def page(run: Run, query: Query) -> dict[str, Any]:
    """The JSON the tasks page shows: {total, offset, rows, facets, status}."""
    run.index.refresh()
    numbers = select(run, query)
    shown = numbers[query.offset:query.offset + query.limit]
    labels = {facet: codes_of(run, facet) for facet in LABELLED}
    return {"total": int(len(numbers)), "rows_in_run": len(run.index), "offset": query.offset,
            "limit": query.limit, "rows": [summary_row(run, int(n), labels) for n in shown],
            "facets": facet_counts(run), "status": run.status()}


def all_rows(run: Run) -> tuple[list[int], list[dict[str, Any]]]:
    """(live row numbers, their rows) of the whole run for a static page (which filters and searches in
    the browser), in task order."""
    labels = {facet: codes_of(run, facet) for facet in LABELLED}
    numbers = [int(n) for n in select(run, Query(filters={}))]
    return numbers, [summary_row(run, n, labels, with_text=True) for n in numbers]


