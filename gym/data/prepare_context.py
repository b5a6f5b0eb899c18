"""The prepare-script API: the context object every `benchmarks/<name>/prepare.py` receives
(`prepare(ctx, **prepare_args)`): where to write, how to fetch (gym.data.download), how to read upstream files
with file:line errors, and how to write the prepared JSONL with its manifest.
"""

from __future__ import annotations

import csv
import gzip
import json
import logging
import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import unquote, urlsplit

from gym import __version__
from gym.data.download import (DownloadError, bundled_copy, bundled_files, download, is_remote, local_path,
                               mirror_location, ways_out)
from gym.core.errors import GymError
from gym.core.io import atomic_path, sha256_file, write_json_atomic, write_jsonl_atomic

log = logging.getLogger("gym.data.download")
MANIFEST = "manifest.json"


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
    rows_seen: int = 0  # upstream rows the script looked at (kept, left out or skipped)
    left_out: dict[str, int] = field(default_factory=dict)  # rows the reference leaves out too, by its rule
    unscorable_rows: list[str] = field(default_factory=list)  # kept, but gym cannot score them (why)
    no_network: str | None = None  # why the first download found no network: later ones are not tried

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
            if url not in self.sources[:-1]:  # said once per file, not at each read of it
                log.info("%s: using %s (prepare.force=true downloads it again)", url, target)
            return target
        bundled = bundled_copy(url)
        try:
            if bundled is not None and self.no_network:
                raise DownloadError(f"cannot download {url} (no network)", no_network=self.no_network)
            return self._fetch(url, target, token_env)
        except DownloadError as exc:
            if bundled is None:
                raise DownloadError(f"{exc}; {ways_out(url, target)}") from None
            if exc.no_network and not self.no_network:  # one line for all the files
                self.no_network = exc.no_network
                log.warning("%s: no network (%s); using the copy bundled with gym of %s (the same upstream "
                            "files)", self.name, exc.no_network, bundled_files(url))
            elif not exc.no_network:
                log.warning("%s; using the copy bundled with gym (the same upstream file)", exc)
        except GymError:
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
            if not is_remote(location):
                local = local_path(location)
                if not local.is_file() and local_path(unquote(location)).is_file():
                    local = local_path(unquote(location))  # a mirror made by a script holds decoded names (%2F as /)
                if not local.is_file():
                    raise GymError(f"mirror has no {local} (for {url})")
                with atomic_path(target) as tmp:
                    shutil.copyfile(local, tmp)
                return target
            if self.offline:
                raise GymError(f"offline=true but data.mirror is a URL; {url} is needed locally at {target}")
            # the token stays with the upstream host; a mirror's refusal still says how to get access
            return download(location, target, timeout=self.timeout, retries=self.retries, progress=self.progress,
                            token_env=token_env, origin=url)
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
        """Report a malformed upstream row (one row seen): raises, unless prepare.skip_bad_rows (then the
        caller skips it)."""
        self.rows_seen += 1
        if not self.skip_bad_rows:
            raise GymError(f"{where}: {message} (set prepare.skip_bad_rows=true to skip malformed rows)")
        log.warning("%s: %s (skipped)", where, message)
        self.skipped_rows.append(f"{where}: {message}")

    def convert_rows(self, source: Path, items: Iterable[dict], convert: Callable[[dict, int], tuple],
                     label: str = "row", first: int = 0, id_field: str | None = None) -> list[dict]:
        """convert(item, index) -> (row, problem) over upstream items, each kept or reported by `keep` at
        '<source>: <label> <index + first> (<id_field> <value>)'."""
        rows: list[dict] = []
        for index, item in enumerate(items):
            ident = f" ({id_field} {item.get(id_field)})" if id_field else ""
            self.keep(rows, convert(item, index), f"{source}: {label} {index + first}{ident}")
        return rows

    def keep(self, rows: list[dict], converted: tuple[dict | None, str | None], where: str) -> None:
        """One upstream row seen: a converter's (row, None) is appended to `rows`; (row, problem) is appended
        and reported as unscorable (the reference keeps it, gym cannot score it); (None, problem) is a row
        nobody can read, reported at `where` (see bad_row)."""
        row, problem = converted
        if row is None:
            self.bad_row(where, problem or "no row")
            return
        self.rows_seen += 1
        if problem:
            self.unscorable(where, problem)
            row["unscorable"] = problem  # the row says so itself; collect scores it as a verifier_error
        rows.append(row)

    def unscorable(self, where: str, problem: str) -> None:
        """A row kept (the reference keeps it) that gym cannot score: logged and listed in the manifest."""
        log.warning("%s: kept, but gym cannot score it: %s", where, problem)
        self.unscorable_rows.append(f"{where}: {problem}")

    def count_seen(self, count: int) -> None:
        """`count` upstream rows seen, for a script that keeps rows without `keep`/`convert_rows`."""
        self.rows_seen += count

    def leave_out_row(self, reason: str, seen_before: bool = False) -> None:
        """One upstream row left out for `reason` (a rule the reference applies too); it counts as seen
        unless it was already (a converted row left out afterwards)."""
        self.rows_seen += 0 if seen_before else 1
        self.left_out[reason] = self.left_out.get(reason, 0) + 1

    def leave_out(self, items: Iterable[dict], wanted: Callable[[dict], bool], reason: str,
                  seen_before: bool = False) -> list[dict]:
        """The items `wanted` keeps; the others are left out for `reason` (a rule the reference applies
        too, e.g. its language filter), counted in the manifest (see leave_out_row for `seen_before`)."""
        kept = []
        for item in items:
            if wanted(item):
                kept.append(item)
            else:
                self.leave_out_row(reason, seen_before)
        return kept

    def _jsonl_objects(self, path: Path, lines: Iterable[bytes]) -> Iterator[tuple[int, dict]]:
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
            yield number, obj

    def iter_jsonl(self, path: Path) -> Iterator[tuple[int, dict]]:
        """(line number, object) per JSON object line, streamed (for large files); bad lines go to bad_row."""
        with open(path, "rb") as handle:
            yield from self._jsonl_objects(Path(path), handle)

    def read_jsonl(self, path: Path) -> list[dict]:
        return [obj for _, obj in self.iter_jsonl(path)]

    def read_jsonl_gz(self, path: Path) -> list[dict]:
        try:
            with gzip.open(path, "rb") as handle:
                return [obj for _, obj in self._jsonl_objects(Path(path), handle.read().split(b"\n"))]
        except (OSError, EOFError) as exc:
            raise GymError(f"{path}: corrupt or truncated gzip file ({exc})") from None

    def read_table(self, path: Path) -> list[dict]:
        """Rows of a .parquet, .jsonl, .jsonl.gz or .csv file, chosen by its name."""
        readers = {".parquet": self.read_parquet, ".jsonl": self.read_jsonl, ".jsonl.gz": self.read_jsonl_gz,
                   ".csv": self.read_csv}
        reader = next((read for suffix, read in readers.items() if Path(path).name.endswith(suffix)), None)
        if reader is None:
            raise GymError(f"{path}: not a table gym reads ({', '.join(readers)})")
        return reader(path)

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
            "upstream_rows": self.upstream_counts(count),
            "skipped_rows": self.skipped_rows,
            "unscorable_rows": self.unscorable_rows,
            "prepared_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "gym_version": __version__,
        })
        return self.output_path


    def upstream_counts(self, kept: int) -> dict[str, Any]:
        """What became of the upstream rows: seen = kept + left out (by the reference's own rules) + skipped
        (malformed, prepare.skip_bad_rows); unscorable rows are among the kept."""
        left_out = sum(self.left_out.values())
        # a script that builds its rows without keep/convert_rows/leave_out saw at least what it wrote
        seen = self.rows_seen or kept + left_out + len(self.skipped_rows)
        return {"seen": seen, "kept": kept, "left_out": left_out,
                "left_out_by_reason": dict(self.left_out), "skipped": len(self.skipped_rows),
                "unscorable": len(self.unscorable_rows)}


def read_manifest(data_path: Path) -> dict[str, Any] | None:
    """The manifest written beside a prepared file (counts, sources, arguments); None when there is none or it is
    unreadable."""
    path = Path(data_path).parent / MANIFEST
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
