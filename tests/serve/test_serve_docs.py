"""docs/training.md runs as written: its task=serve command (through the CLI, in a fresh directory), then
every Python example in order, each `print` checked against the `# expected` comment beside it. The container
benchmark's `/run` example (fenced `py`: it needs podman and a SWE-bench server) is played over HTTP by
tests/benchmarks/test_swebench_containers.py instead."""

from __future__ import annotations

import contextlib
import io
import re
import shlex

from tests.conftest import ROOT
from tests.serve_helpers import prepare, served

DOC = ROOT / "docs" / "training.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_training_page_examples_run(tmp_path, monkeypatch):
    command = next(line for block in blocks("bash") for line in block.splitlines()
                   if line.startswith("python -m gym task=serve benchmarks="))
    data = tmp_path / "data"
    prepare(data, "gsm8k", "tau2_mock")  # the page's prepare line, from the fixtures' mirror (offline)
    monkeypatch.setenv("GYM_DATA_DIR", str(data))
    monkeypatch.chdir(tmp_path)
    with served(tmp_path / "run", data, *shlex.split(command)[4:], cwd=tmp_path):
        namespace: dict = {}
        for code in blocks("python"):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - the page's own examples
            wanted = [line.partition("  # ")[2] for line in code.splitlines() if line.startswith("print(")]
            lines = printed.getvalue().splitlines()
            assert len(lines) == len(wanted), (code, lines)
            for got, expected in zip(lines, wanted):
                assert not expected or got == expected, (code, got, expected)
