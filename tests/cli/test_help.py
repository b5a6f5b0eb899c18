"""Plain help is printed without composing the config (or importing Hydra), and says what Hydra's would."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT, run_gym


def test_plain_help_imports_no_hydra():
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "gym", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "Tasks:" in result.stdout
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "yaml" in imported and not {m for m in imported if m.split(".")[0] in ("hydra", "omegaconf", "pandas")}


def test_plain_help_matches_hydras_help():
    fast = run_gym("--help")
    composed = run_gym("--help", "task=search")  # anything beyond plain help goes to Hydra
    assert fast.returncode == composed.returncode == 0
    hydra_lines = set(composed.stdout.splitlines())
    for line in fast.stdout.splitlines():
        assert line in hydra_lines, line
    assert run_gym().stdout == fast.stdout == run_gym("-h").stdout
    for task in ("search", "prepare", "collect", "aggregate", "profile", "e2e", "reverify", "export"):
        assert f"\n  {task} " in fast.stdout
    assert "benchmark: " in fast.stdout and "gsm8k" in fast.stdout
