"""Your own data as a benchmark: `benchmark=local benchmark.dataset.path=train.jsonl benchmark.verifier.family=math`.

The file (JSONL, one object a line, or parquet) is read once and written as a checked copy in gym's
prepared-row shape (`question`, `expected_answer`, the other columns kept as they are) under
`benchmark.dataset.checked_dir`; collect, the reference server and aggregate read that copy like any
prepared file. The copy is named after the source's path, size, modification time and the column
mapping, so an edited file is checked again and an unchanged one is not.

Columns are found by their usual names unless `benchmark.dataset.columns.<role>` names them: the
question (question, problem, prompt, input, instruction), the gold answer (expected_answer, answer,
solution, target, label) or a chat conversation (messages). The gold answer is read out of a worked
solution as the benchmarks that ship such solutions read it (`benchmark.dataset.answer_format`, default
auto): GSM8K's final `#### N` (as benchmark=gsm8k: the number without thousands commas), else a MATH-style
solution's last \\boxed{}, else the text as it is; `bare` takes the column as the answer. The checked
copy's layout file counts the rows each rule gave. A row without one of them stops the run before the
first request, naming file:line and the column.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Iterator

from gym.core.answer_text import final_marker, last_boxed
from gym.core.errors import GymError
from gym.core.io import iter_jsonl
from gym.core.typed import is_local  # (defined where the door checks a local benchmark's file)

QUESTION_COLUMNS = ("question", "problem", "prompt", "input", "instruction")
ANSWER_COLUMNS = ("expected_answer", "answer", "solution", "target", "label")
MESSAGES_COLUMNS = ("messages",)
ROLES = ("question", "answer", "messages")
LAYOUT_SUFFIX = ".layout.json"  # beside the checked copy: which columns were used, rows, the layout
# benchmark.dataset.answer_format -> the rules it tries on each gold text, in order (the first that finds an
# answer wins; "bare" takes the text as it is)
ANSWER_FORMATS = {"auto": ("gsm8k", "boxed", "bare"), "gsm8k": ("gsm8k",), "boxed": ("boxed",), "bare": ("bare",)}
ANSWER_RULES = {"gsm8k": final_marker, "boxed": last_boxed, "bare": lambda text: text}
RULE_NAMES = {"gsm8k": "final '#### <answer>' (GSM8K)", "boxed": "last \\boxed{}", "bare": "text as it is"}


def user_prompt(bench: Any) -> str:
    """The user prompt template; a file of chat conversations is sent as it is unless given a template."""
    from gym.core.config import family_prompt

    user = str(bench.prompt.user)
    if is_local(bench) and check(bench)["layout"] == "messages" and user == family_prompt(bench.verifier.family):
        return "{messages}"
    return user


def task_file(bench: Any) -> Path:
    """The prepared-row file a run reads: dataset.path, or for local data its checked copy (made now
    when missing or out of date)."""
    if not is_local(bench):
        return Path(bench.dataset.path)
    return check(bench)["path"]


def check(bench: Any, force: bool = False) -> dict[str, Any]:
    """Check the user's file and write its prepared-row copy; returns the layout (path, rows, columns)."""
    source = Path(str(bench.dataset.path)).expanduser()
    if not source.is_file():
        raise GymError(f"benchmark.dataset.path={source} does not exist (give your JSONL or parquet file)")
    columns = {role: (None if getattr(bench.dataset.columns, role, None) is None
                      else str(getattr(bench.dataset.columns, role))) for role in ROLES}
    answer_format = str(getattr(bench.dataset, "answer_format", None) or "auto")
    if answer_format not in ANSWER_FORMATS:
        raise GymError(f"benchmark.dataset.answer_format={answer_format} must be one of {', '.join(ANSWER_FORMATS)}")
    stat = source.stat()
    identity = [str(source.resolve()), stat.st_size, stat.st_mtime_ns, columns]
    if answer_format != "auto":  # (auto: the names of copies made before the knob existed stay valid)
        identity.append(answer_format)
    digest = hashlib.blake2b(json.dumps(identity).encode(), digest_size=6).hexdigest()
    target = Path(str(bench.dataset.checked_dir)).expanduser() / f"{source.stem}-{digest}.jsonl"
    layout_path = target.with_name(target.name + LAYOUT_SUFFIX)
    if not force and target.is_file() and layout_path.is_file():
        return {**json.loads(layout_path.read_text()), "path": target}
    layout = _write_copy(source, target, columns, answer_format)
    tmp = layout_path.with_name(layout_path.name + ".tmp")
    tmp.write_text(json.dumps(layout, indent=1))
    os.replace(tmp, layout_path)
    return {**layout, "path": target}


