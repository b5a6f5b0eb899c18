"""Rebuild SWE-bench's fixtures: the instance parquet files and the git mirror of pallets/flask.

    .venv/bin/python tools/make_fixtures_swebench.py /path/to/a/clone/of/pallets/flask

The instance (tests/fixtures/real/swebench/pallets__flask-5014.json, see the README there) is written as
upstream's parquet (SWE-bench/SWE-bench_Verified, split test; every column a string, as published). The
mirror is a bare repository with just the instance's base and environment-setup commits (depth 1), in
the layout gym reads repositories from (`<mirror>/github.com/<owner>/<name>.git`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
INSTANCE = HERE / "real" / "swebench" / "pallets__flask-5014.json"
VERIFIED = HERE / "upstream/huggingface.co/datasets/SWE-bench/SWE-bench_Verified/resolve/main/data/test-00000-of-00001.parquet"
MIRROR = HERE / "upstream/github.com/pallets/flask.git"


def write_parquet(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = list(rows[0])
    table = pa.table({name: pa.array([row[name] for row in rows], pa.string()) for name in columns})
    pq.write_table(table, path)


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def make_mirror(source: Path, commits: list[str]) -> None:
    shutil.rmtree(MIRROR, ignore_errors=True)
    git("init", "-q", "--bare", str(MIRROR))
    git("fetch", "-q", "--depth", "1", f"file://{source.resolve()}", *commits, cwd=MIRROR)
    for name, commit in zip(("base", "environment"), commits):
        git("update-ref", f"refs/heads/{name}", commit, cwd=MIRROR)
    git("symbolic-ref", "HEAD", "refs/heads/base", cwd=MIRROR)
    git("gc", "-q", "--aggressive", "--prune=now", cwd=MIRROR)
    git("update-server-info", cwd=MIRROR)  # served over plain HTTP too (a mirror URL)
    for extra in ("hooks", "FETCH_HEAD", "description", "logs"):
        path = MIRROR / extra
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    for bitmap in MIRROR.glob("objects/pack/*.bitmap"):
        bitmap.unlink()
    # git keeps no empty folders, and without refs/ a bare repository is not one: a file keeps it in a checkout
    (MIRROR / "refs").mkdir(exist_ok=True)
    (MIRROR / "refs" / ".keep").touch()
    licence = git("show", f"{commits[0]}:LICENSE.rst", cwd=MIRROR)
    (MIRROR.parent / "flask.LICENSE.rst").write_text(licence, encoding="utf-8")


def main() -> None:
    row = json.loads(INSTANCE.read_text(encoding="utf-8"))
    write_parquet([row], VERIFIED)
    if len(sys.argv) > 1:
        make_mirror(Path(sys.argv[1]), [row["base_commit"], row["environment_setup_commit"]])
    print(f"wrote {VERIFIED.relative_to(HERE)}" + (f" and {MIRROR.relative_to(HERE)}" if len(sys.argv) > 1 else ""))


if __name__ == "__main__":
    main()
