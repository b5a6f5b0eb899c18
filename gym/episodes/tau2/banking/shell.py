"""τ² banking's `shell` tool (the terminal_use and alltools retrieval forms): the agent runs Unix commands
(ls, cat, grep, awk, sed, ...) over the knowledge base laid out as files, in gym's sandbox.

As upstream (src/tau2/knowledge/sandbox_manager.py and retrieval_mixins.ShellMixin at the pinned commit):
every document is `<id>.md` ("# title", a blank line, the content) beside an INDEX.md, in a folder named
knowledge_base that is the command's working directory; commands with an obvious escape (`..`, `~`, `$HOME`,
an absolute path outside quotes) are refused with upstream's message; ls -l lines show kb_user/kb_group and
a fixed date; a command gets 30 seconds; exit code 1 of a grep without stderr reads "No matches found.".
Upstream keeps the whole output; gym keeps up to OUTPUT_LIMIT bytes (more than the whole knowledge base).

Isolation is gym's sandbox in native mode (gym.sandbox.host): the folder and the system's utilities are in
its view read-only, so a write fails ("Read-only file system", as upstream's read-only form), and nothing
else of the host, no network. The folder is written once per knowledge base, named by its content's hash.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import threading
from pathlib import Path
from typing import Any

from gym.core.errors import GymError
from gym.core.io import write_text_atomic
from gym.sandbox.host import Run, Sandbox

TIMEOUT_S = 30  # upstream's run_command default
OUTPUT_LIMIT = 64 << 20
SANDBOX_USER, SANDBOX_GROUP, SANDBOX_DATE = "kb_user", "kb_group", "Jan  1 00:00"
# the utilities and what they resolve through (Debian's awk is /etc/alternatives/awk -> mawk)
TOOLCHAIN = ("/usr", "/etc/alternatives")
LS_LINE = re.compile(r"^([d\-lrwxst@]+\s+\d+\s+)(\S+)\s+(\S+)\s+(\d+)\s+(\w{3}\s+\d+\s+[\d:]+)\s+(.*)$", re.MULTILINE)

# Runs inside the sandbox: the command from stdin under sh, its exit code, stdout and stderr as JSON.
PROGRAM = r"""
import json, subprocess, sys
spec = json.loads(sys.stdin.read())
try:
    done = subprocess.run(["sh", "-c", spec["command"]], cwd=spec["cwd"], capture_output=True, text=True,
                          errors="replace", timeout=spec["timeout"], stdin=subprocess.DEVNULL,
                          env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/work", "TMPDIR": "/work",
                               "LC_ALL": "C.UTF-8"})
    result = [done.returncode, done.stdout, done.stderr]
except subprocess.TimeoutExpired:
    result = [124, "", f"Command timed out after {spec['timeout']} seconds"]
except Exception as exc:
    result = [1, "", f"Command failed: {exc}"]
sys.stdout.write(json.dumps(result))
"""


def safe_filename(name: str) -> str:
    safe = name.replace("/", "_").replace("\\", "_").replace("..", "_")
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in safe)[:255]


def files(documents: list[dict]) -> dict[str, str]:
    """{file name: text} of the knowledge base as upstream's export_documents writes it in Markdown."""
    out = {}
    for doc in documents:
        doc_id = doc.get("id", "unknown")
        out[f"{safe_filename(doc_id)}.md"] = f"# {doc.get('title', doc_id)}\n\n{doc.get('content', '')}"
    index = ["# Knowledge Base Index\n\n", f"**Total documents:** {len(documents)}\n\n", "## Documents\n\n"]
    for doc in sorted(documents, key=lambda d: d.get("id", "")):
        doc_id = doc.get("id", "unknown")
        index.append(f"- **{safe_filename(doc_id)}.md** - {doc.get('title', doc_id)}\n")
    out["INDEX.md"] = "".join(index)
    return out


_folders: dict[str, Path] = {}
_lock = threading.Lock()


def knowledge_folder(documents: list[dict], root: str | None = None) -> Path:
    """The knowledge_base folder of these documents, written once (atomically per file) and reused."""
    laid_out = files(documents)
    digest = hashlib.sha256(json.dumps(sorted(laid_out.items())).encode()).hexdigest()[:16]
    with _lock:
        if digest in _folders:
            return _folders[digest]
        folder = Path(root or tempfile.gettempdir()) / f"gym-banking-kb-{digest}" / "knowledge_base"
        done = folder.parent / ".complete"
        if not done.exists():
            folder.mkdir(parents=True, exist_ok=True)
            for name, text in laid_out.items():
                write_text_atomic(folder / name, text)
            done.write_text(digest)
        _folders[digest] = folder
        return folder


