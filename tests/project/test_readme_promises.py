"""What the README and getting-started say, held against what gym does: the documentation table lists the
training and agent-command pages, the sweep over aime24 says it needs the network (and offline it is
exactly aime24 that fails, for that reason), getting-started says the τ² mock data is bundled."""

from __future__ import annotations

import json
import re
import shlex

from tests.conftest import NO_NETWORK, ROOT, run_gym

README = (ROOT / "README.md").read_text()
GETTING_STARTED = (ROOT / "docs" / "getting-started.md").read_text()


def test_the_documentation_table_lists_training_and_agent_commands():
    table = README.split("## Documentation", 1)[1]
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    for page in ("docs/training.md", "docs/agent-commands.md"):
        (row,) = [row for row in rows if f"({page})" in row]
        title = (ROOT / page).read_text().splitlines()[0].lstrip("# ").strip()
        assert f"[{title}]({page})" in row, row


def test_the_aime24_sweep_says_it_needs_the_network_and_that_is_why_it_fails_offline(tmp_path):
    for text in (README, GETTING_STARTED):
        (line,) = [line for line in text.splitlines() if "-m task=e2e benchmark=aime24,gsm8k model=mock" in line]
        assert "needs the network for aime24" in line.split("#", 1)[1], line
    argv = shlex.split(line, comments=True)[3:]
    sweep = tmp_path / "sweep"
    result = run_gym(*argv, "limit=2", "progress=false", f"hydra.sweep.dir={sweep}", cwd=tmp_path,
                     env={**NO_NETWORK, "GYM_DATA_DIR": str(tmp_path / "data")})
    assert result.returncode != 0 and "Traceback" not in result.stderr
    jobs = {job["job"]: job for job in json.loads((sweep / "summary.json").read_text())["jobs"]}
    assert jobs["1_gsm8k_mock"]["status"] == "ok"  # bundled with gym
    assert jobs["0_aime24_mock"]["status"] == "failed" and "no network" in jobs["0_aime24_mock"]["error"]


def test_getting_started_says_the_tau2_mock_data_is_bundled():
    paragraph = GETTING_STARTED.split("Its first run downloads τ²-bench's mock domain", 1)[1].split("\n\n", 1)[0]
    assert "gym ships those files" in paragraph and "gym/data/bundled/" in paragraph
    assert "data.mirror=" not in paragraph  # nothing to add offline
    assert re.search(r"Expect pass@1 60\.00", paragraph)
