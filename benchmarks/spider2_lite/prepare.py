"""Spider 2.0-Lite, SQLite part (xlang-ai/Spider2): the 135 `local*` text-to-SQL tasks over real SQLite
databases, graded by comparing result columns with the gold result sets.

Upstream: `spider2-lite/spider2-lite.jsonl` (instance_id, db, question, external_knowledge) and
`evaluation_suite/gold/spider2lite_eval.jsonl` (instance_id, condition_cols, ignore_order) from the
GitHub repository; the gold results are CSV files `evaluation_suite/gold/exec_result/<id>.csv`, or
`<id>_a.csv`, `<id>_b.csv`, ... when several answers are accepted; the gold query
`evaluation_suite/gold/sql/<id>.sql` is kept when the repository has one. The databases are the
`local_sqlite.zip` bundle (flat `<db>.sqlite` files) on Google Drive; Drive may refuse scripted
downloads of large files, in which case download it in a browser and pass
`+prepare_args.sqlite_zip=/path/to/local_sqlite.zip`. They are unpacked beside the prepared file under
`databases/<db>/<db>.sqlite`. Prepared rows:

    {"question", "sql_context", "db_id", "gold_result": [[[...row...], ...], ...], "condition_cols",
     "ignore_order", "gold_sql", "expected_answer": <gold SQL or "">, "id": <instance_id>,
     "metadata": {"external_knowledge", "source_index"}}
"""

from __future__ import annotations

import csv
import shutil
import zipfile
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from gym.data import GymError, replace_dir, schema_text

if TYPE_CHECKING:
    from gym.data import PrepareContext

REPO = "https://raw.githubusercontent.com/xlang-ai/Spider2/main/spider2-lite"
TASKS = f"{REPO}/spider2-lite.jsonl"
EVAL = f"{REPO}/evaluation_suite/gold/spider2lite_eval.jsonl"
RESULT = REPO + "/evaluation_suite/gold/exec_result/{name}.csv"
GOLD_SQL = REPO + "/evaluation_suite/gold/sql/{id}.sql"
DATABASES = "https://drive.usercontent.google.com/download?id=1coEVsCZq-Xvj9p2TnhBFoFTsY-UoYGmG&export=download&confirm=t"
MAX_ANSWERS = 8  # <id>_a.csv ... <id>_h.csv


def normal(name: str) -> str:
    return name.lower().replace("-", "_")


def unpack(archive_path: Path, target: Path) -> dict[str, str]:
    """Unpack every <db>.sqlite of the bundle to target/<db>/<db>.sqlite; normalised name -> db name."""
    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    names = {}
    try:
        with zipfile.ZipFile(archive_path) as archive:
            for info in archive.infolist():
                path = PurePosixPath(info.filename)
                if "__MACOSX" in path.parts or path.suffix != ".sqlite":
                    continue
                (tmp / path.stem).mkdir(parents=True, exist_ok=True)
                with archive.open(info) as src, open(tmp / path.stem / f"{path.stem}.sqlite", "wb") as dst:
                    shutil.copyfileobj(src, dst)
                names[normal(path.stem)] = path.stem
    except zipfile.BadZipFile as exc:
        raise GymError(f"{archive_path}: not a zip archive ({exc}); Google Drive may have sent a web page instead "
                       "of the file: download local_sqlite.zip in a browser and pass +prepare_args.sqlite_zip=<path>") from None
    if not names:
        raise GymError(f"{archive_path}: no .sqlite files inside")
    replace_dir(tmp, target)
    return names


def _csv_rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    return rows[1:]  # the header names the columns; comparison is by position


def gold_results(ctx: PrepareContext, instance_id: str) -> list[list[list[str]]]:
    """The task's gold result sets (one CSV, or <id>_a.csv, <id>_b.csv, ...); [] when the repository has none."""
    try:
        return [_csv_rows(ctx.fetch(RESULT.format(name=instance_id)))]
    except GymError:
        pass
    results = []
    for letter in "abcdefgh"[:MAX_ANSWERS]:
        try:
            results.append(_csv_rows(ctx.fetch(RESULT.format(name=f"{instance_id}_{letter}"))))
        except GymError:
            break
    return results


def gold_sql(ctx: PrepareContext, instance_id: str) -> str:
    try:
        return Path(ctx.fetch(GOLD_SQL.format(id=instance_id))).read_text(encoding="utf-8").strip()
    except GymError:
        return ""  # many tasks ship only their result CSVs


def prepare(ctx: PrepareContext, sqlite_zip: str | None = None, sample_rows: int = 3) -> Path:
    if isinstance(sample_rows, bool) or not isinstance(sample_rows, int) or sample_rows < 0:
        raise GymError(f"sample_rows must be a whole number >= 0, got {sample_rows!r}")
    archive = Path(sqlite_zip).expanduser() if sqlite_zip else ctx.fetch(DATABASES)
    if not Path(archive).is_file():
        raise GymError(f"sqlite_zip {archive} does not exist")
    databases = Path(ctx.output_path).parent / "databases"
    names = unpack(Path(archive), databases)
    tasks_path, eval_path = ctx.fetch(TASKS), ctx.fetch(EVAL)
    standards = {item.get("instance_id"): item for item in ctx.read_jsonl(eval_path)}
    contexts: dict[str, str] = {}
    rows = []
    for index, item in enumerate(ctx.read_jsonl(tasks_path)):
        instance_id = str(item.get("instance_id") or "")
        if not instance_id.startswith("local"):  # BigQuery / Snowflake tasks need cloud credentials
            ctx.leave_out_row("a BigQuery or Snowflake task (the SQLite part only, as the reference)")
            continue
        where = f"{tasks_path}: task {instance_id or index}"
        db = names.get(normal(str(item.get("db") or "")))
        question = item.get("question")
        if db is None or not isinstance(question, str) or not question.strip():
            ctx.bad_row(where, f"no database {item.get('db')!r} in the bundle, or no question")
            continue
        results = gold_results(ctx, instance_id)
        if not results:
            ctx.bad_row(where, "no gold result CSV in the repository")
            continue
        standard = standards.get(instance_id, {})
        if db not in contexts:
            contexts[db] = schema_text(databases / db / f"{db}.sqlite", sample_rows)
        sql = gold_sql(ctx, instance_id)
        ctx.count_seen(1)
        rows.append({
            "question": question.strip(), "sql_context": contexts[db], "db_id": db, "gold_result": results,
            "condition_cols": standard.get("condition_cols") or [], "ignore_order": bool(standard.get("ignore_order", True)),
            "gold_sql": sql, "expected_answer": sql, "id": instance_id,
            "metadata": {"external_knowledge": item.get("external_knowledge"), "source_index": index},
        })
    return ctx.write_rows(rows)