def escape_pattern(command: str) -> str | None:
    """Upstream's best-effort refusal of commands that could leave the folder, on the unquoted parts."""
    stripped = re.sub(r'"[^"]*"', '""', re.sub(r"'[^']*'", '""', command))
    if ".." in stripped:
        return ".."
    if re.search(r"(?:^|[\s;|&])(/[a-zA-Z])", stripped):
        full = re.search(r"(?:^|[\s;|&])(/[a-zA-Z][^\s;|&]*)", stripped)
        if full:
            return f"absolute path: {full.group(1)}"
    if stripped.strip().startswith("/"):
        return "absolute path at start"
    if "~" in stripped:
        return "~"
    if "$HOME" in stripped or "${HOME}" in stripped:
        return "$HOME"
    return None


def sanitize(output: str) -> str:
    """ls -l lines with upstream's fixed owner, group and date."""
    if not output:
        return output
    return LS_LINE.sub(lambda m: f"{m.group(1)}{SANDBOX_USER}  {SANDBOX_GROUP}  {m.group(4)} {SANDBOX_DATE} {m.group(6)}",
                       output)


class KnowledgeShell:
    """Runs commands in the knowledge_base folder of one set of documents, each in a fresh sandbox."""

    def __init__(self, documents: list[dict], sandbox: Sandbox | None = None):
        self.folder = knowledge_folder(documents)
        self.sandbox = sandbox or Sandbox(toolchain=(*TOOLCHAIN, str(self.folder)))
        try:  # no isolating sandbox: a GymError now, as upstream refuses to start without srt
            self.sandbox.check()
        except GymError as exc:
            reason = str(exc).split("(", 1)[-1].split(")")[0]
            raise GymError(f"the banking shell tool needs an isolating sandbox (bubblewrap or user namespaces), "
                           f"which this machine does not provide ({reason})") from None

    def run(self, command: str, timeout: int = TIMEOUT_S) -> tuple[int, str, str]:
        """(exit code, stdout, stderr) as upstream's run_command gives them."""
        pattern = escape_pattern(command)
        if pattern:
            return 1, "", f"Error: Command blocked - contains '{pattern}' which could escape the sandbox"
        spec = json.dumps({"command": command, "cwd": str(self.folder), "timeout": timeout})
        outcome = self.sandbox.run(PROGRAM, [Run(stdin=spec, timeout=timeout + 10, output_limit=OUTPUT_LIMIT)])
        result = outcome.results[0] if outcome.results else None
        if result is None or result.status != "ok":
            why = outcome.error or (result.status if result else "no result")
            if result is not None and result.status == "output_limit":
                why = f"output over {OUTPUT_LIMIT >> 20} MiB"
            return 1, "", f"Command failed: {why}"
        code, stdout, stderr = json.loads(result.stdout)
        return int(code), sanitize(stdout), sanitize(stderr)


def shell_answer(command: str, code: int, stdout: str, stderr: str) -> str:
    """What upstream's shell tool says for a command's result."""
    if code != 0:
        if code == 1 and "grep" in command and not stderr:
            return "No matches found."
        if stderr:
            return f"Error (exit code {code}): {stderr}"
        return f"Command failed with exit code {code}"
    return stdout if stdout else "(no output)"


_shells: dict[int, KnowledgeShell] = {}


def knowledge_shell(kb: Any) -> KnowledgeShell:
    """The shell over a knowledge base's documents (gym.episodes.tau2.banking.kb), made once per process."""
    with _lock:
        runner = _shells.get(id(kb))
    if runner is None:
        runner = KnowledgeShell([kb.docs[doc_id] for doc_id in kb.ids])
        with _lock:
            runner = _shells.setdefault(id(kb), runner)
    return runner


def shell(db: Any, command: str) -> str:
    kb = getattr(db, "kb", None)
    if kb is None:
        return "Error: Sandbox not initialized"
    return shell_answer(command, *knowledge_shell(kb).run(command))
