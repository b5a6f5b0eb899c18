"""Downloads for prepare scripts: mirror/offline aware, retried, streamed, atomic; and the context object
every `benchmarks/<name>/prepare.py` receives (`prepare(ctx, **prepare_args)`).
"""

from __future__ import annotations

import csv
import gzip
import json
import logging
import os
import random
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import unquote, urlsplit

from gym import __version__
from gym.errors import GymError
from gym.io import atomic_path, sha256_file, write_json_atomic, write_jsonl_atomic

log = logging.getLogger("gym.download")

RETRY_STATUS = {408, 429, 500, 502, 503, 504}
MANIFEST = "manifest.json"
# Upstream files shipped inside the package (a `wget -x` layout, gzipped): used when a download fails,
# so the first run works without internet access.
BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"
# A connection error with one of these in its text means there is no network at all: retrying will not help.
_NO_NETWORK = ("NameResolutionError", "Failed to resolve", "Name or service not known",
               "Temporary failure in name resolution", "nodename nor servname", "Network is unreachable",
               "ProxyError", "Unable to connect to proxy")


class DownloadError(GymError):
    """A download that failed for good (after retries, or at once when there is no network)."""


def bundled_copy(url: str) -> Path | None:
    """gym's bundled copy of the upstream file at `url`, if it ships one."""
    parts = urlsplit(url)
    path = BUNDLED_DIR / parts.netloc / (parts.path.lstrip("/") + ".gz")
    return path if path.is_file() else None


def ways_out(url: str, target: Path) -> str:
    """The three ways to get an upstream file without the network, for the end of an error line."""
    parts = urlsplit(url)
    return (f"ways out: data.mirror=<URL or dir holding {parts.netloc}{parts.path}>, or put the file at {target} "
            f"(a file in place is used as is), or data.offline=true to use only local files")


def mirror_location(url: str, mirror: str) -> str:
    """`https://<host>/<path>` -> `<mirror>/<host>/<path>` (the layout `wget -x` produces)."""
    parts = urlsplit(url)
    return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path}"


def _is_remote(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def _local_path(location: str) -> Path:
    return Path(location[len("file://"):] if location.startswith("file://") else location).expanduser()


def download(url: str, target: Path, *, timeout: float = 60, retries: int = 4, headers: dict | None = None,
             token_env: str | None = None, progress: bool = True) -> Path:
    """Stream `url` to `target` through a temp file; retry 5xx/connection errors with backoff."""
    import requests

    attempt = 0
    while True:
        try:
            with requests.get(url, stream=True, timeout=timeout, headers=headers or {}) as reply:
                if reply.status_code in (401, 403):
                    hint = f"set {token_env} to a token with access" if token_env else "the data needs authorisation"
                    if token_env and os.environ.get(token_env):
                        hint = f"the token in {token_env} was refused; accept the dataset's terms on its page first"
                    raise GymError(f"{url}: HTTP {reply.status_code} (gated data: {hint})")
                if reply.status_code in RETRY_STATUS and attempt < retries:
                    raise _Retry(f"HTTP {reply.status_code}", reply.headers.get("Retry-After"))
                if reply.status_code >= 400:
                    raise GymError(f"{url}: HTTP {reply.status_code} {reply.reason}")
                total = int(reply.headers.get("Content-Length") or 0) or None
                with atomic_path(target) as tmp:
                    with tmp.open("wb") as sink, _progress(total, target.name, progress) as bar:
                        for chunk in reply.iter_content(chunk_size=1 << 16):
                            sink.write(chunk)
                            bar.update(len(chunk))
                    if total is not None and tmp.stat().st_size != total:
                        raise _Retry(f"short read ({tmp.stat().st_size} of {total} bytes)", None)
            return target
        except _Retry as exc:
            reason, retry_after = str(exc), exc.retry_after
        except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError) as exc:
            text = f"{exc.__class__.__name__}: {exc}"
            if any(marker in text for marker in _NO_NETWORK):
                raise DownloadError(f"cannot download {url} (no network: {_short_reason(exc)})") from None
            reason, retry_after = _short_reason(exc), None
        attempt += 1
        if attempt > retries:
            raise DownloadError(f"cannot download {url} after {retries + 1} attempts ({reason})")
        delay = float(retry_after) if retry_after and str(retry_after).isdigit() else min(30.0, 0.5 * 2 ** (attempt - 1))
        delay *= random.uniform(0.8, 1.2)
        log.warning("%s: %s; retry %d/%d in %.1fs", url, reason, attempt, retries, delay)
        time.sleep(delay)


