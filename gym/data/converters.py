"""Row converters shared by several prepare scripts (one upstream format, many benchmarks), and the
loader through which one script reuses another's reader."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Iterable

from gym.core.answer_text import closing_brace, last_boxed
from gym.core.errors import GymError

if TYPE_CHECKING:
    from gym.data.prepare_context import PrepareContext


def missing_text(item: dict[str, Any], *columns: str) -> str | None:
    """"missing '<column>'" for the first of `columns` that holds no non-blank string; None when all do."""
    for column in columns:
        value = item.get(column)
        if not isinstance(value, str) or not value.strip():
            return f"missing '{column}'"
    return None


def stripped_text(item: dict[str, Any], column: str) -> str:
    """The column's text without surrounding white space; "" when it holds no string."""
    value = item.get(column)
    return value.strip() if isinstance(value, str) else ""


def text_row(item: dict[str, Any], index: int, columns: tuple[str, str] = ("question", "answer"), *,
             strip: bool = True, metadata: dict[str, Any] | None = None, **fields: Any
             ) -> tuple[dict[str, Any] | None, str | None]:
    """(row, None): {question, expected_answer, **fields, metadata: {**metadata, source_index}} from the
    item's question and answer text `columns`; (None, "missing '<question>'") without a question; a blank
    answer gives the row with an empty gold and "missing '<answer>'" (kept, reported as unscorable)."""
    problem = missing_text(item, columns[0])
    if problem:
        return None, problem
    question, answer = (item[column] if isinstance(item.get(column), str) else "" for column in columns)
    row = {"question": question.strip() if strip else question, "expected_answer": answer.strip() if strip else answer,
           **fields, "metadata": {**(metadata or {}), "source_index": index}}
    return row, missing_text(item, columns[1])


_BOX = re.compile(r"\\boxed\s*\{")
_BETWEEN_BOXES = re.compile(r"(?:\s|[,;$]|\band\b)*")


def boxed_parts(text: str) -> list[str] | None:
    """The contents of a string made only of \\boxed{...} groups (commas, 'and', $ or spaces between them);
    None for any other string."""
    parts, pos = [], 0
    while True:
        pos = _BETWEEN_BOXES.match(text, pos).end()
        if pos == len(text):
            return parts or None
        box = _BOX.match(text, pos)
        end = closing_brace(text, box.end()) if box else None
        if end is None:
            return None
        parts.append(text[box.end():end].strip())
        pos = end + 1


def unboxed(text: str) -> str:
    """An answer form without its \\boxed{} wrappers and $ signs: several boxes in a row ("\\boxed{3},
    \\boxed{4}") give all their contents joined with ", ", never the last alone."""
    text = text.strip().strip("$").strip()
    parts = boxed_parts(text) if text.startswith("\\boxed") else None
    if parts is not None:
        return ", ".join(part for part in parts if part)
    inner = last_boxed(text) if text.startswith("\\boxed") else None
    return (inner if inner is not None else text).strip().strip("$").strip()


def joined_answers(forms: Iterable[Any]) -> str:
    """Answer forms unboxed, the blank ones dropped, joined with ", " (a multi-part gold)."""
    return ", ".join(part for part in (unboxed(str(form)) for form in forms if form is not None) if part)


