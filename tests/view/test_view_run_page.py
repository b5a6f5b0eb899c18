"""The viewer's run, runs and episode pages as a reader checks them against the CLI and report.html, over
HTTP from a viewer started by `python -m gym task=view` on real e2e runs (gsm8k, tau2_mock): each metric once
and rounded like its CI, pass@1[avg-of-k] explained, difficulty buckets unsolved -> solved, pass^k for gsm8k
as report.html gives it, τ² episodes' calls instead of a hash, every reward-basis entry in the checks table
(communicate too), one schema version on every row of one gym."""

from __future__ import annotations

import html
import json
import re

import pytest
import requests

from gym.metrics.reward_profiles import BUCKETS
from tests.conftest import run_gym
from tests.view_helpers import Viewer, data_env


@pytest.fixture(scope="module")
def viewer(viewer_runs):
    started = Viewer(f"rollouts={viewer_runs['gsm'].parent}", env=data_env(viewer_runs))
    yield started
    assert started.stop() == 0


def page(viewer: Viewer, path: str) -> str:
    response = requests.get(f"{viewer.url}/{path}", timeout=60)
    assert response.status_code == 200, (path, response.text[:300])
    return response.text


def runs_by_name(viewer: Viewer) -> dict[str, dict]:
    return {row["name"]: row for row in requests.get(f"{viewer.url}/api/runs", timeout=60).json()}


def cells(table_html: str) -> list[list[str]]:
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table_html, flags=re.S)
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, re.S)]
            for r in rows]


def test_each_metric_once_rounded_like_its_ci_and_avg_of_k_explained(viewer):
    text = page(viewer, f"run/{runs_by_name(viewer)['tau']['run']}/index.html")
    metrics = cells(re.search(r'<table class="grid metrics">(.*?)</table>', text, re.S).group(1))[1:]
    names = [row[0].rstrip("*") for row in metrics]
    assert names.count("pass@1") == 1 and len(names) == len(set(names)), names
    for name, value, ci, unit in metrics:
        if unit == "percent":
            assert re.fullmatch(r"\d+\.\d\d", value), (name, value)
        assert re.fullmatch(r"\d+(\.\d\d)?|0\.\d+", value) and len(value) <= 12, (name, value)  # no 65.625, no 1e+04
    assert any(name.startswith("pass@1[avg-of-") for name in names)
    note = re.search(r'id="avg-of-k">(.*?)</p>', text, re.S)
    assert note and "first k rollouts" in note.group(1)
    subsets = cells(re.search(r'<table class="grid subsets">(.*?)</table>', text, re.S).group(1))[1:]
    assert {row[0] for row in subsets} == {"subset"} and [row[2] for row in subsets].count("pass@1") == 1


def test_the_error_bar_notes_are_the_ones_the_cli_prints_and_no_noise_without_noise_json(viewer, viewer_runs):
    """gsm8k's 12 tasks with 2 repeats: the run page says what `task=aggregate` says under its table about
    the interval (too few tasks) and the repeats (the variance split, what more repeats would buy)."""
    printed = run_gym("task=aggregate", f"rollouts={viewer_runs['gsm']}", env=data_env(viewer_runs))
    assert printed.returncode == 0, printed.stderr
    expected = [line for line in printed.stdout.splitlines() if line.startswith("note: gsm8k: ")]
    assert any("only 12 tasks" in line for line in expected) and any("repeats:" in line for line in expected)
    text = page(viewer, f"run/{runs_by_name(viewer)['gsm']['run']}/index.html")
    shown = [html.unescape(line) for line in re.findall(r'<p class="note error-bars">(.*?)</p>', text, re.S)]
    assert shown == expected
    assert "Noise floor" not in text  # no task=noise beside this run


def test_difficulty_buckets_go_from_unsolved_to_solved(viewer):
    text = page(viewer, f"run/{runs_by_name(viewer)['tau']['run']}/index.html")
    header = cells(re.search(r'<table class="grid profile">(.*?)</table>', text, re.S).group(1))[0]
    assert header[:len(BUCKETS)] == list(BUCKETS) == ["unsolved", "hard", "medium", "easy", "solved"]


def test_the_runs_page_gives_pass_hat_k_for_gsm8k_as_report_html_does(viewer, viewer_runs):
    row = runs_by_name(viewer)["gsm"]
    assert row["passhat"].startswith("pass^2 "), row
    report = html.unescape(re.sub(r"<[^>]+>", " ", (viewer_runs["gsm"] / "report.html").read_text()))
    assert row["passhat"] in re.sub(r"\s+", " ", report)
    assert row["passhat"] in page(viewer, "index.html")


def _episode_rows(viewer_runs) -> list[dict]:
    return [json.loads(line) for line in (viewer_runs["tau"] / "rollouts.jsonl").read_text().splitlines()]


def test_episodes_show_their_calls_not_a_hash(viewer, viewer_runs):
    number = runs_by_name(viewer)["tau"]["run"]
    tasks = requests.get(f"{viewer.url}/api/run/{number}/tasks", params={"limit": 1000}, timeout=60).json()["rows"]
    assert tasks and not any(str(t["extracted"]).startswith("calls:") for t in tasks)
    rows = _episode_rows(viewer_runs)
    with_calls = next(r for r in rows if any(m.get("tool_calls") for m in r["trajectory"] if m["role"] == "assistant"))
    without = next(r for r in rows if not any(m.get("tool_calls") for m in r["trajectory"] if m["role"] == "assistant"))
    for row, wanted in ((with_calls, r"^\w+\(\w+=.+\)"), (without, r"^–$")):
        text = page(viewer, f"run/{number}/rollout/tau2_mock/{row['task_index']}_{row['rollout_index']}.html")
        shown = html.unescape(re.search(r'<td id="extracted">(.*?)</td>', text, re.S).group(1)).strip()
        assert re.match(wanted, shown) and "calls:" not in shown, shown


def test_every_reward_basis_entry_has_a_row_communicate_too(viewer, viewer_runs):
    number = runs_by_name(viewer)["tau"]["run"]
    kinds = {"DB": "database", "ENV_ASSERTION": "assertion", "ACTION": "action", "COMMUNICATE": "required string"}
    seen = set()
    for row in _episode_rows(viewer_runs)[::4]:  # one rollout per task
        text = page(viewer, f"run/{number}/rollout/tau2_mock/{row['task_index']}_{row['rollout_index']}.html")
        checks = cells(re.search(r"<h2>Reward basis</h2>\s*<table[^>]*>(.*?)</table>", text, re.S).group(1))[1:]
        in_basis = {check[0] for check in checks if check[3] == "yes"}
        basis = row["verifier"]["reward_basis"]
        assert {kinds[name] for name in basis} <= in_basis, (row["task_index"], basis, checks)
        seen.update(basis)
    assert "COMMUNICATE" in seen


def test_one_schema_version_for_every_row_of_one_gym(viewer, viewer_runs):
    versions = set()
    for name in ("gsm", "tau"):
        number = runs_by_name(viewer)[name]["run"]
        first = json.loads((viewer_runs[name] / "rollouts.jsonl").read_text().splitlines()[0])
        path = f"run/{number}/rollout/{first['benchmark']}/{first['task_index']}_{first['rollout_index']}.html"
        versions.update(re.findall(r"schema version (\d+)", page(viewer, path)))
    assert versions == {"4"}
