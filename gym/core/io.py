"""File helpers: JSONL read with file:line errors, atomic writes, append-and-flush writers, hashing."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
import threading
from typing import Any, Callable, Iterator, TypeVar

from gym.core.errors import GymError

_UMASK = os.umask(0)
os.umask(_UMASK)


T = TypeVar("T")
_parsed: dict[tuple[str, float, Callable], Any] = {}
_parsed_lock = threading.Lock()


def cached_parse(path: Path, parse: Callable[[Path], T]) -> T:
    """`parse(path)`, once per path, modification time and parser: environments read their prepared files
    (domain, env and scenario files) for every episode; a re-prepared file is read again."""
    key = (str(path), path.stat().st_mtime, parse)
    with _parsed_lock:
        if key not in _parsed:
            _parsed[key] = parse(path)
        return _parsed[key]


def iter_jsonl(path: str | Path, *, tolerate_torn_tail: bool = False) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line, streamed; malformed lines raise with file:line.

    With `tolerate_torn_tail`, a malformed *last* line without a trailing newline (a write cut by a
    crash) is skipped instead of raising.
    """
    path = Path(path)
    if not path.is_file():
        raise GymError(f"file not found: {path}")
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
                if tolerate_torn_tail and not raw.endswith(b"\n"):  # only the last line can lack one
                    return
                raise GymError(f"{path}:{number}: malformed JSON ({exc.__class__.__name__}: {exc})") from None
            if not isinstance(obj, dict):
                raise GymError(f"{path}:{number}: expected a JSON object, got {type(obj).__name__}")
            yield number, obj


def read_jsonl(path: str | Path, **kwargs: Any) -> list[dict]:
    return [obj for _, obj in iter_jsonl(path, **kwargs)]


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


@contextmanager
def atomic_path(target: str | Path) -> Iterator[Path]:
    """A temp path beside `target`; renamed over it only if the block finishes without error."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp makes 0600; results should be as readable as any other file
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def replace_dir(built: Path, target: Path) -> None:
    """Put the fully built directory `built` in place of `target` (a reader sees the old or the new one,
    never half of either; the old one is removed)."""
    import shutil

    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    built.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def write_text_atomic(target: str | Path, text: str) -> None:
    """Write `text` (UTF-8) to `target` atomically (a reader sees the old file or the new one)."""
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(target: str | Path, obj: Any) -> None:
    """Write `obj` as indented JSON to `target` atomically (a reader sees the old file or the new one)."""
    write_text_atomic(target, json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")


def write_jsonl_atomic(target: str | Path, rows: Any) -> int:
    """Write rows as JSONL atomically; returns the row count."""
    count = 0
    with atomic_path(target) as tmp:
        with tmp.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                count += 1
    return count


def truncate_torn_tail(path: Path) -> None:
    """Drop a partial last row (no trailing newline) left by a killed writer."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("r+b") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return
        # Scan back in blocks for the last newline.
        pos, block = size, 1 << 16
        while pos > 0:
            start = max(0, pos - block)
            handle.seek(start)
            chunk = handle.read(pos - start)
            idx = chunk.rfind(b"\n")
            if idx >= 0:
                handle.truncate(start + idx + 1)
                return
            pos = start
        handle.truncate(0)


def complete_end(path: Path) -> tuple[int, bool]:
    """(bytes to read, torn) of a JSONL file: drops a last line that has no newline and does not parse."""
    size = pos = path.stat().st_size
    tail = b""
    with path.open("rb") as handle:
        while pos > 0 and b"\n" not in tail:  # read back to the last newline
            start = max(0, pos - (1 << 16))
            handle.seek(start)
            tail, pos = handle.read(pos - start) + tail, start
    last = tail[tail.rfind(b"\n") + 1:]
    if not last.strip():
        return size, False
    try:
        json.loads(last)
        return size, False
    except ValueError:
        return size - len(last), True


def count_lines(path: Path, end: int) -> int:
    """Newline-terminated lines in the first `end` bytes (+1 for an unterminated last line)."""
    count, seen, last = 0, 0, b"\n"
    with path.open("rb") as handle:
        while seen < end:
            chunk = handle.read(min(1 << 24, end - seen))
            if not chunk:
                break
            count += chunk.count(b"\n")
            seen += len(chunk)
            last = chunk[-1:]
    return count + (last != b"\n")


class JsonlAppender:
    """Append rows to a JSONL file, flushing each; repairs a torn last line before the first append."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        truncate_torn_tail(self.path)
        self._handle = self.path.open("ab")

    def write(self, row: dict) -> None:
        self._handle.write((json.dumps(row, ensure_ascii=False, default=str) + "\n").encode("utf-8"))
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> "JsonlAppender":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def line_blocks(path: Path, end: int, size: int = 16 << 20) -> Iterator[bytes]:
    """The first `end` bytes of a file in blocks of whole lines (about `size` bytes each), for parsers that
    take many lines at once (pyarrow needs a whole line in a block)."""
    with Path(path).open("rb") as handle:
        carry, read = b"", 0
        while read < end:
            data = handle.read(min(size, end - read))
            if not data:
                break
            read += len(data)
            data = carry + data
            cut = data.rfind(b"\n") + 1
            carry = data[cut:]
            if cut:
                yield data[:cut]
        if carry:
            yield carry
