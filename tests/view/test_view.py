"""task=view without a browser: the pages and the tasks API of a viewer started by `python -m gym task=view`,
over real runs (gsm8k, tau2_mock) made by `python -m gym task=e2e`; live rows; the static export; NeMo Gym
files and old schema versions; bad input."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
import requests

from tests.conftest import assert_clean_failure, run_gym, wait_until
from tests.view_helpers import Viewer, data_env


@pytest.fixture(scope="module")
def runs(viewer_runs) -> dict[str, Path]:
    return viewer_runs


@pytest.fixture(scope="module")
def viewer(runs):
    started = Viewer(f"rollouts={runs['gsm'].parent}", env=data_env(runs))
    yield started
    assert started.stop() == 0


def get(viewer: Viewer, path: str, **params) -> requests.Response:
    response = requests.get(f"{viewer.url}/{path}", params=params, timeout=60)
    assert response.status_code == 200, (path, response.text[:500])
    return response


def run_number(viewer: Viewer, name: str) -> int:
    return next(r["run"] for r in get(viewer, "api/runs").json() if r["name"] == name)


def test_runs_page_shows_each_run_with_the_metrics_aggregate_wrote(viewer, runs):
    page = get(viewer, "index.html").text
    assert viewer.url.startswith("http://127.0.0.1:")
    rows = {r["name"]: r for r in get(viewer, "api/runs").json()}
    assert set(rows) == {"gsm", "gsm_b", "tau"}
    for name, run_dir in runs.items():
        if not (run_dir / "metrics.json").is_file():
            continue  # a collect run
        entry = next(iter(json.loads((run_dir / "metrics.json").read_text())["benchmarks"].values()))
        p = entry["pass@1"]
        assert rows[name]["pass1"] == f"{p['value']:.2f} [{p['ci_low']:.2f}, {p['ci_high']:.2f}]"
        assert rows[name]["pass1"] in page and rows[name]["status"] == "finished"
        assert rows[name]["rollouts"] == entry["rollouts"]
    assert rows["tau"]["passhat"].startswith("pass^4 ") and rows["gsm"]["passhat"].startswith("pass^2 ")  # as report.html
    assert 'href="compare/' in page  # the two gsm8k runs can be compared


def test_run_page_has_metrics_subsets_profile_and_plots(viewer, runs):
    number = run_number(viewer, "tau")
    page = get(viewer, f"run/{number}/index.html").text
    metrics = json.loads((runs["tau"] / "metrics.json").read_text())["benchmarks"]["tau2_mock"]
    assert f"{metrics['pass^k']['4']['value']:.2f}" in page
    assert "Per subset" in page and "Profile" in page and "Family metrics" in page
    for name in ("pass_rate_hist.png", "pass_at_k.png"):
        assert f'src="files/{name}"' in page
        assert get(viewer, f"run/{number}/files/{name}").content.startswith(b"\x89PNG")
    profile = [json.loads(line) for line in (runs["tau"] / "reward_profile.jsonl").read_text().splitlines()]
    for bucket in {row["bucket"] for row in profile}:
        count = sum(row["bucket"] == bucket for row in profile)
        assert f'href="tasks.html?bucket={bucket}">{count}</a>' in page


def test_tasks_api_filters_searches_and_sorts(viewer, runs):
    number = run_number(viewer, "gsm")
    rows = [json.loads(line) for line in (runs["gsm"] / "rollouts.jsonl").read_text().splitlines()]
    everything = get(viewer, f"api/run/{number}/tasks", limit=1000).json()
    assert everything["total"] == len(rows) and everything["facets"]["status"] == {"ok": len(rows)}
    wrong = get(viewer, f"api/run/{number}/tasks", sort="reward", limit=1000).json()["rows"]
    assert [r["reward"] for r in wrong] == sorted(r["reward"] for r in rows)
    zero = get(viewer, f"api/run/{number}/tasks", reward_band="0", limit=1000).json()
    assert zero["total"] == sum(r["reward"] == 0 for r in rows) and {r["reward"] for r in zero["rows"]} == {0.0}
    profile = {json.loads(line)["task_index"]: json.loads(line)["bucket"]
               for line in (runs["gsm"] / "reward_profile.jsonl").read_text().splitlines()}
    bucket = sorted(set(profile.values()))[0]
    kept = get(viewer, f"api/run/{number}/tasks", bucket=bucket, limit=1000).json()
    assert kept["total"] == sum(2 for b in profile.values() if b == bucket)
    assert {r["bucket"] for r in kept["rows"]} == {bucket}
    question = rows[3]["prompt"][-1]["content"].split("\n\n", 1)[1]
    phrase = " ".join(question.split()[:5])  # the task's own words: both its rollouts, no other task's
    same = [r for r in rows if phrase.lower() in r["prompt"][-1]["content"].lower()]
    found = get(viewer, f"api/run/{number}/tasks", q=phrase.upper()).json()
    assert found["total"] == len(same) >= 2 and {r["task"] for r in found["rows"]} == {r["task_index"] for r in same}


def test_rollout_page_shows_prompt_answer_and_verdict(viewer, runs):
    number = run_number(viewer, "gsm")
    row = next(json.loads(line) for line in (runs["gsm"] / "rollouts.jsonl").read_text().splitlines()
               if json.loads(line)["reward"] == 0)
    page = get(viewer, f"run/{number}/rollout/gsm8k/{row['task_index']}_{row['rollout_index']}.html").text
    assert f'<td id="extracted">{row["extracted_answer"]}</td>' in page
    assert f'<td id="expected">{row["expected_answer"]}</td>' in page
    assert "Solve the following math problem" in page and "&#34;predicted&#34;" in page  # the verifier's details


def test_episode_page_shows_turns_checks_and_the_database_difference(viewer, runs):
    number = run_number(viewer, "tau")
    rows = [json.loads(line) for line in (runs["tau"] / "rollouts.jsonl").read_text().splitlines()]
    failed = next(r for r in rows if r["verifier"].get("db_match") is False)
    page = get(viewer, f"run/{number}/rollout/tau2_mock/{failed['task_index']}_{failed['rollout_index']}.html").text
    assert 'id="db-diff-agent"' in page and "<th>field</th>" in page  # a table of differing fields
    assert f"<th>termination</th><td>{failed['episode']['termination']}</td>" in page
    for action in failed["verifier"].get("actions") or []:
        assert f"<td>action</td><td>{action['name']}</td>" in page
    called = next(r for r in rows if r["verifier"].get("db_match") and r["episode"]["tool_calls"])
    page = get(viewer, f"run/{number}/rollout/tau2_mock/{called['task_index']}_{called['rollout_index']}.html").text
    assert "the same as the gold final state" in page
    call = next(c for m in called["trajectory"] for c in m.get("tool_calls") or [])
    assert f"<b>{call['function']['name']}</b>" in page and "<span>output</span>" in page


def test_compare_page_gives_what_aggregate_compare_gives(viewer, runs, tmp_path):
    a, b = run_number(viewer, "gsm"), run_number(viewer, "gsm_b")
    page = get(viewer, f"compare/{a}-{b}.html").text
    result = run_gym("task=aggregate", f"compare=[{runs['gsm']},{runs['gsm_b']}]", "format=json",
                     f"hydra.run.dir={tmp_path}")
    assert result.returncode == 0, result.stderr
    entry = json.loads(result.stdout)["benchmarks"]["gsm8k"]
    m = entry["metrics"]["pass@1"]
    assert f"<td class=\"num\">{m['diff']:+.2f}</td><td class=\"num\">[{m['ci_low']:+.2f}, {m['ci_high']:+.2f}]</td>" in page
    flipped = entry["flipped"]["solved_in_a_only"]
    assert f"passed in A, fails in B: {len(flipped)} task(s)" in page
    for task in flipped:
        assert f"task {task}: <a" in page
    test = entry["mcnemar"]  # McNemar's test and the power statement, worded as the CLI prints them
    assert f"McNemar: solved by A only {test['a_only']}, by B only {test['b_only']}: p = {test['p_value']:.4f}" in page
    mdd = entry["power"]["minimal_detectable_difference"]
    assert f"a true difference of {mdd:.2f} points is the smallest this comparison detects at 80% power" in page
    asked = get(viewer, f"compare/{a}-{b}.html", target_delta="5").text
    printed = run_gym("task=aggregate", f"compare=[{runs['gsm']},{runs['gsm_b']}]", "metrics.target_delta=5",
                      f"hydra.run.dir={tmp_path / 'target'}")
    lines = [line for line in printed.stdout.splitlines() if line.startswith(("McNemar:", "gsm8k: power:"))]
    assert len(lines) == 2 and all(line in asked for line in lines) and "to detect 5 points" in lines[1]
    assert 'name="target_delta"' in asked
    bad = requests.get(f"{viewer.url}/compare/{a}-{b}.html", params={"target_delta": "lots"}, timeout=60)
    assert bad.status_code == 400 and "must be a difference in percent points" in bad.text


def test_new_rows_show_as_they_land(runs, tmp_path):
    lines = (runs["gsm"] / "rollouts.jsonl").read_text().splitlines(keepends=True)
    growing = tmp_path / "live" / "rollouts.jsonl"
    growing.parent.mkdir()
    growing.write_text("")  # a run that has just started
    run_json = growing.parent / "run.json"  # what collect writes while it runs
    run_json.write_text(json.dumps({"status": "running", "rollouts": str(growing), "started_at": "2026-01-01T00:00:00"}))
    viewer = Viewer(f"rollouts={growing}")
    try:
        table = requests.get(f"{viewer.url}/api/run/0/tasks", timeout=30).json()
        assert table["total"] == 0 and table["status"] == "running"
        assert "running" in requests.get(f"{viewer.url}/index.html", timeout=30).text
        with growing.open("a") as handle:
            handle.write("".join(lines) + lines[0][:40])  # and a torn last line, still being written
        wait_until(lambda: requests.get(f"{viewer.url}/api/run/0/tasks", timeout=30).json()["total"] == len(lines),
                   "the appended rows in the tasks table")
        run_json.write_text(json.dumps({"status": "interrupted", "rollouts": str(growing)}))  # Ctrl-C in collect
        assert requests.get(f"{viewer.url}/api/runs", timeout=30).json()[0]["status"] == "interrupted"
    finally:
        assert viewer.stop() == 0


def test_nemo_gym_files_and_old_schema_versions_open(runs, tmp_path):
    out = tmp_path / "nemo"
    result = run_gym("task=export", f"rollouts={runs['gsm']}", "format=nemo_gym", f"output_dir={out}",
                     f"hydra.run.dir={tmp_path / 'export'}")
    assert result.returncode == 0, result.stderr
    old = tmp_path / "old" / "rollouts.jsonl"  # version 1 rows: no schema_version, no data_sha256
    old.parent.mkdir()
    rows = [json.loads(line) for line in (runs["gsm"] / "rollouts.jsonl").read_text().splitlines()]
    old.write_text("".join(json.dumps({k: v for k, v in r.items() if k not in ("schema_version", "data_sha256")}) + "\n"
                           for r in rows))
    viewer = Viewer(f"rollouts=[{out},{old}]")
    try:
        listed = requests.get(f"{viewer.url}/api/runs", timeout=30).json()
        assert sorted(r["rollouts"] for r in listed) == [len(rows), len(rows)]
        for run in listed:
            table = requests.get(f"{viewer.url}/api/run/{run['run']}/tasks", timeout=30).json()
            first = table["rows"][0]
            page = requests.get(f"{viewer.url}/run/{run['run']}/{first['href']}", timeout=30).text
            want = next(r for r in rows if r["task_index"] == first["task"] and r["rollout_index"] == first["rollout"])
            assert f'<td id="expected">{want["expected_answer"]}</td>' in page
    finally:
        assert viewer.stop() == 0


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value and not value.startswith(("http", "#", "?")):
                self.links.append(value.split("?")[0])


def test_export_writes_pages_whose_links_all_resolve(runs, viewer_export, tmp_path):
    site, result = viewer_export  # shared with the browser's test of the same export
    assert f"open {site / 'index.html'}" in result.stdout
    assert any('id="db-diff-agent"' in page.read_text() for page in site.glob("run/*/rollout/tau2_mock/*.html"))
    pages = list(site.rglob("*.html"))
    rollouts = sum(len((d / "rollouts.jsonl").read_text().splitlines()) for d in runs.values())
    assert len(list(site.glob("run/*/rollout/*/*.html"))) == rollouts
    for page in pages:
        parser = Links()
        parser.feed(page.read_text())
        for link in parser.links:
            assert (page.parent / link).resolve().is_file(), (page, link)
    data = (site / "run" / "0" / "tasks-data.js").read_text()
    assert data.startswith("window.GYM_TASKS = ") and '"text": ' in data
    site = Path(shutil.copytree(site, tmp_path / "site"))  # an export written over (a copy: the shared one stays)
    again = run_gym("task=view", f"rollouts={runs['tau']}", f"view.export={site}", "view.progress=false")
    assert again.returncode == 0 and not (site / "run" / "1").exists()  # replaced whole


def test_bad_input_gets_one_clear_line(runs, tmp_path):
    assert_clean_failure(run_gym("task=view", f"rollouts={tmp_path / 'nothing'}"), "no such file or directory")
    assert_clean_failure(run_gym("task=view", f"rollouts={runs['gsm']}", "view.port=abc"), "view.port")
    assert_clean_failure(run_gym("task=view", f"rollouts={runs['gsm']}", "view.host=0.0.0.0",
                                 env={"GYM_VIEW_TOKEN": ""}), "GYM_VIEW_TOKEN")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"benchmark": "x"}\n')
    assert_clean_failure(run_gym("task=view", f"rollouts={bad}"), f"{bad}:1")
    (tmp_path / "file").write_text("x")
    assert_clean_failure(run_gym("task=view", f"rollouts={runs['gsm']}", f"view.export={tmp_path / 'file'}"),
                         "is a file")


def test_a_page_that_does_not_exist_is_a_404_with_one_line(viewer):
    response = requests.get(f"{viewer.url}/api/run/99/tasks", timeout=30)
    assert response.status_code == 404 and response.json() == {"error": "no run 99 (there are 3)"}
    assert requests.get(f"{viewer.url}/run/0/rollout/gsm8k/999_0.html", timeout=30).status_code == 404


def test_a_non_loopback_viewer_wants_its_token(runs):
    viewer = Viewer(f"rollouts={runs['gsm']}", "view.host=0.0.0.0", env={"GYM_VIEW_TOKEN": "s3cret"})
    try:
        assert "?token=<the token in $GYM_VIEW_TOKEN>" in viewer.printed and "s3cret" not in viewer.printed
        url = viewer.url.replace("0.0.0.0", "127.0.0.1")
        assert requests.get(f"{url}/index.html", timeout=30).status_code == 401
        session = requests.Session()
        assert session.get(f"{url}/index.html", params={"token": "s3cret"}, timeout=30).status_code == 200
        assert session.get(f"{url}/api/runs", timeout=30).status_code == 200  # the cookie carries it
    finally:
        assert viewer.stop() == 0