def math_row(problem: Any, answer: Any, solution: Any = None, *, index: int | None = None,
             metadata: dict[str, Any] | None = None, **fields: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(row, None) with question, string gold, reference_solution and `fields`, and with an `index`
    {**metadata, source_index}; (None, "missing 'problem'") without a problem; a blank gold gives the row
    and "missing 'answer'" (kept, reported as unscorable)."""
    if not isinstance(problem, str) or not problem.strip():
        return None, "missing 'problem'"
    if isinstance(answer, float) and answer.is_integer():
        answer = int(answer)  # a float column would otherwise give "70.0"
    gold = "" if answer is None or isinstance(answer, (bool, dict, list)) else str(answer).strip()
    row: dict[str, Any] = {"question": problem, "expected_answer": gold}
    if isinstance(solution, str):
        row["reference_solution"] = solution
    row.update(fields)
    if index is not None:
        row["metadata"] = {**(metadata or {}), "source_index": index}
    return row, None if gold else "missing 'answer'"  # a blank gold: kept (as the reference), reported


def prepare_math(ctx: PrepareContext, url: str, metadata_keys: Iterable[str], **where: Any) -> Path:
    """Fetch a table of {problem, answer, solution?} items and write gym's math rows, keeping
    `metadata_keys`; `where` (label, first, id_field) names bad rows as convert_rows does."""
    raw = ctx.fetch(url)
    keys = tuple(metadata_keys)

    def convert(item: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, str | None]:
        return math_row(item.get("problem"), item.get("answer"), item.get("solution"), index=index,
                        metadata={key: item.get(key) for key in keys})

    return ctx.write_rows(ctx.convert_rows(raw, ctx.read_table(raw), convert, **where))


def prepare_parquet_files(ctx: PrepareContext, base: str, files: Iterable[str], convert: Callable[..., tuple],
                          example: str, keep: Callable[[dict], bool] | None = None, **read: Any) -> Path:
    """Rows of several upstream parquet files `<base>/<file>`: convert(item, index, file) -> (row, problem);
    `read` (columns, required, layout) goes to read_parquet; `example` is a file name for the error; `keep`
    (row -> bool) drops converted rows (it counts them as left out, see gym.data.tokens.cap_filter)."""
    if isinstance(files, str) or not files:
        raise GymError(f"files must be a non-empty list of parquet file names such as [{example}], got {files!r}")
    rows = []
    for file in files:
        raw = ctx.fetch(f"{base}/{file}")
        items = ctx.read_parquet(raw, **read)
        rows.extend(ctx.convert_rows(raw, items, lambda item, index, f=file: convert(item, index, f)))
    return ctx.write_rows(rows if keep is None else [row for row in rows if keep(row)])


def matharena_row(item: dict[str, Any], index: int, extra_fields: Iterable[str] = ("problem_type",)
                  ) -> tuple[dict[str, Any] | None, str | None]:
    """One row of a MathArena parquet (problem_idx, problem, answer, optional extras) -> (row, problem)."""
    metadata: dict[str, Any] = {"problem_idx": item.get("problem_idx")}
    for name in extra_fields:
        if item.get(name) is not None:
            value = item[name]
            metadata[name] = list(value) if isinstance(value, (list, tuple)) else value
    return math_row(item.get("problem"), item.get("answer"), index=index, metadata=metadata)


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


EVALPLUS_REQUIRED = ("task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input")


def evalplus_fields(item: dict[str, Any], text_fields: tuple[str, ...]) -> tuple[dict[str, Any] | None, str | None]:
    """The fields of an EvalPlus record (HumanEval+, MBPP+) the code verifier needs, in gym's row order
    -> (fields, None), or (None, what is wrong); `text_fields` must hold strings."""
    missing = [key for key in EVALPLUS_REQUIRED if item.get(key) is None]
    if missing:
        return None, f"missing {', '.join(missing)}"
    if not all(isinstance(item[key], str) for key in text_fields):
        names = [f"'{key}'" for key in text_fields]
        return None, f"{', '.join(names[:-1])} and {names[-1]} must be strings"
    plus_input = [] if item["plus_input"] == {} else item["plus_input"]  # MBPP+ v0.2.0 Mbpp/793: {} = no extra inputs
    if not isinstance(item["base_input"], list) or not isinstance(plus_input, list):
        return None, "'base_input' and 'plus_input' must be lists"
    return {
        "entry_point": item["entry_point"],
        "prompt": item["prompt"],
        "canonical_solution": item["canonical_solution"],
        "base_input": item["base_input"],
        "plus_input": plus_input,
        "atol": item.get("atol") or 0,
        "contract": item.get("contract") or "",
    }, None


def evalplus_shown_prompt(prompt: str, indent_with_tabs: bool) -> str:
    """The prompt as the question shows it: the reference turns 4-space indents into tabs (the verifier
    still runs the verbatim prompt); indent_with_tabs=false shows it as upstream has it."""
    return (prompt.replace("    ", "\t") if indent_with_tabs else prompt).strip("\n")


def prepare_evalplus(ctx: PrepareContext, url: str, convert: Callable[[dict[str, Any], int, bool], tuple],
                     indent_with_tabs: bool) -> Path:
    """Fetch an EvalPlus release (.jsonl.gz) and write gym's rows (bad records reported by task_id)."""
    raw = ctx.fetch(url)
    rows = ctx.convert_rows(raw, ctx.read_jsonl_gz(raw), lambda item, index: convert(item, index, indent_with_tabs),
                            label="record", first=1, id_field="task_id")
    return ctx.write_rows(rows)


def prepare_matharena(ctx: PrepareContext, url: str, extra_fields: Iterable[str] = ("problem_type",)) -> Path:
    """Fetch a MathArena competition parquet and write gym's rows (bad rows reported with their index)."""
    raw = ctx.fetch(url)
    rows = ctx.convert_rows(raw, ctx.read_parquet(raw), lambda item, index: matharena_row(item, index, extra_fields),
                            id_field="problem_idx")
    return ctx.write_rows(rows)


def sibling_script(script_file: str, name: str, what: str) -> ModuleType:
    """The prepare script of benchmark `name` (next to the one at `script_file`) loaded as a module, for a
    script that reuses its `what`; benchmark names like mmlu-redux are not module names, hence by path."""
    here = Path(script_file).resolve().parent
    path = here.parent / name / "prepare.py"
    if not path.is_file():
        raise GymError(f"{here.name} needs the {what} in {path}")
    spec = importlib.util.spec_from_file_location(f"gym_prepare_{name.replace('-', '_')}_reused", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