def _short_reason(exc: BaseException) -> str:
    """The innermost cause of a requests/urllib3 error, without the URL and object reprs around it."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
    text = str(exc).split("): ")[-1].strip() or exc.__class__.__name__
    return text[:120]


class _Retry(Exception):
    def __init__(self, reason: str, retry_after: str | None):
        super().__init__(reason)
        self.retry_after = retry_after


def _progress(total: int | None, name: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=name, unit="B", unit_scale=True, leave=False, disable=not enabled or None)


@dataclass
class PrepareContext:
    """What a prepare script gets: where to write, how to fetch, how to read upstream files safely."""

    name: str
    output_path: Path
    mirror: str | None = None  # URL or local dir in `wget -x` layout
    offline: bool = False
    timeout: float = 60
    retries: int = 4
    skip_bad_rows: bool = False
    force: bool = False  # download again even when the upstream file is already in raw_dir
    progress: bool = True
    prepare_args: dict = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)  # URLs fetched so far (for the manifest)
    skipped_rows: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.output_path = Path(self.output_path)

    @property
    def raw_dir(self) -> Path:
        return self.output_path.parent / "raw"

    # -- fetching -----------------------------------------------------------------------------------
    def fetch(self, url: str, *, token_env: str | None = None) -> Path:
        """The upstream file at `url`, as a local file under raw_dir/<host>/<path>."""
        parts = urlsplit(url)
        target = self.raw_dir / parts.netloc / parts.path.lstrip("/")
        self.sources.append(url)
        if target.is_file() and not self.force:  # downloads are atomic: a file in place is complete
            log.info("%s: using %s (prepare.force=true downloads it again)", url, target)
            return target
        try:
            return self._fetch(url, target, token_env)
        except DownloadError as exc:
            bundled = bundled_copy(url)
            if bundled is None:
                raise DownloadError(f"{exc}; {ways_out(url, target)}") from None
            log.warning("%s; using the copy bundled with gym (the same upstream file)", exc)
        except GymError:
            bundled = bundled_copy(url)
            if bundled is None or not self.offline:
                raise
            log.info("%s: offline; using the copy bundled with gym (the same upstream file)", url)
        with atomic_path(target) as tmp, gzip.open(bundled, "rb") as source, tmp.open("wb") as sink:
            shutil.copyfileobj(source, sink)
        return target

    def _fetch(self, url: str, target: Path, token_env: str | None) -> Path:
        parts = urlsplit(url)
        if self.mirror:
            location = mirror_location(url, self.mirror)
            if not _is_remote(location):
                local = _local_path(location)
                if not local.is_file() and _local_path(unquote(location)).is_file():
                    local = _local_path(unquote(location))  # a mirror made by a script holds decoded names (%2F as /)
                if not local.is_file():
                    raise GymError(f"mirror has no {local} (for {url})")
                with atomic_path(target) as tmp:
                    shutil.copyfile(local, tmp)
                return target
            if self.offline:
                raise GymError(f"offline=true but data.mirror is a URL; {url} is needed locally at {target}")
            return download(location, target, timeout=self.timeout, retries=self.retries, progress=self.progress)
        if self.offline:
            if target.is_file():
                return target
            raise GymError(f"offline=true and {url} is not available locally: put it at {target} "
                           f"or set data.mirror=<dir> holding <dir>/{parts.netloc}{parts.path}")
        headers = {}
        if token_env and os.environ.get(token_env):
            headers["Authorization"] = f"Bearer {os.environ[token_env]}"
        return download(url, target, timeout=self.timeout, retries=self.retries, headers=headers,
                        token_env=token_env, progress=self.progress)

    # -- reading upstream files ---------------------------------------------------------------------
    def bad_row(self, where: str, message: str) -> None:
        """Report a malformed upstream row: raises, unless prepare.skip_bad_rows (then the caller skips it)."""
        if not self.skip_bad_rows:
            raise GymError(f"{where}: {message} (set prepare.skip_bad_rows=true to skip malformed rows)")
        log.warning("%s: %s (skipped)", where, message)
        self.skipped_rows.append(f"{where}: {message}")

    def convert_rows(self, source: Path, items: Iterable[dict], convert: Callable[[dict, int], tuple],
                     label: str = "row", first: int = 0, id_field: str | None = None) -> list[dict]:
        """convert(item, index) -> (row, problem) over upstream items; a problem goes to bad_row, named
        '<source>: <label> <index + first> (<id_field> <value>)'."""
        rows = []
        for index, item in enumerate(items):
            row, problem = convert(item, index)
            if problem:
                ident = f" ({id_field} {item.get(id_field)})" if id_field else ""
                self.bad_row(f"{source}: {label} {index + first}{ident}", problem)
                continue
            rows.append(row)
        return rows

    def _jsonl_lines(self, path: Path, lines: Iterable[bytes]) -> list[dict]:
        rows = []
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                self.bad_row(f"{path}:{number}", f"malformed JSON ({exc})")
                continue
            if not isinstance(obj, dict):
                self.bad_row(f"{path}:{number}", "expected a JSON object")
                continue
            rows.append(obj)
        return rows

    def read_jsonl(self, path: Path) -> list[dict]:
        with open(path, "rb") as handle:
            return self._jsonl_lines(Path(path), handle)

    def read_jsonl_gz(self, path: Path) -> list[dict]:
        try:
            with gzip.open(path, "rb") as handle:
                return self._jsonl_lines(Path(path), handle.read().split(b"\n"))
        except (OSError, EOFError) as exc:
            raise GymError(f"{path}: corrupt or truncated gzip file ({exc})") from None

    def read_parquet(self, path: Path, columns: Iterable[str] | None = None, required: Iterable[str] = (),
                     layout: str = "expected") -> list[dict]:
        """Rows of a parquet file; with `columns`, only those of them the file has (large unused columns
        stay on disk); a missing `required` column is an error naming the `layout`."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            if columns is None and not required:
                return pq.read_table(path).to_pylist()
            names = set(pq.read_schema(path).names)
            missing = [column for column in required if column not in names]
            if missing:
                raise GymError(f"{path}: not the {layout} layout (no column {', '.join(missing)})")
            wanted = None if columns is None else [column for column in columns if column in names]
            return pq.read_table(path, columns=wanted).to_pylist()
        except (pa.ArrowException, OSError) as exc:
            raise GymError(f"{path}: corrupt or truncated parquet file ({exc})") from None

    def read_csv(self, path: Path) -> list[dict]:
        try:
            with open(path, encoding="utf-8-sig", newline="") as handle:
                return list(csv.DictReader(handle))
        except (UnicodeDecodeError, csv.Error) as exc:
            raise GymError(f"{path}: unreadable CSV ({exc})") from None

    # -- writing ------------------------------------------------------------------------------------
    def write_rows(self, rows: Iterable[dict]) -> Path:
        """Validate rows, write the prepared JSONL atomically and a manifest beside it."""
        checked = []
        for index, row in enumerate(rows):
            where = f"{self.name} row {index}"
            if not isinstance(row, dict) or not isinstance(row.get("question"), str) or not row["question"].strip():
                raise GymError(f"{where}: a prepared row needs a non-empty string 'question'")
            if "expected_answer" in row and not isinstance(row["expected_answer"], str):
                raise GymError(f"{where}: 'expected_answer' must be a string, got {type(row['expected_answer']).__name__}")
            checked.append(row)
        if not checked:
            raise GymError(f"{self.name}: prepare produced no rows")
        try:
            count = write_jsonl_atomic(self.output_path, checked)
        except OSError as exc:
            raise GymError(f"data directory not writable: {exc.filename or self.output_path.parent} ({exc.strerror})") from None
        write_json_atomic(self.output_path.parent / MANIFEST, {
            "benchmark": self.name,
            "path": str(self.output_path),
            "rows": count,
            "sha256": sha256_file(self.output_path),
            "sources": list(dict.fromkeys(self.sources)),
            "prepare_args": self.prepare_args,
            "skipped_rows": self.skipped_rows,
            "prepared_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "gym_version": __version__,
        })
        return self.output_path


def read_manifest(data_path: Path) -> dict[str, Any] | None:
    path = Path(data_path).parent / MANIFEST
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