def _write_copy(source: Path, target: Path, columns: dict[str, str | None], answer_format: str) -> dict[str, Any]:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    found: dict[str, str | None] | None = None
    rows = 0
    rules: dict[str, int] = {}
    try:
        with tmp.open("w", encoding="utf-8") as out:
            for line, item in _source_rows(source):
                if found is None:
                    found = _pick_columns(item, columns, f"{source}:{line}")
                row, rule = _task_row(item, found, f"{source}:{line}", answer_format)
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                rows += 1
                rules[rule] = rules.get(rule, 0) + 1
        if not rows:
            raise GymError(f"{source} has no rows")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    layout = "messages" if found and found["messages"] and not found["question"] else "question"
    return {"source": str(source), "rows": rows, "columns": found, "layout": layout,
            "answer_format": answer_format, "answer_rules": rules}


def rules_text(layout: dict[str, Any]) -> str:
    """"gold answers: 18 by the final '#### <answer>' (GSM8K), 2 by the text as it is" (for the log)."""
    counts = layout.get("answer_rules") or {}
    return "gold answers: " + ", ".join(f"{n} by the {RULE_NAMES.get(rule, rule)}" for rule, n in counts.items())


def _source_rows(source: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line or row number, row) of a JSONL or parquet file, streamed."""
    if source.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        number = 0
        try:
            for batch in pq.ParquetFile(source).iter_batches(batch_size=4096):
                for item in batch.to_pylist():
                    number += 1
                    yield number, item
        except (OSError, ValueError) as exc:
            raise GymError(f"{source}: not a readable parquet file ({exc})") from None
        return
    for line, item in iter_jsonl(source):
        if not isinstance(item, dict):
            raise GymError(f"{source}:{line}: a row must be a JSON object, not {type(item).__name__}")
        yield line, item


def _pick_columns(item: dict[str, Any], wanted: dict[str, str | None], where: str) -> dict[str, str | None]:
    """The column of each role: the configured one, else the first usual name the first row has."""
    found: dict[str, str | None] = {}
    for role, usual in (("question", QUESTION_COLUMNS), ("answer", ANSWER_COLUMNS), ("messages", MESSAGES_COLUMNS)):
        if wanted[role] is not None:
            if wanted[role] not in item:
                raise GymError(f"{where}: no column '{wanted[role]}' (benchmark.dataset.columns.{role}); "
                               f"the row has: {', '.join(sorted(item))}")
            found[role] = wanted[role]
        else:
            found[role] = next((name for name in usual if name in item), None)
    if found["question"] is None and found["messages"] is None:
        raise GymError(f"{where}: no question column (looked for {', '.join(QUESTION_COLUMNS + MESSAGES_COLUMNS)}); "
                       f"name it with benchmark.dataset.columns.question=<column>; the row has: {', '.join(sorted(item))}")
    if found["answer"] is None:
        raise GymError(f"{where}: no answer column (looked for {', '.join(ANSWER_COLUMNS)}); name it with "
                       f"benchmark.dataset.columns.answer=<column>; the row has: {', '.join(sorted(item))}")
    if found["question"] is not None and wanted["messages"] is None:
        found["messages"] = None  # a question column wins over a conversation found only by its name
    return found


def _gold(text: str, answer_format: str, where: str, column: str) -> tuple[str, str]:
    """(gold answer, the rule that read it) from a gold column's text."""
    for rule in ANSWER_FORMATS[answer_format]:
        gold = ANSWER_RULES[rule](text)
        if gold:
            return gold, rule
    raise GymError(f"{where}: column '{column}' has no {RULE_NAMES[answer_format]} "
                   f"(benchmark.dataset.answer_format={answer_format}; auto reads any of them, bare the text as it is)")


def _task_row(item: dict[str, Any], columns: dict[str, str | None], where: str,
              answer_format: str) -> tuple[dict[str, Any], str]:
    row = {k: v for k, v in item.items() if k not in ("question", "expected_answer")}
    answer = item.get(columns["answer"])
    if answer is None or isinstance(answer, (dict, list, bool)) or not str(answer).strip():
        raise GymError(f"{where}: missing or empty answer in column '{columns['answer']}'")
    row["expected_answer"], rule = _gold(str(answer).strip(), answer_format, where, str(columns["answer"]))
    if columns["question"] is not None:
        question = item.get(columns["question"])
        if not isinstance(question, str) or not question.strip():
            raise GymError(f"{where}: missing or empty question in column '{columns['question']}'")
        row["question"] = question
    else:
        messages = item.get(columns["messages"])
        users = [m.get("content") for m in messages or [] if isinstance(m, dict) and m.get("role") == "user"]
        if not users or not isinstance(users[-1], str):
            raise GymError(f"{where}: column '{columns['messages']}' needs a list of {{role, content}} messages "
                           "with a user turn")
        row["messages"], row["question"] = messages, users[-1]
    return row, rule
