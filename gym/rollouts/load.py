"""Finding rollout files and loading them into one DataFrame.

Which files are read: see gym/rollouts/files.py.

Which row wins (de-duplication)
-------------------------------
Rows are appended as rollouts finish and a resumed or repeated run appends again, so for one `key`
the LAST row wins: later lines in a file supersede earlier ones, and files are read in sorted path
order, so a later file (in that order) wins over an earlier one. The number of dropped duplicates
and of keys whose reward changed between copies are reported.

Row validation
--------------
* A malformed line raises GymError with file:line; a torn last line without a newline (a write cut
  by a crash) is skipped and counted.
* Each row is checked by gym.rollouts.row (the row schema): `schema_version` absent = version 1, a newer
  version than gym knows is refused; `reward` missing, null or NaN on an `ok` row is an error
  (file:line) since the row claims a verified answer; a `model_error` row scores 0 by definition;
  `infra_error` and `verifier_error` rows keep null (excluded from every denominator).
* A reward outside [0, 1] and an unknown status (for the row's version) are errors.

Secondary scores: a row's `scores` object {name: number in [0, 1]} becomes float columns
`scores.<name>` (null where a row lacks the name); see gym.rollouts.scores.

NeMo Gym rollout files (`_ng_task_index`, `_ng_rollout_index`, ...) are read too; the mapping lives
in gym/rollouts/nemo_gym.py.

Speed: files are parsed by pyarrow's multi-threaded JSON reader keeping only the needed columns;
anything it cannot take as is (odd types, rows failing validation, blank lines) is re-read
line by line in Python, which is slower but names the offending line.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from gym.rollouts import nemo_gym

from gym.rollouts import scores as rollout_scores
from gym.core.errors import GymError
from gym.core.io import complete_end, count_lines, iter_jsonl, line_blocks
from gym.rollouts.row import STATUSES, STATUSES_BY_VERSION, check_row
from gym.rollouts.row import number as _number
from gym.rollouts.files import find_rollout_files
from gym.rollouts.frame import FrameBuilder, index_collisions, last_row_per_key, use_system_allocator

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa

log = logging.getLogger("gym.rollouts.load")

COLUMNS = ("benchmark", "model", "task_index", "rollout_index", "key", "status", "reward",
           "extracted_answer", "prompt_tokens", "completion_tokens", "latency_s", "adaptive", "source", "ordinal")
_BLOCK_SIZE = 16 << 20  # pyarrow needs one block to hold a whole line
_READ_BLOCK = 16 << 20  # bytes of a file parsed at a time


@dataclass
class RolloutSet:
    """Loaded rollouts: one row per key (`frame`) plus what happened on the way."""

    frame: "pd.DataFrame"
    files: list[Path]
    rows_read: int = 0
    duplicates_dropped: int = 0
    duplicates_reward_changed: int = 0
    torn_lines: int = 0
    index_collisions: int = 0  # same (benchmark, model, task, rollout) under different keys
    skipped_side_files: list[Path] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "files": [str(p) for p in self.files],
            "rows_read": self.rows_read,
            "rows_kept": int(len(self.frame)),
            "duplicates_dropped": self.duplicates_dropped,
            "duplicates_reward_changed": self.duplicates_reward_changed,
            "torn_lines_skipped": self.torn_lines,
            "index_collisions": self.index_collisions,
            "skipped_side_files": [str(p) for p in self.skipped_side_files],
        }

    def raw_rows(self, picks: "pd.DataFrame") -> list[dict | None]:
        """Full original rows for a few frame rows (by `source` file and `ordinal`), in order.

        A row whose line no longer matches (file changed since loading) comes back as None.
        """
        wanted: dict[int, dict[int, int]] = {}
        for pos, (source, ordinal) in enumerate(zip(picks["source"], picks["ordinal"])):
            wanted.setdefault(int(source), {})[int(ordinal)] = pos
        out: list[dict | None] = [None] * len(picks)
        keys = list(picks["key"])
        for source, by_ordinal in wanted.items():
            last = max(by_ordinal)
            ordinal = -1
            with open(self.files[source], "rb") as handle:
                for raw in handle:
                    if not raw.strip():
                        continue
                    ordinal += 1
                    if ordinal in by_ordinal:
                        pos = by_ordinal[ordinal]
                        try:
                            row = json.loads(raw)
                        except ValueError:
                            row = None
                        if isinstance(row, dict) and row.get("key", keys[pos]) == keys[pos]:
                            out[pos] = row
                    if ordinal >= last:
                        break
        return out


# ---------------------------------------------------------------------------------------------
# Reading one file


def _first_rows(path: Path, limit: int = 1000) -> list[dict | None]:
    """The first `limit` non-blank lines parsed (None where a line is not a JSON object)."""
    rows: list[dict | None] = []
    with path.open("rb") as handle:
        for raw in handle:
            if raw.strip():
                try:
                    row = json.loads(raw)
                except ValueError:
                    row = None
                rows.append(row if isinstance(row, dict) else None)
                if len(rows) >= limit:
                    break
    return rows


def _is_nemo(row: dict | None) -> bool:
    return nemo_gym.is_nemo_row(row)


def _schemas(score_names: Sequence[str] = ()) -> tuple["pa.Schema", "pa.Schema"]:
    import pyarrow as pa

    gym_schema = pa.schema([
        ("schema_version", pa.int64()), ("benchmark", pa.string()), ("model", pa.string()), ("task_index", pa.int64()),
        ("rollout_index", pa.int64()), ("key", pa.string()), ("status", pa.string()),
        ("reward", pa.float64()), ("extracted_answer", pa.string()), ("latency_s", pa.float64()),
        ("usage", pa.struct([("prompt_tokens", pa.int64()), ("completion_tokens", pa.int64())])),
        ("scores", rollout_scores.struct_type(score_names)),  # no names: still says whether any row has scores
        ("adaptive", pa.string()),  # the adaptive-repeats rule that sampled the row (gym.rollouts.adaptive), else null
    ])
    nemo_schema = pa.schema([
        ("_ng_task_index", pa.int64()), ("_ng_rollout_index", pa.int64()), ("reward", pa.float64()),
        ("extracted_answer", pa.string()), ("agent_ref", pa.struct([("name", pa.string())])),
        ("response", pa.struct([("model", pa.string()), ("usage", pa.struct([
            ("input_tokens", pa.int64()), ("output_tokens", pa.int64())])), ("status", pa.string())])),
        ("_ng_failure_class", pa.string()), ("latency_s", pa.float64()),
        ("scores", rollout_scores.struct_type(score_names)),
    ])
    return gym_schema, nemo_schema


class _NewScoreNames(Exception):
    """A block holds score names the schema did not declare: read the file again with them."""

    def __init__(self, names: list[str]):
        self.names = names


def _read_fast(path: Path, end: int, nemo: bool, score_names: Sequence[str] = ()) -> "pa.Table | None":
    """The file's needed columns via pyarrow, or None if the line-by-line reader must decide.

    `end` must be the file size: a file with a torn last line goes to the line-by-line reader.
    `score_names`: the score names to declare on the first try (see gym.rollouts.scores).
    The file is parsed a block of lines at a time, so memory holds the needed columns, not the text.
    """
    import pyarrow as pa

    try:
        pieces = list(_fast_pieces(path, end, nemo, score_names))
    except _NewScoreNames as found:
        return _read_fast(path, end, nemo, found.names)
    except _Unreadable:
        return None
    if not pieces:
        return None
    return pa.concat_tables(pieces, promote_options="default") if len(pieces) > 1 else pieces[0]


class _Unreadable(Exception):
    """A block the fast reader cannot take: the line-by-line reader decides about the whole file."""


def _fast_pieces(path: Path, end: int, nemo: bool, score_names: Sequence[str]) -> Iterator["pa.Table"]:
    """The file's needed columns, one table per block of lines (_Unreadable / _NewScoreNames midway)."""
    scanned: list[list[str]] = []

    def names_in_file() -> list[str]:  # every score name in the file, scanned once
        if not scanned:
            scanned.append(rollout_scores.scan_names(path, end, score_names))
        return scanned[0]

    for block in line_blocks(path, end, _READ_BLOCK):
        piece = _read_block(block, path, nemo, score_names, names_in_file)
        if piece is None:
            raise _Unreadable
        yield piece


