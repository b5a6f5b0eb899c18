"""IOI'24 (open-r1/ioi test split + open-r1/ioi-test-cases, config 2024): one row per (problem, subtask).

Upstream problem rows (parquet, one per subtask): id (the graders' file name, e.g. "nile"), name, year, day,
subtask ("00-samples", "01-..."), score (points), score_precision, time_limit, memory_limit, test_names,
grader_files ([path, content] pairs with graders/grader_config.json), problem (the prompt). Test rows: problem_id
(or problem_name), test_name, test_input, test_output. As the reference, subtasks worth 0 points (the samples)
are left out: 35 rows, 600 points in all. The tests go to `tests/<problem_id>.json` beside the prepared rows
(one copy per problem, not one per subtask); prepared rows:

    {"question": <prompt>, "expected_answer": "", "problem_id", "name", "subtask", "subtask_score",
     "score_precision", "test_names", "grader_files", "metadata": {"year", "day", "source_index"}}
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError, write_text_atomic

if TYPE_CHECKING:
    from gym.data import PrepareContext

PROBLEMS_URL = "https://huggingface.co/datasets/open-r1/ioi/resolve/main/data/test-00000-of-00001.parquet"
TESTS_URLS = tuple(f"https://huggingface.co/datasets/open-r1/ioi-test-cases/resolve/main/2024/train-0000{i}-of-00002.parquet"
                   for i in range(2))
PROBLEM_COLUMNS = ("id", "name", "year", "day", "subtask", "score", "score_precision", "test_names", "grader_files",
                   "problem")


def read_tests(ctx: PrepareContext, names: dict[str, str]) -> dict[str, dict[str, list[str]]]:
    """{problem_id: {test_name: [input, output]}} from the test-case files (problem_id, else problem_name)."""
    tests: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for url in TESTS_URLS:
        raw = ctx.fetch(url)
        for row in ctx.read_parquet(raw, columns=("problem_id", "problem_name", "test_name", "test_input",
                                                  "test_output"), required=("test_name", "test_input", "test_output"),
                                    layout="open-r1/ioi-test-cases"):
            problem = row.get("problem_id") or names.get(str(row.get("problem_name")))
            if problem is None:
                raise GymError(f"{raw}: test {row['test_name']!r} names no problem of open-r1/ioi")
            tests[str(problem).lower()][str(row["test_name"])] = [row["test_input"], row["test_output"]]
    return tests


def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
    files = item.get("grader_files") or []
    if not isinstance(item.get("problem"), str) or not item["problem"].strip() or not item.get("id"):
        return None, "needs 'id' and a non-empty 'problem'"
    if not any(isinstance(f, (list, tuple)) and f and f[0] == "graders/grader_config.json" for f in files):
        return None, "no graders/grader_config.json among grader_files"
    return {
        "question": item["problem"], "expected_answer": "", "problem_id": str(item["id"]).lower(),
        "name": item.get("name"), "subtask": item["subtask"], "subtask_score": float(item["score"]),
        "score_precision": int(item.get("score_precision") or 0), "test_names": list(item["test_names"]),
        "grader_files": [[str(path), content] for path, content in files],
        "metadata": {"year": item.get("year"), "day": item.get("day"), "source_index": index,
                     "problem": str(item["id"]).lower(), "subset": str(item["id"]).lower()},
    }, None


def prepare(ctx: PrepareContext) -> Path:
    raw = ctx.fetch(PROBLEMS_URL)
    items = ctx.read_parquet(raw, columns=PROBLEM_COLUMNS, required=("id", "subtask", "score", "test_names",
                                                                       "grader_files", "problem"), layout="open-r1/ioi")
    names = {str(item.get("name")): str(item["id"]).lower() for item in items}
    tests = read_tests(ctx, names)
    rows: list[dict] = []
    for index, item in enumerate(items):
        if not item.get("score"):
            ctx.leave_out_row("a subtask worth 0 points (the samples), as the reference")
            continue
        row, problem = convert(item, index)
        if row is not None:
            absent = [name for name in row["test_names"] if name not in tests.get(row["problem_id"], {})]
            if absent:
                row, problem = None, f"tests {absent[:3]} are not in open-r1/ioi-test-cases"
        ctx.keep(rows, (row, problem), f"{raw}:{index} ({item.get('id')} {item.get('subtask')})")
    if not rows:
        raise GymError(f"{raw}: no IOI subtask worth points")
    folder = Path(ctx.output_path).parent / "tests"
    folder.mkdir(parents=True, exist_ok=True)
    for problem in sorted({row["problem_id"] for row in rows}):
        write_text_atomic(folder / f"{problem}.json", json.dumps({"problem_id": problem, "tests": tests[problem]}))
    return ctx.write_rows(rows)
