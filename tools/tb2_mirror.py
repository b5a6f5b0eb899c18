"""Write the Terminal-Bench 2 snapshot archive that `task=prepare benchmark=terminal_bench_2` downloads, from a
git mirror of its repository, into a data.mirror folder (for machines that reach no GitHub).

    python tools/tb2_mirror.py /path/to/skill-usage.git ~/gym-mirror
    python -m gym task=prepare benchmark=terminal_bench_2 data.mirror=~/gym-mirror

Only the terminal-bench-2/ folder goes in; files the mirror lacks (large blobs a partial clone left out) are
named on stderr and skipped: prepare's scan then marks the tasks that need them."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.terminal_bench_2.prepare import FOLDER, SNAPSHOT  # noqa: E402


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=check)


def main(repo: Path, mirror: Path) -> Path:
    commit = SNAPSHOT.rsplit("/", 1)[1]
    listing = git(repo, "ls-tree", "-r", commit, FOLDER).stdout.decode().splitlines()
    parts = urlsplit(SNAPSHOT)
    target = mirror / parts.netloc / parts.path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    prefix = f"{parts.path.split('/')[2]}-{commit}"
    missing = 0
    with tarfile.open(target, "w:gz") as tar:
        for line in listing:
            meta, path = line.split("\t", 1)
            mode, _, sha = meta.split()
            blob = git(repo, "cat-file", "blob", sha, check=False)
            if blob.returncode != 0:
                print(f"missing from the mirror: {path}", file=sys.stderr)
                missing += 1
                continue
            info = tarfile.TarInfo(f"{prefix}/{path}")
            info.size, info.mode = len(blob.stdout), 0o755 if mode == "100755" else 0o644
            tar.addfile(info, io.BytesIO(blob.stdout))
    print(f"{target}: {len(listing) - missing} files ({missing} missing)")
    return target


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python tools/tb2_mirror.py <git dir of the snapshot's repository> <mirror folder>")
    main(Path(sys.argv[1]).expanduser(), Path(sys.argv[2]).expanduser())
