"""τ² banking's `shell` tool (terminal_use) speed: laying out the knowledge base as files (once per knowledge
base), and wall time per command, each in a fresh gym sandbox (the cost that matters; upstream's srt starts a
bubblewrap sandbox per command too).

    .venv/bin/python perf/banking_shell_perf.py                          # the fixture's 92 documents
    .venv/bin/python perf/banking_shell_perf.py --tau2-git <bare repo>   # the pinned commit's 698 documents
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
COMMIT = "a2c024725189473d2d7cea3a5cfdbcc67478e41f"
DOCS = "data/tau2/domains/banking_knowledge/documents"
COMMANDS = ["ls", "cat INDEX.md", "grep -ril 'credit card' .", "grep -rin 'dispute' . | head -n 50",
            "awk 'FNR==1' *.md | sort | head", "sed -n '1,40p' INDEX.md", "wc -l *.md | tail -n 1"]


def documents(git: str | None) -> list[dict]:
    if git is None:
        folder = ROOT / "tests/fixtures/upstream/raw.githubusercontent.com/sierra-research/tau2-bench" / COMMIT / DOCS
        return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    names = subprocess.run(["git", "--git-dir", git, "ls-tree", "--name-only", f"{COMMIT}:{DOCS}"], check=True,
                           capture_output=True, text=True).stdout.split()
    return [json.loads(subprocess.run(["git", "--git-dir", git, "show", f"{COMMIT}:{DOCS}/{n}"], check=True,
                                      capture_output=True, text=True).stdout) for n in names if n.endswith(".json")]


def main() -> None:
    from gym.episodes.tau2.banking.shell import KnowledgeShell, knowledge_folder

    parser = argparse.ArgumentParser()
    parser.add_argument("--tau2-git", default=None)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    docs = [{"id": d["id"], "title": d["title"], "content": d["content"]} for d in documents(args.tau2_git)]
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        knowledge_folder(docs, root=tmp)
        print(f"{len(docs)} documents laid out as files: {(time.perf_counter() - started) * 1000:.0f} ms")
        shell = KnowledgeShell(docs)
        shell.run("true")  # the sandbox's one-time probe
        for command in COMMANDS:
            times = []
            for _ in range(args.repeats):
                started = time.perf_counter()
                code, out, _err = shell.run(command)
                times.append((time.perf_counter() - started) * 1000)
            print(f"{command:45s} exit {code}  {len(out):>8d} chars  median {statistics.median(times):6.1f} ms")


if __name__ == "__main__":
    main()