def _read_block(block: bytes, path: Path, nemo: bool, score_names: Sequence[str], names_in_file: Any
                ) -> "pa.Table | None":
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    gym_schema, nemo_schema = _schemas(score_names)
    try:
        table = pj.read_json(pa.BufferReader(block), read_options=pj.ReadOptions(block_size=_BLOCK_SIZE, use_threads=True),
                             parse_options=pj.ParseOptions(explicit_schema=nemo_schema if nemo else gym_schema,
                                                           unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    # Blank lines or two objects on one line would shift row numbers: let the slow reader judge.
    if table.num_rows != block.count(b"\n") + (not block.endswith(b"\n")):
        return None
    n = table.num_rows
    if nemo:
        if table.column("_ng_failure_class").null_count < n:  # a failures file: the slow reader maps classes
            return None
        usage = pc.struct_field(table.column("response"), [1])
        agent = pc.struct_field(table.column("agent_ref"), [0])
        model = pc.struct_field(table.column("response"), [0])
        failed = pc.fill_null(pc.equal(pc.struct_field(table.column("response"), [2]), "failed"), False)
        task, rollout = table.column("_ng_task_index"), table.column("_ng_rollout_index")
        columns = {
            "benchmark": pc.fill_null(agent, path.stem), "model": pc.fill_null(model, "unknown"),
            "task_index": task, "rollout_index": rollout,
            "key": pc.binary_join_element_wise(str(path), pc.cast(task, pa.string()),
                                               pc.cast(rollout, pa.string()), ":"),
            "status": pc.if_else(failed, "model_error", "ok"),
            "reward": table.column("reward"), "extracted_answer": table.column("extracted_answer"),
            "prompt_tokens": pc.struct_field(usage, [0]), "completion_tokens": pc.struct_field(usage, [1]),
            "latency_s": table.column("latency_s"), "adaptive": pa.nulls(n, pa.string()),
        }
    else:
        version = pc.fill_null(table.column("schema_version"), 1)
        if not pc.all(pc.is_in(version, value_set=pa.array(list(STATUSES_BY_VERSION), pa.int64()))).as_py():
            return None  # a version gym does not read: the slow reader says so, naming the line
        v1_statuses = pa.array(STATUSES_BY_VERSION[1])
        if pc.any(pc.and_(pc.equal(version, 1), pc.invert(pc.is_in(table.column("status"), value_set=v1_statuses)))).as_py():
            return None
        usage = table.column("usage")
        columns = {name: table.column(name) for name in
                   ("benchmark", "model", "task_index", "rollout_index", "key", "status", "reward",
                    "extracted_answer", "latency_s", "adaptive")}
        columns["benchmark"] = pc.fill_null(columns["benchmark"], "unknown")
        columns["model"] = pc.fill_null(columns["model"], "unknown")
        columns["prompt_tokens"] = pc.struct_field(usage, [0])
        columns["completion_tokens"] = pc.struct_field(usage, [1])
    for name in ("task_index", "rollout_index", "key", "status"):
        if columns[name].null_count:
            return None
    if pc.any(pc.equal(columns["key"], "")).as_py():
        return None
    status = columns["status"]
    if not pc.all(pc.is_in(status, value_set=pa.array(STATUSES))).as_py():
        return None
    reward = columns["reward"]
    reward = pc.if_else(pc.is_nan(reward), pa.scalar(None, pa.float64()), reward)
    missing = pc.is_null(reward)
    if pc.any(pc.and_(missing, pc.equal(status, "ok"))).as_py():
        return None
    out_of_range = pc.or_(pc.less(reward, 0.0), pc.greater(reward, 1.0))
    if pc.any(pc.fill_null(out_of_range, False)).as_py():
        return None
    columns["reward"] = pc.if_else(pc.and_(missing, pc.equal(status, "model_error")), 0.0, reward)
    columns["prompt_tokens"] = pc.cast(columns["prompt_tokens"], pa.float64())
    columns["completion_tokens"] = pc.cast(columns["completion_tokens"], pa.float64())
    out = {name: columns[name] for name in COLUMNS[:-2]}  # same layout as the slow reader
    if table.column("scores").null_count < n:  # some row has scores: which names?
        names = names_in_file()
        if set(names) != set(score_names):
            raise _NewScoreNames(names)
        scores = rollout_scores.fast_columns(table.column("scores"), sorted(score_names))
        if scores is None:
            return None
        out.update(scores)
    return pa.table(out)


def _read_slow(path: Path) -> "pa.Table":
    """Line by line, validating each row; errors name file:line."""
    import pyarrow as pa

    cols: dict[str, list] = {name: [] for name in COLUMNS if name not in ("source", "ordinal")}
    scores: list[dict[str, float] | None] = []
    for line, row in iter_jsonl(path, tolerate_torn_tail=True):
        where = f"{path}:{line}"
        if nemo_gym.is_nemo_row(row):
            fields = nemo_gym.read_fields(row, path, where)
            benchmark, model, key = fields["benchmark"], fields["model"], fields["key"]
            task, rollout, status, reward = (fields["task_index"], fields["rollout_index"], fields["status"],
                                             fields["reward"])
            prompt_tokens, completion_tokens = fields["prompt_tokens"], fields["completion_tokens"]
            latency = _number(fields["latency_s"])
            scores.append(rollout_scores.row_scores(fields["scores"], where))
        else:
            _, reward = check_row(row, where)
            task, rollout, status, key = row["task_index"], row["rollout_index"], row["status"], row["key"]
            usage = row.get("usage") if isinstance(row.get("usage"), dict) else {}
            benchmark, model = row.get("benchmark") or "unknown", row.get("model") or "unknown"
            prompt_tokens, completion_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
            latency = _number(row.get("latency_s"))
            scores.append(rollout_scores.row_scores(row.get("scores"), where))
        answer = row.get("extracted_answer")
        cols["benchmark"].append(str(benchmark))
        cols["model"].append(str(model))
        cols["task_index"].append(task)
        cols["rollout_index"].append(rollout)
        cols["key"].append(key)
        cols["status"].append(status)
        cols["reward"].append(reward)
        cols["extracted_answer"].append(None if answer is None else str(answer))
        cols["prompt_tokens"].append(_number(prompt_tokens))
        cols["completion_tokens"].append(_number(completion_tokens))
        cols["latency_s"].append(latency)
        adaptive = row.get("adaptive")  # never on NeMo Gym rows
        cols["adaptive"].append(adaptive if isinstance(adaptive, str) and not nemo_gym.is_nemo_row(row) else None)
    types = {"task_index": pa.int64(), "rollout_index": pa.int64(), "reward": pa.float64(),
             "prompt_tokens": pa.float64(), "completion_tokens": pa.float64(), "latency_s": pa.float64()}
    table = {name: pa.array(values, types.get(name, pa.string())) for name, values in cols.items()}
    return pa.table({**table, **rollout_scores.slow_columns(scores)})


def read_file(path: Path) -> tuple["pa.Table", bool]:
    """(normalised table without source/ordinal, whether a torn last line was skipped)."""
    end, torn = complete_end(path)
    first = _first_rows(path)
    table = None
    if end and not torn:
        table = _read_fast(path, end, _is_nemo(first[0] if first else None), rollout_scores.first_names(first))
    if table is None:
        table = _read_slow(path)
    return table, torn


# ---------------------------------------------------------------------------------------------
# Loading a spec


def _read_into(builder: FrameBuilder, path: Path, source: int) -> int:
    """Add one file's rows to the frame being built; returns 1 when a torn last line was skipped."""
    end, torn = complete_end(path)
    if torn:
        log.warning("%s: skipped a torn last line (no newline, not valid JSON)", path)
    first, start = _first_rows(path), builder.mark()
    names = rollout_scores.first_names(first)
    while end and not torn:
        try:
            for piece in _fast_pieces(path, end, _is_nemo(first[0] if first else None), names):
                builder.add(piece, source)
            break
        except _NewScoreNames as found:  # read again, declaring every score name
            builder.rollback(start)
            names = found.names
        except _Unreadable:
            builder.rollback(start)
            builder.add(_read_slow(path), source)
            break
    else:
        builder.add(_read_slow(path), source)
    builder.add_ordinals(start[0], builder.rows - start[0])
    return int(torn)


def load_rollouts(spec: Any) -> RolloutSet:
    """Find, read, merge and de-duplicate rollouts (see the module docstring for the rules)."""
    files, skipped = find_rollout_files(spec)
    if skipped:
        log.info("skipped %d side file(s) (failures, metrics, profiles, selections, rollouts re-verified since)",
                 len(skipped))
    use_system_allocator()
    builder = FrameBuilder(sum(count_lines(path, path.stat().st_size) for path in files))
    torn_total = sum(_read_into(builder, path, source) for source, path in enumerate(files))
    if builder.rows == 0:
        names = ", ".join(str(p) for p in files)
        raise GymError(f"rollouts: no rollout rows in {names} (empty file(s))")
    key_hashes = builder.key_hashes()
    frame = builder.frame()
    del builder
    if frame["adaptive"].isna().all():  # no adaptive-repeats rows: the column says nothing
        frame = frame.drop(columns="adaptive")
    rows_read = len(frame)
    frame, dropped, changed = last_row_per_key(frame, key_hashes)
    del key_hashes
    collisions = index_collisions(frame)
    if collisions:
        log.warning("%d row(s) share benchmark/model/task_index/rollout_index with another row under a "
                    "different key (prompt, sampling or data changed between runs?); all are counted", collisions)
    return RolloutSet(frame=frame, files=files, rows_read=rows_read, duplicates_dropped=dropped,
                      duplicates_reward_changed=changed, torn_lines=torn_total,
                      index_collisions=collisions, skipped_side_files=skipped)
