"""LiveCodeBench code generation (livecodebench/code_generation_lite): LeetCode, AtCoder and Codeforces
contest problems judged by hidden tests, windowed by contest date to limit contamination.

Upstream keeps cumulative release files: test.jsonl is release_v1 and test2.jsonl ... test6.jsonl each
add the following months, so release vN is test.jsonl + test2..testN.jsonl. Rows:
{question_title, question_content, platform, question_id, contest_id, contest_date, starter_code,
difficulty, public_test_cases (JSON text), private_test_cases (base64 of zlib of a pickled JSON
string, or JSON text), metadata (JSON text; LeetCode rows name the function in func_name)}.

The private tests are decoded without pickle's object loading (only plain strings, lists and dicts
are accepted; the reference unpickles arbitrary objects). Only problems with
start_date <= contest_date < end_date are kept; the reference's windows are v5: 2024-08-01 .. 2025-03-01
and v6: 2024-08-01 .. 2025-06-01. `files` can name the release files to read (the older ones are
large) when the window does not reach back to them. Prepared rows:

    {"question": <problem statement>, "expected_answer": "", "starter_code": ..., "answer_stub": <the starter
     code, or "# YOUR CODE HERE">, "formatting_message": ..., "unit_tests": {"inputs": [public..., private...],
     "outputs": [...], "fn_name": "maxSum" | null}, "metadata": {"question_id", "question_title", "platform",
     "contest_id", "contest_date", "difficulty", "release_file", "source_index"}}
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
import zlib
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gym.data import GymError

if TYPE_CHECKING:
    from gym.data import PrepareContext

BASE_URL = "https://huggingface.co/datasets/livecodebench/code_generation_lite/resolve/main/"
FILES = ("test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl", "test6.jsonl")
RELEASES = {f"v{number}": FILES[:number] for number in range(1, len(FILES) + 1)}
WITH_STARTER = "Use the starter code below and put your whole solution in one fenced code block."
WITHOUT_STARTER = ("Read the input from stdin, solve the problem and write the answer to stdout (do not just test "
                   "on the sample inputs). Put your whole program in one fenced code block, as below.")


class _PlainData(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:  # no classes, functions or code: data only
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")


def decode_tests(value: Any) -> list[dict]:
    """Test cases from JSON text or from base64(zlib(pickle(JSON text))); ValueError when unreadable."""
    if isinstance(value, list):
        return value
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {type(value).__name__}")
    text = value.strip()
    if not text or text[0] in "[{":
        return json.loads(text) if text else []
    try:
        payload = zlib.decompress(base64.b64decode(text, validate=True))
    except (binascii.Error, zlib.error) as exc:
        raise ValueError(f"not JSON and not base64+zlib ({exc})") from None
    if payload.lstrip()[:1] in (b"[", b"{"):  # some exports skip the pickle layer
        return json.loads(payload)
    try:
        data = _PlainData(io.BytesIO(payload)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
        raise ValueError(f"unreadable pickle ({exc})") from None
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    return json.loads(data) if isinstance(data, str) else data


def _date(value: Any, name: str) -> date:
    try:
        return value if isinstance(value, date) else datetime.fromisoformat(str(value)).date()
    except ValueError:
        raise GymError(f"livecodebench: {name}={value!r} is not a date like 2024-08-01") from None


def convert(item: dict[str, Any], index: int, source: str) -> tuple[dict[str, Any] | None, str | None]:
    content, starter = item.get("question_content"), item.get("starter_code") or ""
    if not isinstance(content, str) or not content.strip() or not isinstance(starter, str):
        return None, "needs a non-empty 'question_content' and a string 'starter_code'"
    try:
        tests = [*decode_tests(item.get("public_test_cases") or "[]"),
                 *decode_tests(item.get("private_test_cases") or "[]")]
        metadata = item.get("metadata") or "{}"
        metadata = json.loads(metadata) if isinstance(metadata, str) else metadata
    except ValueError as exc:
        return None, f"unreadable tests or metadata: {exc}"
    if not tests or not all(isinstance(t, dict) and isinstance(t.get("input"), str)
                            and isinstance(t.get("output"), str) for t in tests):
        return None, "no tests, or a test without string 'input' and 'output'"
    if not isinstance(metadata, dict):
        return None, "'metadata' must be a JSON object"
    function = metadata.get("func_name") or None
    row = {
        "question": content,
        "expected_answer": "",
        "starter_code": starter,
        "answer_stub": starter.rstrip() or "# YOUR CODE HERE",
        "formatting_message": WITH_STARTER if starter.strip() else WITHOUT_STARTER,
        "unit_tests": {"inputs": [t["input"] for t in tests], "outputs": [t["output"] for t in tests],
                       "fn_name": function},
        "metadata": {key: item.get(key) for key in ("question_id", "question_title", "platform", "contest_id",
                                                    "contest_date", "difficulty")},
    }
    row["metadata"].update(release_file=source, source_index=index)
    return row, None


def prepare(ctx: PrepareContext, release: str = "v6", start_date: str = "2024-08-01", end_date: str = "2025-06-01",
            files: list[str] | None = None) -> Path:
    return ctx.write_rows(release_rows(ctx, release, start_date, end_date, files))


def release_rows(ctx: PrepareContext, release: str, start_date: str, end_date: str,
                 files: list[str] | None = None) -> list[dict[str, Any]]:
    """The prepared rows of a release's problems in [start_date, end_date) (the cascade variants reuse them)."""
    if release not in RELEASES:
        raise GymError(f"livecodebench: release must be one of {', '.join(RELEASES)}, got {release!r}")
    start, end = _date(start_date, "start_date"), _date(end_date, "end_date")
    if start >= end:
        raise GymError(f"livecodebench: start_date {start} must be before end_date {end}")
    names = list(RELEASES[release]) if files is None else list(files)
    unknown = [name for name in names if name not in RELEASES[release]]
    if unknown or not names:
        raise GymError(f"livecodebench: files must be a non-empty subset of release {release}'s files "
                       f"({', '.join(RELEASES[release])}); got {names}")
    rows = []
    for name in names:
        raw = ctx.fetch(BASE_URL + name)
        for number, item in ctx.iter_jsonl(raw):  # streamed: the release files are large
            where = f"{raw}:{number}"
            try:
                when = datetime.fromisoformat(str(item["contest_date"])).date()
            except (KeyError, TypeError, ValueError) as exc:
                ctx.bad_row(where, f"malformed contest_date ({exc})")
                continue
            if start <= when < end:
                ctx.keep(rows, convert(item, number - 1, name), f"{where} ({item.get('question_id')})")
            else:
                ctx.leave_out_row(f"contest date outside [{start}, {end}) (the release window)")
    if not rows:
        raise GymError(f"livecodebench: no problem of release {release} has a contest date in [{start}, {end})")
    return rows


# The Nemotron Cascade prompt's function header (empty for stdin problems), as the reference's cascade configs
# build it; the rest of the row is the same as livecodebench's.
CASCADE_HEADER = "\n\nSolve the problem starting with the provided function header.\n\nFunction header:\n```\n{starter}\n```"


def prepare_cascade(ctx: PrepareContext, release: str, start_date: str, end_date: str,
                    files: list[str] | None = None) -> Path:
    rows = release_rows(ctx, release, start_date, end_date, files)
    for row in rows:
        row["function_header"] = CASCADE_HEADER.format(starter=row["starter_code"]) if row["starter_code"] else ""
    return ctx.write_rows(rows)
