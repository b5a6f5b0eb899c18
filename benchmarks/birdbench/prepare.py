"""BIRD (bird-bench.github.io) dev split: 1,534 text-to-SQL questions over 11 SQLite databases.

Upstream `dev.zip` holds `dev_20240627/dev.json` (rows `{"question_id", "db_id", "question", "evidence",
"SQL", "difficulty"}`) and the databases, either directly as `dev_databases/<db_id>/<db_id>.sqlite` or
inside a nested `dev_databases.zip` (both layouts are read). The databases are unpacked beside the
prepared file under `databases/<db_id>/<db_id>.sqlite` (the sql verifier's db_root), through a temp
folder renamed into place. Each row's `sql_context` is the schema read from the database itself: every
table's CREATE statement followed by `sample_rows` example rows as INSERT statements. The question is
the evidence hint followed by the question, as the reference builds it. Prepared rows:

    {"question", "gold_sql", "expected_answer": <gold SQL>, "db_id", "sql_context", "id": <question_id>,
     "metadata": {"difficulty", "subset": <difficulty>, "source_index"}}
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from gym.data import GymError, replace_dir, schema_text

if TYPE_CHECKING:
    from gym.data import PrepareContext

URL = "https://bird-bench.oss-cn-beijing.aliyuncs.com/dev.zip"


def _sqlite_members(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """db_id -> member `.../<db_id>/<db_id>.sqlite` (macOS resource forks skipped)."""
    found = {}
    for info in archive.infolist():
        path = PurePosixPath(info.filename)
        if "__MACOSX" in path.parts or path.suffix != ".sqlite" or path.parent.name != path.stem:
            continue
        found[path.stem] = info
    return found


def unpack_databases(archive: zipfile.ZipFile, target: Path) -> list[str]:
    """Unpack every <db_id>.sqlite (also from a nested dev_databases.zip) into target/<db_id>/; the db ids."""
    members = _sqlite_members(archive)
    sources = [(archive, members)]
    if not members:
        nested = [i for i in archive.infolist() if i.filename.endswith("dev_databases.zip") and "__MACOSX" not in i.filename]
        if not nested:
            raise GymError("dev.zip has neither dev_databases/<db>/<db>.sqlite files nor a dev_databases.zip")
        inner = zipfile.ZipFile(io.BytesIO(archive.read(nested[0])))
        sources = [(inner, _sqlite_members(inner))]
    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    ids = []
    for source, found in sources:
        for db_id, info in sorted(found.items()):
            (tmp / db_id).mkdir(parents=True, exist_ok=True)
            with source.open(info) as src, open(tmp / db_id / f"{db_id}.sqlite", "wb") as dst:
                shutil.copyfileobj(src, dst)
            ids.append(db_id)
    replace_dir(tmp, target)
    return ids


def convert(item: dict[str, Any], index: int, contexts: dict[str, str]) -> tuple[dict[str, Any] | None, str | None]:
    question, sql, db_id = item.get("question"), item.get("SQL"), item.get("db_id")
    if not isinstance(question, str) or not question.strip() or not isinstance(sql, str) or not sql.strip():
        return None, "missing 'question' or 'SQL'"
    if db_id not in contexts:
        return None, f"db_id {db_id!r} has no database in dev.zip"
    evidence = str(item.get("evidence") or "").strip()
    return {
        "question": f"{evidence}\n{question.strip()}" if evidence else question.strip(),
        "gold_sql": sql.strip(), "expected_answer": sql.strip(), "db_id": db_id, "sql_context": contexts[db_id],
        "id": item.get("question_id", index),
        "metadata": {"difficulty": item.get("difficulty"), "subset": item.get("difficulty"), "source_index": index},
    }, None


def prepare(ctx: PrepareContext, sample_rows: int = 3) -> Path:
    if isinstance(sample_rows, bool) or not isinstance(sample_rows, int) or sample_rows < 0:
        raise GymError(f"sample_rows must be a whole number >= 0, got {sample_rows!r}")
    raw = ctx.fetch(URL)
    databases = Path(ctx.output_path).parent / "databases"
    try:
        with zipfile.ZipFile(raw) as archive:
            members = [i for i in archive.infolist() if PurePosixPath(i.filename).name == "dev.json"
                       and "__MACOSX" not in i.filename]
            if not members:
                raise GymError(f"{raw}: no dev.json inside (not the BIRD dev.zip layout)")
            items = json.loads(archive.read(members[0]))
            ids = unpack_databases(archive, databases)
    except (zipfile.BadZipFile, json.JSONDecodeError) as exc:
        raise GymError(f"{raw}: corrupt or truncated archive ({exc})") from None
    if not isinstance(items, list):
        raise GymError(f"{raw}: dev.json is not a JSON array")
    contexts = {db_id: schema_text(databases / db_id / f"{db_id}.sqlite", sample_rows) for db_id in ids}
    return ctx.write_rows(ctx.convert_rows(raw, items, lambda item, i: convert(item, i, contexts), label="question",
                                           id_field="question_id"))
