"""Rebuild SWE-bench's fixtures: the instance parquet file and the git mirrors of the instances' repositories.

    .venv/bin/python tools/make_fixtures_swebench.py [pallets/flask=/path/to/a/clone] [sympy/sympy=/path/to/a/clone]

The instances (tests/fixtures/real/swebench/<instance_id>.json, see the README there) are written as
upstream's parquet (SWE-bench/SWE-bench_Verified and SWE-bench/SWE-bench_Lite, split test; every column a
string, as published; a Lite file holds the instances that lite_instance_ids.txt names). A
mirror is a bare repository with just its instance's base and environment-setup commits (depth 1), in
the layout gym reads repositories from (`<mirror>/github.com/<owner>/<name>.git`), its licence beside it.
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
INSTANCES = {"pallets__flask-5014": "LICENSE.rst", "sympy__sympy-20916": "LICENSE"}  # id -> its licence file
LITE_INSTANCES = ("astropy__astropy-12907", "sphinx-doc__sphinx-8595")  # rows of Verified that Lite has too
HUB = HERE / "upstream/huggingface.co/datasets/SWE-bench"
VERIFIED = HUB / "SWE-bench_Verified/resolve/main/data/test-00000-of-00001.parquet"
LITE = HUB / "SWE-bench_Lite/resolve/main/data/test-00000-of-00001.parquet"
LITE_IDS = HERE / "real" / "swebench" / "lite_instance_ids.txt"  # Lite's 300 test instances


def write_parquet(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = list(rows[0])
    table = pa.table({name: pa.array([row[name] for row in rows], pa.string()) for name in columns})
    pq.write_table(table, path)


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def make_mirror(source: Path, repo: str, commits: list[str], licence_file: str) -> None:
    mirror = HERE / "upstream/github.com" / f"{repo}.git"
    shutil.rmtree(mirror, ignore_errors=True)
    git("init", "-q", "--bare", str(mirror))
    git("fetch", "-q", "--depth", "1", f"file://{source.resolve()}", *commits, cwd=mirror)
    for name, commit in zip(("base", "environment"), commits):
        git("update-ref", f"refs/heads/{name}", commit, cwd=mirror)
    git("symbolic-ref", "HEAD", "refs/heads/base", cwd=mirror)
    git("gc", "-q", "--aggressive", "--prune=now", cwd=mirror)
    git("update-server-info", cwd=mirror)  # served over plain HTTP too (a mirror URL)
    for extra in ("hooks", "FETCH_HEAD", "description", "logs"):
        path = mirror / extra
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    for bitmap in mirror.glob("objects/pack/*.bitmap"):
        bitmap.unlink()
    # git keeps no empty folders, and without refs/ a bare repository is not one: a file keeps it in a checkout
    (mirror / "refs").mkdir(exist_ok=True)
    (mirror / "refs" / ".keep").touch()
    licence = git("show", f"{commits[0]}:{licence_file}", cwd=mirror)
    (mirror.parent / f"{repo.split('/')[1]}.{licence_file}").write_text(licence, encoding="utf-8")


def instance(name: str) -> dict:
    return json.loads((HERE / "real" / "swebench" / f"{name}.json").read_text(encoding="utf-8"))


def main() -> None:
    rows = [instance(name) for name in INSTANCES]
    write_parquet(rows, VERIFIED)
    lite_ids = set(LITE_IDS.read_text(encoding="utf-8").split())
    assert len(lite_ids) == 300 and set(LITE_INSTANCES) <= lite_ids, "Lite's instance list or LITE_INSTANCES is wrong"
    write_parquet([instance(name) for name in LITE_INSTANCES], LITE)
    print(f"wrote {LITE.relative_to(HERE)} ({len(LITE_INSTANCES)} instances)")
    clones = dict(arg.split("=", 1) for arg in sys.argv[1:])
    for row, licence_file in zip(rows, INSTANCES.values()):
        if row["repo"] in clones:
            make_mirror(Path(clones[row["repo"]]), row["repo"], [row["base_commit"], row["environment_setup_commit"]],
                        licence_file)
            print(f"wrote the mirror of {row['repo']}")
    print(f"wrote {VERIFIED.relative_to(HERE)} ({len(rows)} instances)")


if __name__ == "__main__":
    main()
