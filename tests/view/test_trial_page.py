"""The viewer's page of a container trial shows its times and resource use (a row gym wrote for a real trial:
tests/fixtures/harbor/rollouts)."""

from __future__ import annotations

import json
import shutil

from tests.conftest import ROOT, run_gym

ROW = ROOT / "tests" / "fixtures" / "harbor" / "rollouts" / "docker_oracle_row.jsonl"


def test_a_trial_page_shows_wall_times_cpu_and_peak_memory(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(ROW, run / "rollouts.jsonl")
    record = json.loads(ROW.read_text())["verifier"]
    site = tmp_path / "site"
    shown = run_gym("task=view", f"rollouts={run}", f"view.export={site}", "view.progress=false")
    assert shown.returncode == 0, shown.stderr
    (page,) = [p.read_text() for p in site.rglob("*.html") if 'id="trial"' in p.read_text()]
    for name in ("build_seconds", "agent_seconds", "verifier_seconds", "trial_seconds", "cpu_seconds",
                 "peak_memory_mb"):
        assert name in page and str(record[name]) in page, name
