"""Expected outputs of τ² banking's `shell` tool for gym's parity tests, computed by upstream's own SandboxManager.

Upstream's src/tau2/knowledge/sandbox_manager.py (standard library only) at gym.episodes.tau2.prepare.COMMIT
lays out the fixture's documents (export_documents, Markdown, as the terminal_use form does) and runs each
command of COMMANDS with its run_command: its escape checks, its working directory, its 30 s timeout and its
output sanitising. Upstream wraps the command in Anthropic's sandbox-runtime (`srt --settings FILE CMD`); here
a stand-in `srt` on PATH runs `sh -c CMD` unconfined (read-only commands only, so the isolation does not show
in their output), under LC_ALL=C.UTF-8 as gym's sandbox. Writes the sha256 of every laid-out file and each
command's (exit code, stdout, stderr):
    git -C <tau2 checkout> show <commit>:src/tau2/knowledge/sandbox_manager.py > /tmp/sandbox_manager.py
    python tools/tau2_banking_shell_expected.py /tmp/sandbox_manager.py > tests/fixtures/tau2_expected/banking_shell.json
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import sys
import tempfile
from pathlib import Path

DOCS = Path("tests/fixtures/upstream/raw.githubusercontent.com/sierra-research/tau2-bench/"
            "a2c024725189473d2d7cea3a5cfdbcc67478e41f/data/tau2/domains/banking_knowledge/documents")
COMMANDS = [
    "ls", "ls -l", "cat INDEX.md", "ls | wc -l", "grep -ril 'credit card' . | sort", "grep -rc 'dispute' . | sort",
    "grep -rin 'overdraft' . | sort | head -n 20", "head -n 3 INDEX.md", "tail -n 5 INDEX.md",
    "find . -name '*card*' | sort", "awk 'NR<=4' INDEX.md", "sed -n '5,8p' INDEX.md", "wc -w INDEX.md",
    "grep -r 'zzqx-no-such-phrase' .", "cat no_such_file.md", "cat ../secret", "cat /etc/hostname", "ls ~",
    "echo $HOME", "grep -o '\\*\\*[^*]*\\*\\*' INDEX.md | sort | uniq -c | sort -rn | head -n 3", "true",
]


def stand_in_srt(tmp: str, **env: str) -> None:
    """Put a stand-in for sandbox-runtime's `srt --settings FILE CMD` first on PATH: it runs `sh -c CMD`
    unconfined. `env` is set beside it."""
    bin_dir = Path(tmp) / "bin"
    bin_dir.mkdir()
    (bin_dir / "srt").write_text('#!/bin/sh\nexec sh -c "$3"\n')
    (bin_dir / "srt").chmod(stat.S_IRWXU)
    os.environ.update(PATH=f"{bin_dir}:{os.environ['PATH']}", **env)


def main() -> None:
    spec = importlib.util.spec_from_file_location("sandbox_manager", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    documents = [json.loads(p.read_text()) for p in sorted(DOCS.glob("*.json"))]
    documents = [{"id": d["id"], "title": d["title"], "content": d["content"]} for d in documents]
    with tempfile.TemporaryDirectory() as tmp:
        stand_in_srt(tmp, LC_ALL="C.UTF-8")
        module._DEPS_VERIFIED = True  # the stand-in srt needs none of rg, bwrap, socat
        sandbox = module.SandboxManager(base_temp_dir=tmp)
        sandbox.export_documents(documents, file_format="md")
        layout = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(sandbox.kb_dir.iterdir())}
        runs = [[command, *sandbox.run_command(command)] for command in COMMANDS]
    json.dump({"files": layout, "runs": runs}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
