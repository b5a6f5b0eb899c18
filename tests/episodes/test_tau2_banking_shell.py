"""τ² banking's terminal_use form: the `shell` tool runs commands over the knowledge base as files in gym's
sandbox, with the files, refusals, sanitised listings and results of upstream's SandboxManager
(tests/fixtures/tau2_expected/banking_shell.json, computed by tools/tau2_banking_shell_expected.py)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gym.episodes.tau2.banking.shell import KnowledgeShell, knowledge_folder, shell_answer
from gym.episodes.tau2.env import Tau2Environment
from gym.sandbox.host import probe_isolation
from tests.banking_helpers import prepare_form

ROOT = Path(__file__).resolve().parents[1]
WANT = json.loads((ROOT / "fixtures" / "tau2_expected" / "banking_shell.json").read_text())
needs_sandbox = pytest.mark.skipif(not probe_isolation()[0], reason="no isolating sandbox on this machine")


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    path = prepare_form(tmp_path_factory, "terminal_use")
    data = json.loads((path.parent / "banking_terminal_use.env.json").read_text())
    return path, data


def test_the_form_offers_shell_and_its_instructions(prepared):
    path, data = prepared
    row = json.loads(path.read_text().splitlines()[0])
    names = [tool["name"] for tool in data["tools"]]
    assert "shell" in names and "KB_search" not in names and "grep" not in names
    assert "### The `shell` Tool" in data["policy"] and "cat INDEX.md" in row["system_prompt"]


def test_files_are_laid_out_as_upstream(prepared):
    folder = knowledge_folder(prepared[1]["documents"])
    got = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}
    assert got == WANT["files"]


@needs_sandbox
@pytest.mark.parametrize("number", range(len(WANT["runs"])), ids=[run[0] for run in WANT["runs"]])
def test_commands_answer_as_upstream(prepared, number):
    command, code, stdout, stderr = WANT["runs"][number]
    assert list(_shell(prepared).run(command)) == [code, stdout, stderr]


_runner: list[KnowledgeShell] = []


def _shell(prepared) -> KnowledgeShell:
    if not _runner:
        _runner.append(KnowledgeShell(prepared[1]["documents"]))
    return _runner[0]


@needs_sandbox
def test_the_sandbox_holds_what_upstream_only_filters(prepared):
    """Quoted paths pass upstream's pattern check; gym's sandbox still shows no host file, takes no write
    and stops a command at its time limit with upstream's words."""
    shell = _shell(prepared)
    code, out, err = shell.run("cat '/etc/passwd' \"/proc/1/environ\" 2>&1; echo x > 'new.md'")
    assert "root:" not in out and "Read-only file system" in err
    assert shell.run("sleep 5", timeout=1) == (124, "", "Command timed out after 1 seconds")


def test_answers_are_worded_as_upstream_shell_tool():
    assert shell_answer("grep -r x .", 1, "", "") == "No matches found."
    assert shell_answer("cat x", 1, "", "cat: x: No such file\n") == "Error (exit code 1): cat: x: No such file\n"
    assert shell_answer("false", 1, "", "") == "Command failed with exit code 1"
    assert shell_answer("true", 0, "", "") == "(no output)"


@needs_sandbox
def test_an_episode_calls_shell(prepared):
    path, _ = prepared
    env = Tau2Environment(path)
    row = json.loads(path.read_text().splitlines()[0])
    state = env.reset(row)
    output = env.call(state, "shell", {"command": "head -n 1 INDEX.md"}, "assistant")
    assert output.content == "# Knowledge Base Index\n"


@needs_sandbox
def test_e2e_offline_through_the_command_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gym", "task=e2e", "benchmark=banking_terminal_use", "model=mock",
                           "user=mock", "data.mirror=tests/fixtures/upstream", f"data.root={tmp_path}/data",
                           f"output={tmp_path}/rollouts.jsonl", "num_repeats=1", "progress=false",
                           f"hydra.run.dir={tmp_path}/run"],
                          cwd=ROOT.parent, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (tmp_path / "rollouts.jsonl").read_text().splitlines()]
    expected = json.loads((ROOT / "fixtures" / "tau2_expected" / "banking_knowledge.json").read_text())["tasks"]
    assert len(rows) == len(expected) and all(r["status"] == "ok" for r in rows)
    assert sum(r["reward"] for r in rows) >= len(rows) // 2


def test_no_isolating_sandbox_refuses_the_shell(prepared, monkeypatch):
    import gym.sandbox.host as host
    from gym.core.errors import GymError
    from gym.episodes.tau2.banking import shell as banking_shell

    monkeypatch.setattr(host, "probe_isolation", lambda mechanism="auto": (False, "no user namespaces"))
    monkeypatch.setattr(banking_shell, "_shells", {})
    with pytest.raises(GymError, match=r"shell tool needs an isolating sandbox .*\(.*no user namespaces"):
        KnowledgeShell(prepared[1]["documents"])
