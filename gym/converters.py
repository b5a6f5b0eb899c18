"""Row converters shared by several prepare scripts (one upstream format, many benchmarks)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from gym.prepare_context import PrepareContext


def math_row(problem: Any, answer: Any, solution: Any = None) -> tuple[dict[str, Any] | None, str | None]:
    """(row, None) with question, string gold and reference_solution; or (None, what is missing)."""
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    if isinstance(answer, float) and answer.is_integer():
        answer = int(answer)  # a float column would otherwise give "70.0"
    gold = "" if answer is None or isinstance(answer, (bool, dict, list)) else str(answer).strip()
    if not gold:
        return None, "missing 'answer'"
    row: dict[str, Any] = {"question": problem, "expected_answer": gold}
    if isinstance(solution, str):
        row["reference_solution"] = solution
    return row, None


def matharena_row(item: dict[str, Any], index: int, extra_fields: Iterable[str] = ("problem_type",)
                  ) -> tuple[dict[str, Any] | None, str | None]:
    """One row of a MathArena parquet (problem_idx, problem, answer, optional extras) -> (row, problem)."""
    row, problem = math_row(item.get("problem"), item.get("answer"))
    if row is None:
        return None, problem
    metadata: dict[str, Any] = {"problem_idx": item.get("problem_idx")}
    for name in extra_fields:
        if item.get(name) is not None:
            value = item[name]
            metadata[name] = list(value) if isinstance(value, (list, tuple)) else value
    metadata["source_index"] = index
    return {**row, "metadata": metadata}, None


def instruction_row(item: dict[str, Any], index: int, null_kwargs: bool = False
                    ) -> tuple[dict[str, Any] | None, str | None]:
    """An instruction-following row (IFEval/IFBench layout: key, prompt, instruction_id_list, kwargs with
    one dict per id; `null_kwargs` also accepts null entries) -> (row, problem)."""
    prompt, ids, kwargs = item.get("prompt"), item.get("instruction_id_list"), item.get("kwargs")
    if not isinstance(prompt, str) or not prompt.strip():
        return None, "missing 'prompt'"
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        return None, "'instruction_id_list' must be a non-empty list of strings"
    if kwargs is None:
        kwargs = [{} for _ in ids]
    if not isinstance(kwargs, list) or not all(isinstance(k, dict) or (null_kwargs and k is None) for k in kwargs):
        return None, "'kwargs' must be a list of objects"
    if len(kwargs) != len(ids):
        return None, f"{len(ids)} instruction ids but {len(kwargs)} kwargs entries"
    return {
        "question": prompt,
        "expected_answer": "",
        "instruction_id_list": ids,
        "kwargs": kwargs,
        "metadata": {"key": item.get("key"), "source_index": index},
    }, None


def prepare_matharena(ctx: PrepareContext, url: str, extra_fields: Iterable[str] = ("problem_type",)) -> Path:
    """Fetch a MathArena competition parquet and write gym's rows (bad rows reported with their index)."""
    raw = ctx.fetch(url)
    rows = ctx.convert_rows(raw, ctx.read_parquet(raw), lambda item, index: matharena_row(item, index, extra_fields),
                            id_field="problem_idx")
    return ctx.write_rows(rows)
