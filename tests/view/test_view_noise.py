"""The run page's noise section over HTTP: task=noise plays a τ² benchmark's replays (`python -m gym
task=noise benchmark=tau2_mock ...`, offline), a viewer started by `python -m gym task=view` over that run dir
shows noise.json on the run pages: the floor sentence and a row per part (both sides varying, the user's,
the agent's) with the figures noise.json holds, worded as task=noise prints them."""

from __future__ import annotations

import json
import re

import pytest
import requests

from tests.conftest import run_gym
from tests.view.test_view_run_page import cells
from tests.view_helpers import Viewer


@pytest.fixture(scope="module")
def noise_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("noise")
    out = base / "noise"
    made = run_gym("task=noise", "benchmark=tau2_mock", "model=mock", "user=mock", "limit=4", "noise.repeats=3",
                   "progress=false", f"hydra.run.dir={out}", env={"GYM_DATA_DIR": str(base / "data")})
    assert made.returncode == 0, made.stderr[-3000:]
    viewer = Viewer(f"rollouts={out}", env={"GYM_DATA_DIR": str(base / "data")})
    yield out, viewer, made.stdout
    assert viewer.stop() == 0


def run_page(viewer: Viewer, name: str) -> str:
    runs = {row["name"]: row["run"] for row in requests.get(f"{viewer.url}/api/runs", timeout=60).json()}
    response = requests.get(f"{viewer.url}/run/{runs[name]}/index.html", timeout=60)
    assert response.status_code == 200, response.text[:300]
    return response.text


def test_the_run_page_shows_noise_json_as_a_table_of_parts(noise_run):
    out, viewer, printed = noise_run
    noise = json.loads((out / "noise.json").read_text())
    entry, parts = noise["benchmarks"]["tau2_mock"], noise["parts"]["tau2_mock"]
    page = run_page(viewer, "agent_and_user")
    assert "<h3>Noise floor</h3>" in page
    sentence = re.search(r'<p class="noise-summary">(.*?)</p>', page, re.S).group(1)
    assert f"these {entry['tasks']} tasks with 3 repeat(s) a task" in sentence
    assert f"±{entry['noise_floor']:.2f}" in sentence and f"±{entry['noise_floor_one_repeat']:.2f} at one repeat" in sentence
    table = re.search(r'<table class="grid noise">(.*?)</table>', page, re.S).group(1)
    rows = cells(table)
    assert rows[0] == ["part", "what varies", "within-task variance", "flip rate", "noise floor", "share of both"]
    by_part = {row[0]: row for row in rows[1:]}
    assert set(by_part) == {"both", "user", "agent"}
    assert by_part["both"][2:] == [f"{entry['within_task_variance']:.4f}", f"{entry['flip_rate_percent']:.1f}%",
                                   f"±{entry['noise_floor']:.2f}", "100%"]
    for side in ("user", "agent"):
        part = parts[side]
        assert by_part[side][1] == part["what"]
        assert by_part[side][2:] == [f"{part['within_task_variance']:.4f}", f"{part['flip_rate_percent']:.1f}%",
                                     f"±{part['noise_floor']:.2f}", f"{100 * part['share_of_both']:.0f}%"]
        # the same figures task=noise printed
        assert f"within-task variance {part['within_task_variance']:.4f}" in printed
        assert f"noise floor ±{part['noise_floor']:.2f}" in printed
    # gym's mock user is deterministic: holding the agent leaves no spread at all
    assert by_part["user"][2:5] == ["0.0000", "0.0%", "±0.00"]


def test_a_held_side_replay_shows_the_study_it_belongs_to(noise_run):
    _, viewer, _ = noise_run
    assert "<h3>Noise floor</h3>" in run_page(viewer, "user_seeds")


def test_the_judges_part_of_an_answer_benchmark_is_a_row_of_its_own(tmp_path):
    """simpleqa judged by one loopback judge whose verdict depends on its seed: task=noise judges the same
    answers again (task=reverify, judge seeds 7, 8, 9) and the run page adds the judge's row."""
    from tests.conftest import UPSTREAM
    from tests.tasks.test_noise import SeededJudge

    judge, out, env = SeededJudge(), tmp_path / "noise", {"GYM_DATA_DIR": str(tmp_path / "data")}
    try:
        made = run_gym("task=noise", "benchmark=simpleqa", "model=mock", "model.mock.accuracy=1.0", "judge=vllm",
                       f"judge.base_url={judge.url}", "judge.name=judge-a", "judge.sampling.seed=7", "limit=4",
                       "noise.repeats=2", "noise.judge_repeats=3", "progress=false", f"data.mirror={UPSTREAM}",
                       f"hydra.run.dir={out}", env=env)
    finally:
        judge.judges.close()
    assert made.returncode == 0, made.stderr[-3000:]
    part = json.loads((out / "noise.json").read_text())["parts"]["simpleqa"]["judge"]
    viewer = Viewer(f"rollouts={out / 'agent_and_user'}", env=env)
    try:
        page = requests.get(f"{viewer.url}/run/0/index.html", timeout=60).text
    finally:
        assert viewer.stop() == 0
    rows = {row[0]: row for row in cells(re.search(r'<table class="grid noise">(.*?)</table>', page, re.S).group(1))}
    assert set(rows) == {"part", "both", "judge"}  # an answer benchmark: no user to hold
    assert rows["judge"][2:4] == [f"{part['judge_variance']:.4f}",
                                  f"{part['items_with_disagreement_percent']:.1f}% of {part['items']} items split"]
    assert float(rows["judge"][2]) > 0
