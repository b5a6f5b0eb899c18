"""The Terminal-Bench 2 snapshot archive in the loopback mirror's layout (tests/fixtures/upstream/<host>/<path>),
made from the real task folders in tests/fixtures/harbor/terminal-bench-2 (Apache-2.0, LICENSE beside them):
`task=prepare benchmark=terminal_bench_2 data.mirror=tests/fixtures/upstream` reads it as it reads the real one.

    python tools/make_fixtures_harbor.py
"""

from __future__ import annotations

import gzip
import io
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.terminal_bench_2.prepare import SNAPSHOT  # noqa: E402

TASKS = ROOT / "tests" / "fixtures" / "harbor" / "terminal-bench-2"


def terminal_bench_2() -> Path:
    target = ROOT / "tests" / "fixtures" / "upstream" / SNAPSHOT.split("://", 1)[1]
    target.parent.mkdir(parents=True, exist_ok=True)
    prefix = f"skill-usage-{SNAPSHOT.rsplit('/', 1)[1]}/terminal-bench-2"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:  # fixed order, times and owners: the same bytes each time
        for path in sorted(TASKS.rglob("*")):
            info = tar.gettarinfo(str(path), f"{prefix}/{path.relative_to(TASKS)}")
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            with open(path, "rb") if path.is_file() else io.BytesIO() as handle:
                tar.addfile(info, handle if path.is_file() else None)
    target.write_bytes(gzip.compress(buffer.getvalue(), mtime=0))
    return target


if __name__ == "__main__":
    print(terminal_bench_2())
